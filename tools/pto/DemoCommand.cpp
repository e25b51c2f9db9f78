#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "Commands.hpp"
#include "Report.hpp"
#include "pto/runtime/Advisor.hpp"
#include "pto/runtime/Profiler.hpp"
#include "Samples.hpp"
#include "SearchAndSweep.hpp"
#include "SyncCampaign.hpp"
#include "pto/runtime/Timing.hpp"

namespace pto::cli {

namespace {

struct Variant {
  const char* label;
  int block_dim;
  int buffers;
};

struct VariantResult {
  double device_us = 0, host_us = 0;
  Advice advice;
  bool ok = false;
};

// The seed's workflow on one variant: warm up, steady-state baseline, profile, advice, verify.
VariantResult measure(const Variant& v, const std::string& dir) {
  RunOptions o{.sample = "softmax", .shape = "4096x1024", .dtype = "f32", .block_dim = v.block_dim,
               .params = {fmt::format("buffers={}", v.buffers)}};
  auto run = prepare_run(find_sample("softmax"), sample_args(o));
  const auto launch = launch_and_sync(run);
  VariantResult r;
  launch();
  settle_tier_up(run);
  r.host_us = time_calls(launch, 2, 10).median_us;  // warm-up excludes the JIT from the baseline
  Profiler prof({.schedule = schedule(0, 1, 3), .output_dir = dir});
  prof.start();
  for (int i = 0; i < 4; ++i) {
    launch();
    prof.step();
  }
  prof.stop();
  r.advice = advise_directory(dir).at(0);
  r.device_us = r.advice.device_us;
  r.ok = run.verify().ok;
  return r;
}

/// Returns the tuned variant's simulated device time.
double tuning_walkthrough(bool& all_ok) {
  fmt::print("\nTuning softmax 4096x1024 f32 the way the tuning guide does it\n");
  const Variant before{"baseline", 4, 1};
  const Variant after{"tuned", 24, 2};
  const auto b = measure(before, "pto_demo_profile/baseline");
  fmt::print("  1. baseline (block_dim {}, {} buffer): steady state {:.0f} us host, {:.1f} us simulated device\n", before.block_dim,
             before.buffers, b.host_us, b.device_us);
  fmt::print("  2. profile written to pto_demo_profile/baseline (kernel_details.csv, trace_view.json)\n");
  fmt::print("  3. advice: {} -- {}\n", b.advice.bottleneck, b.advice.suggestion);
  for (const auto& e : b.advice.evidence) fmt::print("       {}\n", e);
  fmt::print("  4. variant for a {} kernel on {} cores: spread the rows over {} cores, and double-buffer (buffers=2) so loads "
             "overlap compute\n",
             b.advice.bottleneck, before.block_dim, after.block_dim);
  const auto a = measure(after, "pto_demo_profile/tuned");
  fmt::print("  5. re-verified against plain C++: {}\n", a.ok ? "ok" : "FAILED");
  fmt::print("  6. advice now: {}\n\n", a.advice.bottleneck);
  fmt::print("  {:<9} {:>9} {:>7} {:>17} {:>12} {:>10}  {}\n", "variant", "block_dim", "buffers", "device_us (sim)", "host_us", "vs bound",
             "bottleneck");
  for (const auto& [v, r] : {std::pair{before, b}, std::pair{after, a}}) {
    fmt::print("  {:<9} {:>9} {:>7} {:>17.1f} {:>12.0f} {:>9.2f}x  {}\n", v.label, v.block_dim, v.buffers, r.device_us, r.host_us,
               r.advice.achieved_over_bound, r.advice.bottleneck);
  }
  fmt::print("  simulated speed-up {:.1f}x; report: {}\n", b.device_us / a.device_us, write_report("pto_demo_profile/tuned"));
  all_ok &= a.ok && b.ok;
  return a.device_us;
}

// Tuning at scale: the same kernel searched by simulated time, then a small regression sweep
// saved as a baseline and checked against it.
void tune_and_sweep(bool& all_ok, double hand_tuned_us) {
  fmt::print("\nTuning at scale (pto tune, pto sweep)\n");
  TuneOptionsCli t;
  t.sample = "softmax";
  t.shape = "4096x1024";
  t.budget = 32;
  const auto start = std::chrono::steady_clock::now();
  const SampleTune st = tune_sample(t);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const TuneResult& r = st.result;
  const auto verified = std::count_if(r.trials.begin(), r.trials.end(), [](const TuneTrial& t) { return t.outcome.status == TuneStatus::ok; });
  fmt::print("  pto tune softmax --shape 4096x1024 --budget 32: {} configurations of {} in {:.1f} s ({} verified, {} could not run)\n",
             r.trials.size(), r.space_size, seconds, verified, static_cast<int>(r.trials.size() - static_cast<size_t>(verified)) - r.wrong);
  if (r.found) {
    fmt::print("  best {}: {:.1f} us simulated, against {:.1f} us for the hand-tuned variant ({:.2f}x)\n", TuneSpace::str(r.best.config),
               r.best.outcome.device_us, hand_tuned_us, hand_tuned_us / r.best.outcome.device_us);
  }
  all_ok &= r.found && r.best.outcome.device_us <= hand_tuned_us;

  SweepOptions s{.samples = {"vector_add", "tiling_key"}, .shapes = {"4096", "100003"}, .shapes_given = true, .dtypes = {"f32", "f16"},
                 .block_dims = {8, 48}, .keys = {"buffers=1", "buffers=2"}, .save = "pto_demo_profile/sweep_baseline.json"};
  const SweepRun first = run_sweep(s);
  s.baseline = s.save;
  s.save.clear();
  const SweepRun again = run_sweep(s);
  fmt::print("  pto sweep vector_add tiling_key (2 shapes x 2 dtypes x 2 block_dims x 2 keys): {} cases, {} ok, {} failed; saved to {}\n",
             first.cases.size(), first.ok, first.failed, "pto_demo_profile/sweep_baseline.json");
  fmt::print("  the same sweep against that baseline (--threshold 0): {} regressions, {} of {} cases matched (simulated time is "
             "deterministic)\n",
             again.regressions.size(), again.baseline_matched, again.cases.size());
  fmt::print("  at scale: mpirun -n N pto sweep ... deals the cases over ranks (docs/tuning-at-scale.md)\n");
  all_ok &= first.failed == 0 && again.failed == 0 && again.regressions.empty();
}

// Can a missing sync go unnoticed? Each sync of every sample removed in turn, the race checker
// held against the exhaustive audit (pto campaign).
void sync_campaign(bool& all_ok) {
  fmt::print("\nIs every missing sync caught? (pto campaign)\n");
  const campaign::Summary s = campaign::run(campaign::sample_subjects());
  fmt::print("  every sync of the {} sample cases removed in turn: {} mutants, {} races caught, {} missed, {} false alarms, "
             "{} syncs that were not needed, in {:.1f} s\n",
             s.subjects, s.mutants, s.caught, s.missed, s.false_alarms, s.redundant, s.seconds);
  all_ok &= s.baseline_failures == 0 && s.missed == 0 && s.false_alarms == 0 && s.errors == 0;
}

}  // namespace

// The main job of `make demo`: the vector, cube and mix samples on a few shapes, first call (trace + JIT compile)
// versus steady state (cache hit), every result verified against plain C++; then the tuning
// workflow on softmax: baseline, profile, advice, a better variant, re-verification; tuning at
// scale; and the sync-removal campaign.
int demo_command() {
  struct Case {
    const char* sample;
    const char* shape;
    const char* dtype;
    int block_dim;
    const char* chip = "a2";
  };
  const Case cases[] = {
      {"vector_add", "1048576", "f32", 8},  {"vector_add", "100003", "f32", 48}, {"vector_add", "65536", "f16", 4},
      {"softmax", "1024x1024", "f32", 8},   {"softmax", "333x1000", "f16", 16},  {"softmax", "256x4096", "bf16", 24},
      {"matmul", "1024x1024x1024", "f32", 24},        {"matmul", "300x200x100", "f16", 6},
      {"matmul_bias_relu", "512x512x256", "f16", 8},  {"matmul_softmax", "1024x256x256", "f32", 8},
      {"flash_attention", "1024x128", "f16", 8},       {"layernorm", "1024x1000", "bf16", 24},
      // rows wider than the UB: walked in column chunks (a hidden size, a vocabulary's logits)
      {"layernorm", "64x8192", "f16", 8},              {"softmax", "32x32000", "f32", 8},
      // a5: the same mix samples through the cross-core moves (Acc -> Vec, Vec -> Mat), no GM workspace
      {"matmul_bias_relu", "512x512x256", "f16", 8, "a5"}, {"flash_attention", "1024x128", "f16", 8, "a5"},
  };
  fmt::print("PTO-JIT demo: kernels traced from C++ lambdas, JIT-compiled with LLVM ORC, run on emulated AI Cores "
             "(vector, cube and mix kernels)\n\n");
  fmt::print("{:<16} {:<14} {:<5} {:<4} {:>9} {:>6} {:>14} {:>15} {:>9} {:>12} {:>8} {:>7}\n", "sample", "shape", "dtype", "chip",
             "block_dim", "mode", "first call ms", "steady state us", "speed-up", "simulated us", "mac_util", "check");
  bool all_ok = true;
  for (const auto& c : cases) {
    RunOptions o{.sample = c.sample, .shape = c.shape, .dtype = c.dtype, .block_dim = c.block_dim, .chip = c.chip};
    auto run = prepare_run(find_sample(c.sample), sample_args(o));
    const double cold_ms = timed_call_ms(run);
    settle_tier_up(run);
    const TimeStats warm = time_calls_for(launch_and_sync(run), 2, 10, 0.1);
    const auto v = run.verify();
    all_ok &= v.ok;
    const auto profile = pto::last_launch();
    fmt::print("{:<16} {:<14} {:<5} {:<4} {:>9} {:>6} {:>14.2f} {:>15.1f} {:>8.0f}x {:>12.1f} {:>7.1f}% {:>7}\n", c.sample, c.shape,
               c.dtype, c.chip, c.block_dim, profile->mode, cold_ms, warm.median_us, cold_ms * 1000.0 / warm.median_us,
               profile->device_us, 100 * profile->mac_util, v.ok ? "ok" : "FAILED");
  }
  const double hand_tuned_us = tuning_walkthrough(all_ok);
  fmt::print("\nHow far to trust the simulated numbers: ");
  calibrate_command("a2", false);  // its verdict is the model's, not the demo's: the demo's exit code is the results'
  tune_and_sweep(all_ok, hand_tuned_us);
  const auto stats = CompileCache::global().stats();  // before the campaign, whose mutants are specialisations too
  const RuntimeStats rs = runtime_stats();
  fmt::print("\ncompile cache: {} specialisations, {} hits, {:.1f} ms compiling in total (first calls), and {} optimising compiles "
             "in the background (tiered) in {:.1f} ms\n",
             stats.entries, stats.hits, stats.compile_ms, rs.tier_ups, rs.tier_up_ms);
  sync_campaign(all_ok);
  fmt::print("{}\n", all_ok ? "all results match the plain C++ references" : "SOME RESULTS DID NOT MATCH");
  return all_ok ? 0 : 1;
}

}  // namespace pto::cli
