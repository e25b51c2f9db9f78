#pragma once
// A Google Benchmark reporter that also prints ratios between benchmarks of the same run, so a
// perf test states "emulated / native" from measurements taken side by side.
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace pto::perf {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  /// ratio = time(numerator) / time(denominator); with no denominator, the counter "ratio" of
  /// benchmark `numerator` (a ratio it measured itself, e.g. from paired runs).
  struct Ratio {
    std::string label, numerator, denominator;
  };
  explicit RatioReporter(std::vector<Ratio> ratios) : ratios_(std::move(ratios)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (r.run_type != Run::RT_Iteration) continue;
      times_[r.benchmark_name()] = r.GetAdjustedRealTime();
      if (auto c = r.counters.find("ratio"); c != r.counters.end()) counted_[r.benchmark_name()] = c->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const auto& q : ratios_) {
      if (q.denominator.empty()) {
        if (auto c = counted_.find(q.numerator); c != counted_.end()) std::printf("RATIO %-40s %8.3f   (%s)\n", q.label.c_str(), c->second, q.numerator.c_str());
        continue;
      }
      auto n = times_.find(q.numerator), d = times_.find(q.denominator);
      if (n == times_.end() || d == times_.end()) continue;
      std::printf("RATIO %-40s %8.3f   (%s / %s)\n", q.label.c_str(), n->second / d->second, q.numerator.c_str(), q.denominator.c_str());
    }
  }

 private:
  std::vector<Ratio> ratios_;
  std::map<std::string, double> times_;
  std::map<std::string, double> counted_;  // the "ratio" counters
};

/// Runs the registered benchmarks with a RatioReporter. Steady-state benchmarks compile each
/// kernel once, optimised (PTO_TIERED=0 unless the environment says otherwise): a quick-tier
/// first call and a background compile would blur their first iterations. `kernels_choose_tiers`
/// leaves it to each kernel's JitOptions::tiered (the compile benchmarks).
inline int run_with_ratios(int argc, char** argv, std::vector<RatioReporter::Ratio> ratios, bool kernels_choose_tiers = false) {
  if (!kernels_choose_tiers) setenv("PTO_TIERED", "0", /*overwrite=*/0);
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter(std::move(ratios));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace pto::perf
