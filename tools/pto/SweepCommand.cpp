// `pto sweep SAMPLE... --shapes --dtypes --block-dims --keys`: the regression matrix, every case
// verified and measured; compared with a saved baseline it gates CI. Cases are dealt round-robin
// over MPI ranks and gathered on rank 0, so the output does not depend on the number of ranks.
#include <fstream>

#include <fmt/format.h>

#include "Cases.hpp"
#include "Commands.hpp"
#include "Progress.hpp"
#include "Ranks.hpp"
#include "Samples.hpp"
#include "SearchAndSweep.hpp"
#include "SweepFile.hpp"

namespace pto::cli {

namespace {

std::map<std::string, std::string> parse_key_set(const std::string& text) {
  std::map<std::string, std::string> params;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string kv = text.substr(pos, comma - pos);
    const size_t eq = kv.find('=');
    PTO_USER_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < kv.size(), ErrorSite{})
        << "--keys '" << text << "': '" << kv << "' is not of the form key=value";
    params[kv.substr(0, eq)] = kv.substr(eq + 1);
    pos = comma + 1;
  }
  return params;
}

std::vector<CaseSpec> build_matrix(const SweepOptions& o) {
  PTO_USER_CHECK(!o.samples.empty(), ErrorSite{}) << "sweep: name at least one sample";
  const auto axis_empty = [](const char* name) {
    return fmt::format("sweep: the matrix is empty: {} was given no values", name);
  };
  PTO_USER_CHECK(!o.shapes_given || !o.shapes.empty(), ErrorSite{}) << axis_empty("--shapes");
  PTO_USER_CHECK(!o.dtypes.empty(), ErrorSite{}) << axis_empty("--dtypes");
  PTO_USER_CHECK(!o.block_dims.empty(), ErrorSite{}) << axis_empty("--block-dims");
  PTO_USER_CHECK(!o.keys.empty(), ErrorSite{}) << axis_empty("--keys");
  ChipProfile::get(o.chip);
  std::vector<DType> dtypes;
  for (const auto& d : o.dtypes) dtypes.push_back(parse_dtype(d));
  std::vector<CaseSpec> matrix;
  for (const auto& name : o.samples) {
    const auto& info = find_sample(name);
    std::vector<std::vector<int64_t>> shapes;
    for (const auto& s : o.shapes) shapes.push_back(parse_shape(s));
    if (shapes.empty()) shapes.push_back(info.default_shape);
    for (const auto& key_text : o.keys) {
      const auto params = parse_key_set(key_text);
      for (const auto& shape : shapes) {
        // The sample must take this shape and these keys: one clear line before anything runs.
        samples::SampleArgs probe;
        probe.shape = shape;
        probe.dtype = dtypes.front();
        probe.params = params;
        probe.chip = o.chip;
        try {
          prepare_run(info, probe);
        } catch (const UserError& e) {
          throw UserError(fmt::format("sweep: sample '{}' cannot run shape {}{}: {}", name, shape_string(shape),
                                      params.empty() ? "" : ", keys " + key_text, e.reason()),
                          {});
        }
        for (DType dtype : dtypes) {
          for (int bd : o.block_dims) {
            matrix.push_back({.sample = name, .shape = shape, .dtype = dtype, .block_dim = bd, .params = params, .chip = o.chip});
          }
        }
      }
    }
  }
  return matrix;
}

std::vector<SweepRegression> compare(const std::vector<CaseResult>& cases, const std::vector<CaseResult>& baseline, double threshold_pct,
                                size_t& matched) {
  std::map<std::string, const CaseResult*> by_id;
  for (const auto& b : baseline) by_id[case_id(b.spec)] = &b;
  std::vector<SweepRegression> out;
  matched = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto it = by_id.find(case_id(cases[i].spec));
    if (it == by_id.end()) continue;
    ++matched;
    const CaseResult& b = *it->second;
    const CaseResult& c = cases[i];
    if (b.status == CaseStatus::ok && c.status != CaseStatus::ok) {
      out.push_back({i, fmt::format("was ok, now {}", case_status_name(c.status)), b.device_us});
    } else if (b.status == CaseStatus::ok && c.device_us > b.device_us * (1 + threshold_pct / 100)) {
      out.push_back({i, fmt::format("simulated time grew {:+.2f}% (threshold {}%)", 100 * (c.device_us / b.device_us - 1), threshold_pct),
                     b.device_us});
    }
  }
  return out;
}

}  // namespace

SweepRun run_sweep(const SweepOptions& o) {
  PTO_USER_CHECK(o.threshold >= 0, ErrorSite{}) << "--threshold must be a percentage >= 0 (got " << o.threshold << ")";
  const auto matrix = build_matrix(o);
  std::vector<CaseResult> baseline;
  if (!o.baseline.empty()) baseline = load_sweep_file(o.baseline);  // a bad baseline fails before the run
  if (!o.save.empty()) {  // so does a results file that cannot be written (append: a baseline stays intact)
    PTO_USER_CHECK(std::ofstream(o.save, std::ios::app).good(), ErrorSite{}) << "cannot write the sweep results file '" << o.save << "'";
  }

  Progress progress("sweep", static_cast<int>(matrix.size()), o.json);
  const auto share = my_share(matrix.size());
  std::vector<CaseSpec> specs;
  for (size_t i : share) specs.push_back(matrix[i]);
  int done = 0, failed = 0;
  const auto results = run_cases(specs, o.jobs, {}, [&](const CaseResult& r) {
    failed += r.failed() ? 1 : 0;
    progress.update(++done * Ranks::size(), failed);
  });
  progress.finish();
  nlohmann::json mine = nlohmann::json::array();
  for (size_t k = 0; k < share.size(); ++k) mine.push_back({{"index", share[k]}, {"case", case_json(results[k])}});
  const auto parts = Ranks::gather(mine.dump());
  SweepRun run;
  if (!Ranks::root()) return run;  // rank 0 reports for everyone

  run.cases.resize(matrix.size());
  for (const auto& part : parts) {
    for (const auto& item : nlohmann::json::parse(part)) run.cases.at(item.at("index").get<size_t>()) = case_from_json(item.at("case"));
  }
  if (!baseline.empty()) run.regressions = compare(run.cases, baseline, o.threshold, run.baseline_matched);
  for (const auto& c : run.cases) {
    run.ok += c.status == CaseStatus::ok ? 1 : 0;
    run.skipped += c.status == CaseStatus::skipped ? 1 : 0;
    run.failed += c.failed() ? 1 : 0;
  }
  if (!o.save.empty()) {
    std::ofstream out(o.save);
    PTO_USER_CHECK(out.good(), ErrorSite{}) << "cannot write the sweep results file '" << o.save << "'";
    out << sweep_json(run.cases).dump(1) << "\n";
  }
  return run;
}

int sweep_command(const SweepOptions& o) {
  const SweepRun run = run_sweep(o);
  if (!Ranks::root()) return 0;  // rank 0 reports for everyone
  const auto& cases = run.cases;
  const auto& regressions = run.regressions;
  const size_t matched = run.baseline_matched;
  const int ok = run.ok, skipped = run.skipped, failures = run.failed;
  auto results = sweep_json(cases);
  const int status = failures == 0 && regressions.empty() ? 0 : 1;
  if (o.json) {
    nlohmann::json regs = nlohmann::json::array();
    for (const auto& r : regressions) {
      regs.push_back({{"case", case_id(cases[r.index].spec)}, {"why", r.why}, {"baseline_us", r.baseline_us},
                      {"device_us", cases[r.index].device_us}});
    }
    results["summary"] = {{"cases", cases.size()}, {"ok", ok}, {"skipped", skipped}, {"failed", failures},
                          {"baseline", o.baseline}, {"baseline_matched", matched}, {"regressions", regressions.size()}};
    results["regressions"] = regs;
    fmt::print("{}\n", results.dump());
    return status;
  }
  std::map<size_t, const SweepRegression*> reg_of;
  for (const auto& r : regressions) reg_of[r.index] = &r;
  fmt::print("{:>4} {:<44} {:>8} {:>12} {:>12} {:>10} {:>10} {:>12}\n", "#", "case (sample shape dtype block_dim keys chip)", "status",
             "device_us", "host_us", "first_ms", "compile_ms", "vs baseline");
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto r = reg_of.find(i);
    fmt::print("{:>4} {:<44} {:>8} {:>12.2f} {:>12.1f} {:>10.1f} {:>10.1f} {:>12}\n", i + 1, case_id(c.spec), case_status_name(c.status),
               c.device_us, c.host_us, c.first_call_ms, c.compile_ms, r == reg_of.end() ? "" : "REGRESSED");
    if (!c.message.empty() && c.status != CaseStatus::ok) fmt::print("       {}\n", c.message);
  }
  fmt::print("\n{} cases on {} rank{}: {} ok, {} skipped, {} failed\n", cases.size(), Ranks::size(), Ranks::size() == 1 ? "" : "s", ok,
             skipped, failures);
  if (!o.baseline.empty()) {
    fmt::print("against {} ({} cases matched, threshold {}%): {} regression{}\n", o.baseline, matched, o.threshold, regressions.size(),
               regressions.size() == 1 ? "" : "s");
    for (const auto& r : regressions) {
      fmt::print("  REGRESSED {}: {} ({:.2f} -> {:.2f} us)\n", case_id(cases[r.index].spec), r.why, r.baseline_us, cases[r.index].device_us);
    }
  }
  if (!o.save.empty()) fmt::print("results saved to {}\n", o.save);
  return status;
}

}  // namespace pto::cli
