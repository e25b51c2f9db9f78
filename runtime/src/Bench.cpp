#include "pto/runtime/Bench.hpp"

#include <chrono>

#include <fmt/format.h>

#include "pto/runtime/CompileCache.hpp"
#include "pto/runtime/Emulator.hpp"
#include "pto/runtime/TierUp.hpp"
#include "pto/runtime/Timing.hpp"

namespace pto {

namespace detail {

BenchResult run_bench(const BenchOptions& options, const BenchHooks& hooks) {
  using Clock = std::chrono::steady_clock;
  BenchResult r;
  const uint64_t compiles_before = runtime_stats().compiles;
  auto t = Clock::now();
  hooks.launch();
  synchronize();
  r.first_call_ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  r.compiled_here = runtime_stats().compiles > compiles_before;
  const auto ck = hooks.compile();
  r.kernel = ck->ir.name;
  r.specialization = ck->ir.specialization;
  r.cold = ck->cold;

  // A quick-tier kernel (JitOptions::tiered) queues its optimising compile on its second launch;
  // the steady state is timed on the optimised code.
  hooks.launch();
  synchronize();
  r.tier_up_ms = await_tier_up(*ck);

  r.warmup = options.warmup;
  r.repeat = std::max(1, options.repeat);
  const TimeStats warm = time_calls(
      [&] {
        hooks.launch();
        synchronize();
      },
      options.warmup, r.repeat);
  r.median_us = warm.median_us;
  r.min_us = warm.min_us;
  r.max_us = warm.max_us;
  r.p10_us = warm.p10_us;
  r.p90_us = warm.p90_us;

  t = Clock::now();
  for (int i = 0; i < r.repeat; ++i) hooks.launch();
  synchronize();
  r.async_per_launch_us = std::chrono::duration<double, std::micro>(Clock::now() - t).count() / r.repeat;

  t = Clock::now();
  const LaunchProfile p = hooks.run_sync();
  r.sync_latency_us = std::chrono::duration<double, std::micro>(Clock::now() - t).count();
  r.device_us = p.device_us;

  for (const auto& info : ck->ir.instrs) {
    if (info.op == "printf" || info.op == "dump_data" || info.op == "pto_assert" || info.op == "trap") {
      r.warnings.push_back(fmt::format("the kernel contains {} (at {}): remove debug ops before measuring", info.op, info.loc.str()));
      break;
    }
  }
  if (options.warmup < 1) {
    r.warnings.push_back("no warm-up before timing: the first timed calls may include JIT compilation and cold caches");
  }
  if (options.print) std::fputs(r.str().c_str(), stdout);
  return r;
}

}  // namespace detail

std::string BenchResult::str() const {
  std::string out = fmt::format("bench {} ({})\n", kernel, specialization);
  out += fmt::format("  cold        {:.2f} ms{}: trace {:.2f}, lower {:.2f}, cache load {:.2f}, emit {:.2f}, optimise {:.2f}, codegen {:.2f}, "
                     "load {:.2f}{}\n",
                     cold.total_ms(), compiled_here ? "" : " (compiled before this bench)", cold.trace_ms, cold.lower_ms, cold.cache_load_ms,
                     cold.emit_ms, cold.optimise_ms, cold.codegen_ms, cold.link_ms,
                     cold.engine_init_ms > 0 ? fmt::format("; and {:.2f} loading the compiler (LLVM)", cold.engine_init_ms) : "");
  if (tier_up_ms > 0) out += fmt::format("  tier-up     {:.2f} ms optimising compile in the background (tiered)\n", tier_up_ms);
  out += fmt::format("  warm-up     {} calls\n", warmup);
  out += fmt::format("  steady      median {:.1f} us (min {:.1f}, p10 {:.1f}, p90 {:.1f}, max {:.1f}) over {} launch + synchronize\n",
                     median_us, min_us, p10_us, p90_us, max_us, repeat);
  out += fmt::format("  async       {:.1f} us per launch, {} queued back to back\n", async_per_launch_us, repeat);
  out += fmt::format("  latency     {:.1f} us for one synchronous call\n", sync_latency_us);
  out += fmt::format("  device      {:.2f} us simulated\n", device_us);
  for (const auto& w : warnings) out += "  warning     " + w + "\n";
  return out;
}

}  // namespace pto
