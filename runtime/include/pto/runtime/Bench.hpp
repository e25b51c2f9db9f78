#pragma once
// `pto::bench(kernel, config, args...)`: the seed's measurement discipline in one call.
//   cold     the first call of this specialisation, split into trace / lower / optimise /
//            codegen / load (from the compile cache's record if it was compiled earlier)
//   warm-up  `warmup` untimed launches
//   steady   `repeat` timed launch + synchronize: median, min, max, p10, p90 of host wall time
//   async    `repeat` launches queued back to back, one synchronize: time per launch
//   latency  one synchronous call on the calling thread
//   device   simulated device time of a launch
// Warns when the kernel contains debug ops (printf, dump_data, pto_assert, trap: remove them
// before measuring) and when no warm-up runs before timing.
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pto/runtime/Kernel.hpp"

namespace pto {

struct BenchOptions {
  int warmup = 3;
  int repeat = 20;
  bool print = true;  // print the result to stdout
};

struct BenchResult {
  std::string kernel, specialization;
  ColdTimings cold;
  bool compiled_here = false;  // the first call in this bench compiled the specialisation
  double first_call_ms = 0;    // wall time of the first launch + synchronize in this bench
  double tier_up_ms = 0;       // the optimising compile that replaced the quick tier's code (JitOptions::tiered), 0 when none
  int warmup = 0, repeat = 0;
  double median_us = 0, min_us = 0, max_us = 0, p10_us = 0, p90_us = 0;
  double async_per_launch_us = 0;
  double sync_latency_us = 0;
  double device_us = 0;
  std::vector<std::string> warnings;
  std::string str() const;
};

namespace detail {
struct BenchHooks {
  std::function<std::shared_ptr<const CompiledKernel>()> compile;  // specialise (cold the first time)
  std::function<void()> launch;                                    // queue one launch
  std::function<LaunchProfile()> run_sync;                         // one call on this thread
};
BenchResult run_bench(const BenchOptions& options, const BenchHooks& hooks);
}  // namespace detail

template <class K, class... Args>
BenchResult bench(const BenchOptions& options, const K& kernel, LaunchConfig config, const Args&... args) {
  auto launcher = kernel[config];
  return detail::run_bench(options, {[&] { return launcher.compile(args...); }, [&] { launcher(args...); },
                                     [&] { return launcher.run_sync(args...); }});
}

template <class K, class... Args>
BenchResult bench(const K& kernel, LaunchConfig config, const Args&... args) {
  return bench(BenchOptions{}, kernel, std::move(config), args...);
}

}  // namespace pto
