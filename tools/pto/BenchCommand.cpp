#include <chrono>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "Samples.hpp"
#include "pto/backend/Compiler.hpp"
#include "pto/runtime/Timing.hpp"

namespace pto::cli {

int bench_command(const BenchOptions& o) {
  const auto& info = find_sample(o.sample);
  const auto args = sample_args(o);
  auto run = prepare_run(info, args);
  const auto launch = launch_and_sync(run);
  const double cold_ms = timed_call_ms(run);  // the first call of this specialisation, JIT compile included
  const double first_run_ms = pto::last_launch()->host_us / 1e3;  // of which the kernel's own first run
  const ColdTimings cold = run.compile()->cold;  // a cache hit now: the first call's breakdown
  const double tier_up_ms = settle_tier_up(run);  // the steady state is timed on the optimised code

  TimeStats warm, native;
  const bool has_native = static_cast<bool>(run.native);
  if (o.vs_native && has_native) {
    std::tie(warm, native) = time_pair(launch, run.native, o.warmup, o.repeat, o.min_seconds);
  } else {
    warm = time_calls_for(launch, o.warmup, o.repeat, o.min_seconds);
  }
  const auto verdict = run.verify();
  const auto profile = pto::last_launch();
  const double gbps = static_cast<double>(run.gm_bytes) / (warm.median_us * 1e-6) / 1e9;

  nlohmann::json j = sample_json(info, args, verdict);
  j.update(nlohmann::json{{"cold_ms", cold_ms},
                   {"cold_breakdown_ms",
                    {{"engine_init", cold.engine_init_ms}, {"trace", cold.trace_ms}, {"lower", cold.lower_ms}, {"cache_load", cold.cache_load_ms},
                     {"emit", cold.emit_ms}, {"optimise", cold.optimise_ms}, {"codegen", cold.codegen_ms}, {"link", cold.link_ms},
                     {"first_run", first_run_ms}}},
                   {"tier_up_ms", tier_up_ms},
                   {"llvm_loaded", pto::backend::llvm_loaded()},
                   {"warm_median_us", warm.median_us},
                   {"warm_p10_us", warm.p10_us},
                   {"warm_p90_us", warm.p90_us},
                   {"warm_runs", warm.samples},
                   {"gm_bytes", run.gm_bytes},
                   {"gbps", gbps},
                   {"device_us", profile->device_us}});
  if (run.flops > 0) {
    j["gflops"] = run.flops / (warm.median_us * 1e3);
    j["mac_util"] = profile->mac_util;
  }
  if (o.op) {
    PTO_USER_CHECK(static_cast<bool>(run.op_launch), ErrorSite{}) << "sample '" << info.name << "' has no operator (--op)";
    auto op_and_sync = [&] {
      run.op_launch();
      pto::synchronize();
    };
    const auto [direct, via_op] = time_pair(launch, op_and_sync, o.warmup, o.repeat, o.min_seconds);
    j["direct_median_us"] = direct.median_us;
    j["op_median_us"] = via_op.median_us;
    j["op_overhead_us"] = via_op.median_us - direct.median_us;
  }
  if (o.vs_native) j["native_baseline"] = has_native ? nlohmann::json(run.native_about) : nlohmann::json(nullptr);
  if (o.vs_native && has_native) {
    j["native_median_us"] = native.median_us;
    j["ratio_vs_native"] = native.median_us / warm.median_us;
    if (run.flops > 0) j["native_gflops"] = run.flops / (native.median_us * 1e3);
  }
  if (o.json) {
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("sample           {} {} {} block_dim={}\n", info.name, shape_string(args.shape), dtype_name(args.dtype), args.block_dim);
    fmt::print("ok               {}\n", verdict.ok);
    fmt::print("cold_ms          {:.2f}  (engine init {:.2f}, trace {:.2f}, lower {:.2f}, cache load {:.2f}, emit {:.2f}, optimise {:.2f}, "
               "codegen {:.2f}, link {:.2f}, first run {:.2f})\n",
               cold_ms, cold.engine_init_ms, cold.trace_ms, cold.lower_ms, cold.cache_load_ms, cold.emit_ms, cold.optimise_ms, cold.codegen_ms,
               cold.link_ms, first_run_ms);
    if (tier_up_ms > 0) fmt::print("tier_up_ms       {:.2f}  (the optimising compile, in the background after the quick tier's first call)\n", tier_up_ms);
    fmt::print("warm_median_us   {:.1f}  (p10 {:.1f}, p90 {:.1f}, {} runs of launch + synchronize)\n", warm.median_us, warm.p10_us,
               warm.p90_us, warm.samples);
    fmt::print("gm_bytes         {}\ngbps             {:.2f}  (host)\n", run.gm_bytes, gbps);
    fmt::print("device_us        {:.2f}  (simulated on chip {})\n", profile->device_us, profile->chip);
    if (run.flops > 0) fmt::print("gflops           {:.1f}  (host)\n", j["gflops"].get<double>());
    if (o.op) {
      fmt::print("op_median_us     {:.1f}  (direct {:.1f}; the op picks its own block_dim and key; difference {:.2f} us)\n",
                 j["op_median_us"].get<double>(), j["direct_median_us"].get<double>(), j["op_overhead_us"].get<double>());
    }
    if (o.vs_native && !has_native) {
      fmt::print("native           none: sample '{}' has no native baseline yet; only the emulated launch was timed\n", info.name);
    }
    if (o.vs_native && has_native) {
      fmt::print("native           {}\n", run.native_about);
      fmt::print("native_median_us {:.1f}\nratio_vs_native  {:.3f}  (native time / emulated time)\n",
                 j["native_median_us"].get<double>(), j["ratio_vs_native"].get<double>());
      if (run.flops > 0) fmt::print("native_gflops    {:.1f}\n", j["native_gflops"].get<double>());
    }
  }
  return verdict.ok ? 0 : 1;
}

}  // namespace pto::cli
