#include "Cases.hpp"

#include <chrono>
#include <mutex>

#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "Samples.hpp"
#include "pto/runtime/Timing.hpp"

namespace pto::cli {

const char* case_status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::ok: return "ok";
    case CaseStatus::wrong: return "wrong";
    case CaseStatus::race: return "race";
    case CaseStatus::skipped: return "skipped";
    case CaseStatus::error: return "error";
  }
  return "?";
}

namespace {

CaseStatus parse_status(const std::string& s) {
  for (auto st : {CaseStatus::ok, CaseStatus::wrong, CaseStatus::race, CaseStatus::skipped, CaseStatus::error}) {
    if (s == case_status_name(st)) return st;
  }
  throw UserError("status '" + s + "' is not one of ok, wrong, race, skipped, error", {});
}

/// The category of a UserError that means "this configuration cannot run on the chip", or empty.
std::string chip_limit_category(const std::string& reason) {
  if (reason.find("block_dim") != std::string::npos && reason.find("out of range") != std::string::npos) return "block_dim limit";
  if (reason.find(" need ") != std::string::npos && reason.find(" profile gives ") != std::string::npos) return "capacity";
  return {};
}

/// An error as one line for a table row: its first line, and when that line ends in ':' (a list
/// follows, such as the tiles over capacity), the list's first two items and how many more.
std::string one_line(const std::string& s) {
  std::string first = s.substr(0, s.find('\n'));
  if (first.empty() || first.back() != ':') return first;
  std::vector<std::string> items;
  for (size_t at = s.find('\n'); at != std::string::npos;) {
    const size_t end = s.find('\n', at + 1);
    std::string line = s.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    at = end;
    line.erase(0, line.find_first_not_of(' '));
    if (!line.empty() && !line.starts_with("at: ")) items.push_back(std::move(line));
  }
  for (size_t i = 0; i < items.size() && i < 2; ++i) first += (i == 0 ? " " : "; ") + items[i];
  if (items.size() > 2) first += "; +" + std::to_string(items.size() - 2) + " more";
  return first;
}

}  // namespace

CaseResult run_case(const CaseSpec& spec, const CaseTiming& timing) {
  CaseResult r;
  r.spec = spec;
  try {
    samples::SampleArgs args;
    args.shape = spec.shape;
    args.dtype = spec.dtype;
    args.block_dim = spec.block_dim;
    args.params = spec.params;
    args.chip = spec.chip;
    const auto run = prepare_run(find_sample(spec.sample), args);
    PTO_INTERNAL_CHECK(run.run_sync) << "sample " << spec.sample << " has no run_sync";
    // On the calling thread, no stream: cases may run side by side.
    const auto start = std::chrono::steady_clock::now();
    const LaunchProfile profile = run.run_sync();
    r.first_call_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (run.compile) r.compile_ms = run.compile()->cold.total_ms();
    const auto verdict = run.verify();
    r.max_abs_error = verdict.max_abs_error;
    r.device_us = profile.device_us;
    for (int p = 0; p < kPipeCount; ++p) {
      uint64_t n = 0;
      for (const auto& c : profile.cores) n += c.pipes[p].instructions;
      if (n > 0) r.pipes[ir::pipe_name(static_cast<ir::Pipe>(p))] = profile.pipe_utilization(static_cast<ir::Pipe>(p));
    }
    r.status = !verdict.ok ? CaseStatus::wrong : !profile.races.empty() ? CaseStatus::race : CaseStatus::ok;
    if (r.status == CaseStatus::race) r.message = profile.races.front().message();
    if (timing.host_repeats > 0) r.host_us = time_calls([&] { run.run_sync(); }, 1, timing.host_repeats).median_us;
  } catch (const UserError& e) {
    r.reason = chip_limit_category(e.reason());
    r.status = r.reason.empty() ? CaseStatus::error : CaseStatus::skipped;
    r.message = one_line(e.what());
  } catch (const std::exception& e) {  // an internal error fails this case, not the whole run
    r.status = CaseStatus::error;
    r.message = one_line(std::string("pto: internal error: ") + e.what());
  }
  return r;
}

std::vector<CaseResult> run_cases(const std::vector<CaseSpec>& specs, int jobs, const CaseTiming& timing,
                                  const std::function<void(const CaseResult&)>& on_done) {
  std::vector<CaseResult> out(specs.size());
  std::mutex mu;
  const auto one = [&](size_t i) {
    out[i] = run_case(specs[i], timing);
    std::lock_guard lock(mu);
    if (on_done) on_done(out[i]);
  };
  if (jobs == 1) {
    for (size_t i = 0; i < specs.size(); ++i) one(i);
    return out;
  }
  tbb::task_arena arena(jobs > 0 ? jobs : tbb::task_arena::automatic);
  arena.execute([&] { tbb::parallel_for(size_t{0}, specs.size(), one); });
  return out;
}

nlohmann::json case_json(const CaseResult& r) {
  return {{"sample", r.spec.sample},
          {"shape", r.spec.shape},
          {"dtype", dtype_name(r.spec.dtype)},
          {"block_dim", r.spec.block_dim},
          {"params", r.spec.params},
          {"chip", r.spec.chip},
          {"status", case_status_name(r.status)},
          {"ok", r.status == CaseStatus::ok},
          {"reason", r.reason},
          {"message", r.message},
          {"device_us", r.device_us},
          {"pipes", r.pipes},
          {"max_abs_error", r.max_abs_error},
          {"first_call_ms", r.first_call_ms},
          {"compile_ms", r.compile_ms},
          {"host_us", r.host_us}};
}

CaseResult case_from_json(const nlohmann::json& j) {
  CaseResult r;
  r.spec.sample = j.at("sample").get<std::string>();
  r.spec.shape = j.at("shape").get<std::vector<int64_t>>();
  r.spec.dtype = parse_dtype(j.at("dtype").get<std::string>());
  r.spec.block_dim = j.at("block_dim").get<int>();
  r.spec.params = j.at("params").get<std::map<std::string, std::string>>();
  r.spec.chip = j.at("chip").get<std::string>();
  r.status = parse_status(j.at("status").get<std::string>());
  r.reason = j.value("reason", "");
  r.message = j.value("message", "");
  r.device_us = j.at("device_us").get<double>();
  r.pipes = j.value("pipes", std::map<std::string, double>{});
  r.max_abs_error = j.value("max_abs_error", 0.0);
  r.first_call_ms = j.value("first_call_ms", 0.0);
  r.compile_ms = j.value("compile_ms", 0.0);
  r.host_us = j.value("host_us", 0.0);
  return r;
}

std::string case_id(const CaseSpec& spec) {
  std::string params;
  for (const auto& [k, v] : spec.params) params += fmt::format("{}{}={}", params.empty() ? "" : ",", k, v);
  return fmt::format("{} {} {} {} {} {}", spec.sample, shape_string(spec.shape), dtype_name(spec.dtype), spec.block_dim,
                     params.empty() ? "-" : params, spec.chip);
}

}  // namespace pto::cli
