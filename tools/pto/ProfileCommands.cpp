#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "CompareReport.hpp"
#include "Report.hpp"
#include "Samples.hpp"
#include "pto/runtime/Advisor.hpp"
#include "pto/runtime/Profiler.hpp"

namespace pto::cli {

int profile_command(const ProfileOptions& o) {
  const auto& info = find_sample(o.sample);
  auto run = prepare_run(info, sample_args(o));
  const auto launch = launch_and_sync(run);
  launch();  // JIT warm-up before profiling, as the seed asks (both tiers)
  settle_tier_up(run);
  Profiler prof({.schedule = schedule(0, o.profiler_warmup, o.steps, 1, 0), .output_dir = o.out});
  prof.start();
  for (int i = 0; i < o.profiler_warmup + o.steps; ++i) {
    launch();
    prof.step();
  }
  prof.stop();
  const auto verdict = run.verify();
  const auto launches = prof.launches();
  fmt::print("profiled {} ({} active steps after {} warm-up): {} launches recorded, results {}\n", info.name, o.steps,
             o.profiler_warmup, launches.size(), verdict.ok ? "verified" : "WRONG");
  for (const char* f : {"kernel_details.csv", "trace_view.json", "profile.json"}) fmt::print("  {}/{}\n", o.out, f);
  return verdict.ok ? 0 : 1;
}

namespace {
nlohmann::json advice_json(const Advice& a) {
  return {{"kernel", a.kernel},           {"bottleneck", a.bottleneck}, {"evidence", a.evidence},
          {"suggestion", a.suggestion},   {"device_us", a.device_us},   {"bound_us", a.bound_us},
          {"achieved_over_bound", a.achieved_over_bound}};
}
}  // namespace

int advise_command(const std::string& dir, bool json) {
  const auto all = advise_directory(dir);
  if (json) {
    // The top level is the advice for the kernel with the longest device time; all are listed.
    const auto main = std::max_element(all.begin(), all.end(), [](const Advice& x, const Advice& y) { return x.device_us < y.device_us; });
    nlohmann::json j = advice_json(*main);
    j["kernels"] = nlohmann::json::array();
    for (const auto& a : all) j["kernels"].push_back(advice_json(a));
    fmt::print("{}\n", j.dump());
    return 0;
  }
  for (const auto& a : all) {
    fmt::print("kernel       {}\nbottleneck   {}\n", a.kernel, a.bottleneck);
    for (const auto& e : a.evidence) fmt::print("evidence     {}\n", e);
    fmt::print("suggestion   {}\nbound_us     {:.2f}  (achieved / bound = {:.2f})\n\n", a.suggestion, a.bound_us, a.achieved_over_bound);
  }
  return 0;
}

int report_command(const std::string& dir) {
  fmt::print("wrote {}\n", write_report(dir));
  return 0;
}

int compare_command(const std::string& baseline, const std::string& candidate, const std::string& out) {
  fmt::print("wrote {}\n", write_compare_report(baseline, candidate, out));
  return 0;
}

}  // namespace pto::cli
