// Pipeline-model benchmarks (label perf):
//   * the cost of the timing model + race checker: vector_add at 16M floats with both on versus
//     both off (ratio printed, target <= 1.2, issue #12), from separate runs and from paired
//     launches (the one to trust on a shared machine), with the replay cache on (launches
//     repeated, as in a tuning loop) and off (every launch replayed); the same paired for flash
//     attention (a mix kernel) and matmul (a cube kernel)
//   * the model's cost per instruction where it shows (small tiles, data in the host's caches,
//     every launch replayed): the timed launch's extra nanoseconds per instruction
//   * the replay alone: ops replayed per second on hand-built vector-add traces of 8 and 48 cores
//   * the host's order of work and code paths, each off and on in paired launches: replay ahead,
//     replay and play folding, the hook log, core interleaving (vector, softmax, matmul), copy
//     elision, row fusion; and the matmul sample in float against half, bfloat16 and int8
//   * profiling 5 launches (files written) versus the same launches alone (ratio printed, target <= 2)
//   * the simulated roofline: vector_add's simulated GM throughput as block_dim grows from 1 to
//     48, against the profile's HBM bandwidth (deterministic numbers, printed as a table)
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "01_vector_add/vector_add.hpp"
#include "02_softmax/softmax.hpp"
#include "03_matmul/matmul.hpp"
#include "06_flash_attention/flash_attention.hpp"
#include "08_layernorm/layernorm.hpp"
#include "RatioReporter.hpp"
#include "common/TensorHelpers.hpp"
#include "pto/runtime/timing/Replay.hpp"

namespace va = pto::samples::vector_add;
namespace sm = pto::samples::softmax;
namespace pl = pto::lang;

namespace {

constexpr int64_t kLarge = pto::test::LargeVectorInputs::kLength;
pto::test::LargeVectorInputs& inputs() { return pto::test::LargeVectorInputs::get(); }

void run_vector_add(benchmark::State& state, bool timing) {
  const auto kernel = va::make_kernel<float>({.timing = timing});
  auto& in = inputs();
  kernel[{.block_dim = 8}](in.x, in.y, in.z);
  pto::synchronize();
  for (auto _ : state) {
    kernel[{.block_dim = 8}](in.x, in.y, in.z);
    pto::synchronize();
  }
}
void BM_VectorAddTimingOn(benchmark::State& state) { run_vector_add(state, true); }
void BM_VectorAddTimingOff(benchmark::State& state) { run_vector_add(state, false); }
// Timed and race-checked, every launch replayed (the replay cache off): the case to profile for
// the cost of a launch seen for the first time.
void BM_VectorAddEveryLaunchReplayed(benchmark::State& state) {
  pto::set_replay_cache(false);
  run_vector_add(state, true);
  pto::set_replay_cache(true);
}
BENCHMARK(BM_VectorAddTimingOff)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_VectorAddTimingOn)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_VectorAddEveryLaunchReplayed)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// The same cost measured in pairs: every iteration launches the untimed, the timed-only and the
// timed + race-checked kernel back to back (the order rotating), and the ratio is the median over
// iterations of timed / untimed. A shared machine's load drifts over seconds; within a pair it
// hits both sides alike, so this ratio holds still where the one of separate runs does not.
// Argument 1: the replay cache on (a repeated launch reuses its replay, as in a tuning loop);
// 0: off (every launch replayed: the cost of a launch seen for the first time).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
/// The value 9 in 10 of `v` do not exceed.
double p90(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() * 9 / 10];
}
/// The untimed, timed-only and timed + race-checked launches of one iteration, back to back, the
/// order rotating between iterations: per iteration, the milliseconds of each (in that order).
template <class Launch>
std::vector<std::array<double, 3>> rotating_triples(benchmark::State& state, const Launch& launch) {
  auto time_launch = [&](int which) {
    const auto t0 = std::chrono::steady_clock::now();
    launch(which);
    pto::synchronize();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int which = 0; which < 3; ++which) time_launch(which);
  std::vector<std::array<double, 3>> times;
  int turn = 0;
  for (auto _ : state) {
    std::array<double, 3> t{};
    for (int i = 0; i < 3; ++i) {
      const int which = (turn + i) % 3;
      t[static_cast<size_t>(which)] = time_launch(which);
    }
    turn += 1;
    times.push_back(t);
  }
  return times;
}
void BM_TimingCostPaired(benchmark::State& state) {
  pto::set_replay_cache(state.range(0) != 0);
  const auto off = va::make_kernel<float>({.timing = false});
  const auto timed = va::make_kernel<float>({.timing = true, .race_check = false});
  const auto checked = va::make_kernel<float>({.timing = true});
  auto& in = inputs();
  const auto times = rotating_triples(state, [&](int which) {
    (which == 0 ? off : which == 1 ? timed : checked)[{.block_dim = 8}](in.x, in.y, in.z);
  });
  std::vector<double> timed_ratio, checked_ratio, off_ms, checked_ms;
  for (const auto& t : times) {
    timed_ratio.push_back(t[1] / t[0]);
    checked_ratio.push_back(t[2] / t[0]);
    off_ms.push_back(t[0]);
    checked_ms.push_back(t[2]);
  }
  state.counters["ratio"] = median(checked_ratio);
  state.counters["timing_only"] = median(timed_ratio);
  state.counters["off_ms"] = median(off_ms);
  state.counters["on_ms"] = median(checked_ms);
  pto::set_replay_cache(true);
}
/// `launch(false)` and `launch(true)` timed in pairs (after one untimed warm-up each), the order
/// alternating between iterations: per iteration, the milliseconds of each.
std::vector<std::array<double, 2>> alternating_pairs(benchmark::State& state, const std::function<void(bool)>& launch) {
  auto time_launch = [&](bool on) {
    const auto t0 = std::chrono::steady_clock::now();
    launch(on);
    pto::synchronize();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  time_launch(true);
  time_launch(false);
  std::vector<std::array<double, 2>> times;
  bool first_on = true;
  for (auto _ : state) {
    std::array<double, 2> t{};  // off, on
    if (first_on) {
      t[1] = time_launch(true), t[0] = time_launch(false);
    } else {
      t[0] = time_launch(false), t[1] = time_launch(true);
    }
    first_on = !first_on;
    times.push_back(t);
  }
  return times;
}
/// The counters of alternating pairs: the median ratio (on / off; off / on for a `speedup`) and
/// each side's median milliseconds.
void report_pairs(benchmark::State& state, const std::vector<std::array<double, 2>>& times, bool speedup) {
  std::vector<double> ratio, off_ms, on_ms;
  for (const auto& t : times) {
    ratio.push_back(speedup ? t[0] / t[1] : t[1] / t[0]);
    off_ms.push_back(t[0]);
    on_ms.push_back(t[1]);
  }
  state.counters["ratio"] = median(ratio);
  state.counters["off_ms"] = median(off_ms);
  state.counters["on_ms"] = median(on_ms);
}
// Core interleaving on and off, in pairs as above (the order alternating), timing on or off, so
// the ratio is the host's order of work alone: a memory-bound kernel (vector_add 16M) and a
// compute-bound one (softmax 4096x1024 f32), both on 8 blocks.
/// `launch` with a runtime switch (`set`, on by default) off and on in pairs; > 1: faster on.
void switch_paired(benchmark::State& state, void (*set)(bool), const std::function<void()>& launch) {
  const auto times = alternating_pairs(state, [&](bool on) {
    set(on);
    launch();
  });
  set(true);
  report_pairs(state, times, /*speedup=*/true);
}
void interleave_paired(benchmark::State& state, const std::function<void()>& launch) {
  switch_paired(state, &pto::set_core_interleaving, launch);
}
void BM_InterleavePaired(benchmark::State& state) {
  const auto kernel = va::make_kernel<float>({.timing = state.range(0) != 0});
  auto& in = inputs();
  interleave_paired(state, [&] { kernel[{.block_dim = 8}](in.x, in.y, in.z); });
}
template <class T>
struct Matmul2048 {  // the sample's kernel and random operands; () launches it on 24 blocks
  static constexpr int64_t n = 2048;
  decltype(pto::samples::matmul::make_kernel<T>({})) kernel = pto::samples::matmul::make_kernel<T>({});
  pto::Tensor<T> a = pto::Tensor<T>::random({n, n}, 1), b = pto::Tensor<T>::random({n, n}, 2), c = pto::Tensor<T>::zeros({n, n});
  void operator()() { kernel[{.block_dim = 24}](a, b, c); }
};
// A cube kernel: matmul 2048^3 (f32, f16) on 24 blocks (the sample's tiles), timing on. Interleaved,
// the 4 neighbouring cores of a host thread walk neighbouring C tiles, which read the same A rows.
template <class T>
void matmul_2048_paired(benchmark::State& state, void (*set)(bool)) {
  Matmul2048<T> launch;
  switch_paired(state, set, [&] { launch(); });
}
template <class T>
void BM_InterleavePairedMatmul(benchmark::State& state) {
  matmul_2048_paired<T>(state, &pto::set_core_interleaving);
}
// A host thread out of blocks taking over half of another's interleaved run off and on
// (set_interleave_help), in pairs as above, timing on (> 1: faster with help): matmul 2048^3 f32
// on 24 blocks, six runs of four cores for two host threads. (Help is for cube kernels only:
// Interleave::worth_helping has the figures of vector_add, measured with it allowed.)
void BM_InterleaveHelpPairedMatmul(benchmark::State& state) { matmul_2048_paired<float>(state, &pto::set_interleave_help); }
/// Other work on one host CPU while it lives: a child process pinned to the first CPU this process
/// may use, at nice 10, spinning (what `nice -n 10 taskset -c 0 sh -c 'while :; do :; done'`
/// does; a thread of this process spinning so did not make the scheduler place a woken TBB
/// worker on its waker's CPU).
class BusyCpu {
 public:
  BusyCpu() {
    cpu_set_t allowed, one;
    CPU_ZERO(&one);
    int first = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
      while (first < CPU_SETSIZE - 1 && !CPU_ISSET(first, &allowed)) ++first;
    }
    CPU_SET(first, &one);
    const pid_t parent = getpid();
    child_ = fork();
    if (child_ == 0) {  // only async-signal-safe calls from here on: the parent has threads
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never left spinning by a parent that died
      if (getppid() != parent) _exit(0);
      sched_setaffinity(0, sizeof one, &one);
      setpriority(PRIO_PROCESS, 0, 10);
      volatile uint64_t spins = 0;  // a side effect: a loop without one may be assumed to end
      for (;;) spins = spins + 1;
    }
  }
  ~BusyCpu() {
    if (child_ <= 0) return;
    kill(child_, SIGKILL);
    waitpid(child_, nullptr, 0);
  }
  BusyCpu(const BusyCpu&) = delete;
  BusyCpu& operator=(const BusyCpu&) = delete;

 private:
  pid_t child_ = -1;
};
// The host threads of helped runs holding a CPU each off and on (set_host_pinning), in runs of
// six launches a side, the order alternating, timing on (ratio: median off / median on, > 1:
// faster held; p90_ratio the same of the 90th percentiles, where launches whose two threads
// shared one CPU show): matmul 2048^3 f32 on 24 blocks, on an idle host (load:0)
// and with a busy loop at nice 10 on one CPU (load:1), where a TBB worker woken onto its waker's
// CPU shares it with that thread for the whole launch unless it holds a CPU of its own.
void BM_HostPinningPairedMatmul(benchmark::State& state) {
  constexpr int kRun = 6;  // launches a side an iteration: a launch with pinning leaves its threads
                           // on their CPUs for the next, so single launches in turn hide the gain
  Matmul2048<float> launch;
  std::optional<BusyCpu> busy;
  if (state.range(0) != 0) busy.emplace();
  std::array<std::vector<double>, 2> ms;  // off, on
  bool on_first = false;
  for (auto _ : state) {
    for (const bool on : {on_first, !on_first}) {
      pto::set_host_pinning(on);
      for (int i = 0; i < kRun; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        launch();
        pto::synchronize();
        ms[on ? 1 : 0].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
    }
    on_first = !on_first;
  }
  pto::set_host_pinning(true);
  state.counters["off_ms"] = median(ms[0]);
  state.counters["on_ms"] = median(ms[1]);
  state.counters["ratio"] = median(ms[0]) / median(ms[1]);
  state.counters["p90_ratio"] = p90(ms[0]) / p90(ms[1]);  // the launches whose two threads shared a CPU
}
// The matmul sample in float and in T (half, bfloat16, int8), n^3 on 24 blocks, timing on,
// launched in alternating pairs: the ratio is float's time over T's (>= 1: T not slower), held
// still by the pairing where perf_cube's separate runs of each dtype drift apart.
template <class T>
void BM_DtypePairedMatmul(benchmark::State& state) {
  namespace mm = pto::samples::matmul;
  const int64_t n = state.range(0);
  const auto in_float = mm::make_kernel<float>(mm::Params{});
  const auto in_t = mm::make_kernel<T>(mm::Params{});
  auto af = pto::Tensor<float>::random({n, n}, 1), bf = pto::Tensor<float>::random({n, n}, 2);
  auto cf = pto::Tensor<float>::zeros({n, n});
  auto at = pto::Tensor<T>::random({n, n}, 1), bt = pto::Tensor<T>::random({n, n}, 2);
  auto ct = pto::Tensor<mm::out_t<T>>::zeros({n, n});
  const auto times = alternating_pairs(state, [&](bool t) {
    if (t) {
      in_t[{.block_dim = 24}](at, bt, ct);
    } else {
      in_float[{.block_dim = 24}](af, bf, cf);
    }
  });
  report_pairs(state, times, /*speedup=*/true);
}
BENCHMARK(BM_DtypePairedMatmul<pto::half>)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_DtypePairedMatmul<pto::bfloat16>)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_DtypePairedMatmul<int8_t>)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
void BM_InterleavePairedSoftmax(benchmark::State& state) {
  const auto kernel = pl::jit({.name = "softmax_interleave", .timing = state.range(0) != 0, .race_check = state.range(0) != 0},
                              [](pl::Tensor<float> x, pl::Tensor<float> y) {
                                const int64_t rows = x.dim(0), cols = x.dim(1);
                                const int64_t r_tile = sm::fitting_rows<float>(rows, cols, 2, pto::ChipProfile::get("a2").limits(pl::Vec).bytes);
                                sm::softmax_rows<float>(x, y, pl::ceil_div(rows, r_tile), r_tile, 2, pto::samples::SyncMode::automatic);
                              });
  auto x = pto::Tensor<float>::random({4096, 1024}, 7, -4.0, 4.0);
  auto y = pto::Tensor<float>::zeros({4096, 1024});
  interleave_paired(state, [&] { kernel[{.block_dim = 8}](x, y); });
}
// Copy elision (JitOptions::elide_copies: load elision and store forwarding) and row fusion
// (JitOptions::fuse_rows) each off and on, in pairs as above, timing off so the ratio is the
// generated code's alone (> 1: faster on). Softmax 4096x1024 f32 (its last expression computed by
// its store; row max, exp and row sum fused) and layernorm 4096x1024 f32 (the same, x read in
// place; row sums, centring and rstd fused), both on 8 blocks: two kernels that differ only in
// that option.
template <class K>
std::array<K, 2> without_and_with(const K& kernel, bool pto::JitOptions::*option) {
  pto::JitOptions o = kernel.options();
  o.timing = o.race_check = false;
  o.*option = false;
  auto without = kernel.with_options(o);
  o.*option = true;
  return {without, kernel.with_options(o)};
}
void option_paired_softmax(benchmark::State& state, bool pto::JitOptions::*option) {
  const auto k = without_and_with(sm::make_kernel<float>({}), option);
  auto x = pto::Tensor<float>::random({4096, 1024}, 7, -4.0, 4.0);
  auto y = pto::Tensor<float>::zeros({4096, 1024});
  report_pairs(state, alternating_pairs(state, [&](bool on) { k[on ? 1 : 0][{.block_dim = 8}](x, y); }), /*speedup=*/true);
}
void option_paired_layernorm(benchmark::State& state, bool pto::JitOptions::*option) {
  namespace ln = pto::samples::layernorm;
  const auto k = without_and_with(ln::make_kernel<float>({}), option);
  auto x = pto::Tensor<float>::random({4096, 1024}, 8, -4.0, 4.0);
  auto gamma = pto::Tensor<float>::random({1, 1024}, 9), beta = pto::Tensor<float>::random({1, 1024}, 10);
  auto y = pto::Tensor<float>::zeros({4096, 1024});
  report_pairs(state, alternating_pairs(state, [&](bool on) { k[on ? 1 : 0][{.block_dim = 8}](x, gamma, beta, y, 1e-5f); }),
               /*speedup=*/true);
}
void BM_ElisionPairedSoftmax(benchmark::State& state) { option_paired_softmax(state, &pto::JitOptions::elide_copies); }
void BM_ElisionPairedLayernorm(benchmark::State& state) { option_paired_layernorm(state, &pto::JitOptions::elide_copies); }
// vector_add 16M: off, x and y copied into the UB, the sum written there and streamed out of it;
// on, the add reads GM and stores z's whole lines non-temporal from the registers.
void BM_ElisionPairedVectorAdd(benchmark::State& state) {
  const auto k = without_and_with(va::make_kernel<float>({}), &pto::JitOptions::elide_copies);
  auto& in = inputs();
  report_pairs(state, alternating_pairs(state, [&](bool on) { k[on ? 1 : 0][{.block_dim = 8}](in.x, in.y, in.z); }), /*speedup=*/true);
}
void BM_FusionPairedSoftmax(benchmark::State& state) { option_paired_softmax(state, &pto::JitOptions::fuse_rows); }
void BM_FusionPairedLayernorm(benchmark::State& state) { option_paired_layernorm(state, &pto::JitOptions::fuse_rows); }
// Replay folding on and off (pto::set_replay_folding), in pairs as above: vector_add 16M on 8
// blocks, timed and race-checked, every launch replayed (the replay cache off). Its 8 blocks
// have the same trace, so folded the replay runs one core's 1024 ops instead of 8192.
// With the argument 1, play folding instead (pto::set_play_folding): a thread's interleaved
// cores after its first record copies of the first's model instead of playing their hooks.
/// `launch()` with the option `set` off, then on, in alternating pairs, every launch replayed.
void option_paired(benchmark::State& state, void (*set)(bool), const std::function<void()>& launch) {
  pto::set_replay_cache(false);
  const auto times = alternating_pairs(state, [&](bool on) {
    set(on);
    launch();
  });
  set(true);
  pto::set_replay_cache(true);
  report_pairs(state, times, /*speedup=*/true);
}
void folding_paired(benchmark::State& state, const std::function<void()>& launch) {
  option_paired(state, state.range(0) == 0 ? &pto::set_replay_folding : &pto::set_play_folding, launch);
}
void BM_FoldingPaired(benchmark::State& state) {
  const auto kernel = va::make_kernel<float>({.timing = true});
  auto& in = inputs();
  folding_paired(state, [&] { kernel[{.block_dim = 8}](in.x, in.y, in.z); });
}
// Softmax 4096x1024 f32 on 8 blocks: 456 tiles of 9 rows, 57 a block, the last of one row: the
// block with that tile is a group of its own, the other seven fold into one.
void BM_FoldingPairedSoftmax(benchmark::State& state) {
  const auto kernel = sm::make_kernel<float>({});
  auto x = pto::Tensor<float>::random({4096, 1024}, 7, -4.0, 4.0);
  auto y = pto::Tensor<float>::zeros({4096, 1024});
  folding_paired(state, [&] { kernel[{.block_dim = 8}](x, y); });
}
// Play folding with each tensor's regions moved by their own shift: layernorm 4096x1024 f32
// (x and y a block's rows further on, gamma and beta where they were) and matmul f16 1024^3 on 24
// blocks (B and C a tile to the right, A where it was, or A and C a tile down; the two-tile
// blocks copy a twin of their own): every launch replayed, play folding off / on alternating.
void BM_PlayFoldingPairedLayernorm(benchmark::State& state) {
  namespace ln = pto::samples::layernorm;
  const auto kernel = ln::make_kernel<float>({});
  auto x = pto::Tensor<float>::random({4096, 1024}, 8, -4.0, 4.0);
  auto gamma = pto::Tensor<float>::random({1, 1024}, 9), beta = pto::Tensor<float>::random({1, 1024}, 10);
  auto y = pto::Tensor<float>::zeros({4096, 1024});
  folding_paired(state, [&] { kernel[{.block_dim = 8}](x, gamma, beta, y, 1e-5f); });
}
void BM_PlayFoldingPairedMatmul(benchmark::State& state) {
  namespace mm = pto::samples::matmul;
  const auto kernel = mm::make_kernel<pto::half>({});
  auto a = pto::Tensor<pto::half>::random({1024, 1024}, 11), b = pto::Tensor<pto::half>::random({1024, 1024}, 12);
  auto c = pto::Tensor<pto::half>::zeros({1024, 1024});
  folding_paired(state, [&] { kernel[{.block_dim = 24}](a, b, c); });
}
// Flash attention 2048x128 f16 on 8 blocks (mix: each block's AIC and two AIVs write one log).
// Play folding off / on: blocks 1-7 read the same K and V, their Q, O and workspace rows a block
// further on, so all but each host thread's first copy a twin block's three models. Hook log
// off / on (the models called live as the fibers run, against written down and played after
// each block, play folding on): both every launch replayed, > 1 faster on.
/// Flash attention 2048x128 f16 on 8 blocks, a2's parameters: its inputs, and a launch of `kernel` on them.
struct FlashAttentionLaunch {
  using T = pto::half;
  static constexpr int64_t S = 2048, D = 128;
  static constexpr int kBlocks = 8;
  pto::samples::flash_attention::Params params = pto::samples::flash_attention::default_params<T>("a2");
  pto::Tensor<T> q = pto::Tensor<T>::random({S, D}, 1), k = pto::Tensor<T>::random({S, D}, 2), v = pto::Tensor<T>::random({S, D}, 3);
  pto::Tensor<T> o = pto::Tensor<T>::zeros({S, D});
  pto::samples::flash_attention::Workspace<T> ws{kBlocks, params, D};
  template <class Kernel>
  void operator()(const Kernel& kernel) {
    kernel[{.block_dim = kBlocks}](q, k, v, o, ws.scores, ws.probs, ws.values);
  }
};
void flash_attention_launches(benchmark::State& state, void (*set)(bool)) {
  FlashAttentionLaunch fa;
  const auto kernel = pto::samples::flash_attention::make_kernel<FlashAttentionLaunch::T>(fa.params);
  option_paired(state, set, [&] { fa(kernel); });
}
void BM_PlayFoldingPairedFlashAttention(benchmark::State& state) { flash_attention_launches(state, &pto::set_play_folding); }
void BM_HookLogPairedFlashAttention(benchmark::State& state) { flash_attention_launches(state, &pto::set_hook_log); }
void BM_ReplayAheadPairedFlashAttention(benchmark::State& state) { flash_attention_launches(state, &pto::set_replay_ahead); }
BENCHMARK(BM_FoldingPaired)->ArgName("play")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_FoldingPairedSoftmax)->ArgName("play")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_PlayFoldingPairedLayernorm)->ArgName("play")->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_PlayFoldingPairedMatmul)->ArgName("play")->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_PlayFoldingPairedFlashAttention)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_HookLogPairedFlashAttention)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_ReplayAheadPairedFlashAttention)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_ElisionPairedSoftmax)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_ElisionPairedLayernorm)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_ElisionPairedVectorAdd)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_FusionPairedSoftmax)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_FusionPairedLayernorm)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_InterleavePaired)->ArgName("timing")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_InterleavePairedSoftmax)->ArgName("timing")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_InterleavePairedMatmul<float>)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(5.0);
BENCHMARK(BM_InterleavePairedMatmul<pto::half>)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(5.0);
BENCHMARK(BM_InterleaveHelpPairedMatmul)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(5.0);
BENCHMARK(BM_HostPinningPairedMatmul)->ArgName("load")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(8);

// The model's cost per instruction, where it shows: vector_add of 256K floats in tiles of 256
// (data in the host's caches, 4096 instructions and 12,288 auto_mutex hooks a launch), every
// launch replayed. Counters: the timed launch's extra microseconds per instruction, over the
// untimed one, timing alone and with the race check; launched in alternating pairs as above.
void BM_ModelCostPerInstruction(benchmark::State& state) {
  pto::set_replay_cache(false);
  va::Params p{.tile = 256};
  p.timing = false;
  const auto off = va::make_kernel<float>(p);
  p.timing = true, p.race_check = false;
  const auto timed = va::make_kernel<float>(p);
  p.race_check = true;
  const auto checked = va::make_kernel<float>(p);
  constexpr int64_t n = 256 * 1024;
  auto x = pto::Tensor<float>::random({n}, 1), y = pto::Tensor<float>::random({n}, 2);
  auto z = pto::Tensor<float>::zeros({n});
  const auto times = rotating_triples(state, [&](int which) { (which == 0 ? off : which == 1 ? timed : checked)[{.block_dim = 8}](x, y, z); });
  std::vector<double> timed_extra, checked_extra;
  for (const auto& t : times) {
    timed_extra.push_back(t[1] - t[0]);
    checked_extra.push_back(t[2] - t[0]);
  }
  constexpr double instructions = 4.0 * n / 256;
  state.counters["timed_ns_per_instr"] = median(timed_extra) * 1e6 / instructions;
  state.counters["checked_ns_per_instr"] = median(checked_extra) * 1e6 / instructions;
  pto::set_replay_cache(true);
}
BENCHMARK(BM_ModelCostPerInstruction)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_TimingCostPaired)->ArgName("replay_cache")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

// Replaying ahead (pto::set_replay_ahead) off versus on, with every launch replayed: vector_add 16M
// timed and race checked (8 blocks), rotated with the untimed launch. ratio: median of off / on
// (> 1: faster on); off_cost and on_cost: the timed launch over the untimed one of its iteration;
// used: the share of launches with it on whose replay ahead was used.
void BM_ReplayAheadPaired(benchmark::State& state) {
  pto::set_replay_cache(false);
  const auto off = va::make_kernel<float>({.timing = false});
  const auto checked = va::make_kernel<float>({.timing = true});
  auto& in = inputs();
  const uint64_t used_before = pto::runtime_stats().replays_ahead;
  const auto times = rotating_triples(state, [&](int which) {
    pto::set_replay_ahead(which == 2);
    (which == 0 ? off : checked)[{.block_dim = 8}](in.x, in.y, in.z);
  });
  pto::set_replay_ahead(true);
  pto::set_replay_cache(true);
  std::vector<double> gain, off_cost, on_cost;
  for (const auto& t : times) {
    gain.push_back(t[1] / t[2]);
    off_cost.push_back(t[1] / t[0]);
    on_cost.push_back(t[2] / t[0]);
  }
  state.counters["ratio"] = median(gain);
  state.counters["off_cost"] = median(off_cost);
  state.counters["on_cost"] = median(on_cost);
  state.counters["used"] = static_cast<double>(pto::runtime_stats().replays_ahead - used_before) / static_cast<double>(times.size() + 1);
}
BENCHMARK(BM_ReplayAheadPaired)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

// The same cost for a mix kernel and a cube kernel, timing + race checking on versus off in
// alternating pairs: flash attention 2048x128 f16 (cube and vector cores through cross-core flags,
// 8 blocks: tens of thousands of ops to replay) and matmul f16 1024^3 (24 blocks). Argument as
// above: 1, the replay cache on (a repeated launch); 0, off (every launch replayed).
void timing_cost_paired(benchmark::State& state, const std::function<void(bool)>& launch) {
  pto::set_replay_cache(state.range(0) != 0);
  const auto times = alternating_pairs(state, launch);
  pto::set_replay_cache(true);
  report_pairs(state, times, /*speedup=*/false);
}
void BM_TimingCostPairedFlashAttention(benchmark::State& state) {
  namespace fa = pto::samples::flash_attention;
  FlashAttentionLaunch launch;
  fa::Params p = launch.params;
  p.timing = false;
  const auto off = fa::make_kernel<FlashAttentionLaunch::T>(p);
  p.timing = true;
  const auto on = fa::make_kernel<FlashAttentionLaunch::T>(p);
  timing_cost_paired(state, [&](bool timed) { timed ? launch(on) : launch(off); });
}
void BM_TimingCostPairedMatmul(benchmark::State& state) {
  namespace mm = pto::samples::matmul;
  using T = pto::half;
  constexpr int64_t n = 1024;
  mm::Params p;
  p.timing = false;
  const auto off = mm::make_kernel<T>(p);
  p.timing = true;
  const auto on = mm::make_kernel<T>(p);
  auto a = pto::Tensor<T>::random({n, n}, 1), b = pto::Tensor<T>::random({n, n}, 2);
  auto c = pto::Tensor<mm::out_t<T>>::zeros({n, n});
  timing_cost_paired(state, [&](bool timed) { (timed ? on : off)[{.block_dim = 24}](a, b, c); });
}
BENCHMARK(BM_TimingCostPairedFlashAttention)->ArgName("replay_cache")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);
BENCHMARK(BM_TimingCostPairedMatmul)->ArgName("replay_cache")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

// The replay alone, on hand-built traces shaped like a double-buffered vector add (two loads, an
// add, a store per tile, slots guarded by flags) on `cores` AIVs with 256 tiles each: ops
// replayed per second. The traces are built once; each iteration replays them.
void BM_ReplayVectorAdd(benchmark::State& state) {
  using pto::ir::Pipe;
  const auto& chip = pto::ChipProfile::get("a2");
  const pto::CostModel cost(chip);
  const int cores = static_cast<int>(state.range(0));
  constexpr int kTiles = 256, kSlots = 2;
  constexpr int64_t kTile = 8192;
  const double bytes = kTile * 4.0;
  std::vector<std::unique_ptr<pto::CoreModel>> models;
  std::vector<const pto::timing::CoreTrace*> traces;
  for (int c = 0; c < cores; ++c) {
    auto& m = *models.emplace_back(std::make_unique<pto::CoreModel>(nullptr, cost, c, false, 0, nullptr, 1, c));
    for (int s = 0; s < kSlots; ++s) m.set_flag(Pipe::V, Pipe::MTE2, s), m.set_flag(Pipe::MTE3, Pipe::V, s);
    for (int t = 0; t < kTiles; ++t) {
      const int s = t % kSlots;
      const int64_t lo = (static_cast<int64_t>(t) * cores + c) * kTile;
      m.wait_flag(Pipe::V, Pipe::MTE2, s);
      m.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, {0, 4, lo, lo + kTile, 0, false});
      m.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, {1, 4, lo, lo + kTile, 0, false});
      m.set_flag(Pipe::MTE2, Pipe::V, s), m.wait_flag(Pipe::MTE2, Pipe::V, s), m.wait_flag(Pipe::MTE3, Pipe::V, s);
      const auto add = cost.vector(pto::ir::VecOpCounts{}, pto::DType::f32, kTile);
      m.run(Pipe::V, add.body, -1, {}, add.head);
      m.set_flag(Pipe::V, Pipe::MTE2, s), m.set_flag(Pipe::V, Pipe::MTE3, s), m.wait_flag(Pipe::V, Pipe::MTE3, s);
      m.transfer(Pipe::MTE3, pto::PathId::VecToGm, bytes, {2, 4, lo, lo + kTile, 0, true});
      m.set_flag(Pipe::MTE3, Pipe::V, s);
    }
    traces.push_back(&m.trace());
  }
  const uint64_t tensor_bytes = static_cast<uint64_t>(kTiles) * cores * kTile * 4;
  const std::vector<uint64_t> base{0, tensor_bytes, 2 * tensor_bytes};
  size_t ops = 0;
  for (const auto* t : traces) ops += t->ops.size();
  for (auto _ : state) {
    auto r = pto::timing::replay({.chip = &chip,
                                  .cores = traces,
                                  .tensor_base = base,
                                  .gm_footprint = 3 * tensor_bytes,
                                  .fold_identical_cores = state.range(1) != 0});
    benchmark::DoNotOptimize(r);
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["ops_per_s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReplayVectorAdd)
    ->ArgNames({"cores", "fold"})
    ->Args({8, 0})
    ->Args({8, 1})
    ->Args({48, 0})
    ->Args({48, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Profiling: 5 launches recorded as 5 active steps with the files written at the end, versus the
// same 5 launches without a profiler.
constexpr int64_t kProfiled = 4 << 20;
constexpr int kProfiledSteps = 5;
void run_profiled(benchmark::State& state, bool profiled) {
  const auto kernel = va::make_kernel<float>({});
  auto x = pto::Tensor<float>::random({kProfiled}, 1), y = pto::Tensor<float>::random({kProfiled}, 2);
  auto z = pto::Tensor<float>::zeros({kProfiled});
  kernel[{.block_dim = 8}](x, y, z);
  pto::synchronize();
  const std::string dir = "/tmp/pto_perf_profile";
  for (auto _ : state) {
    if (profiled) {
      pto::Profiler prof({.schedule = pto::schedule(0, 0, kProfiledSteps), .output_dir = dir});
      prof.start();
      for (int i = 0; i < kProfiledSteps; ++i) {
        kernel[{.block_dim = 8}](x, y, z);
        pto::synchronize();
        prof.step();
      }
      prof.stop();
    } else {
      for (int i = 0; i < kProfiledSteps; ++i) {
        kernel[{.block_dim = 8}](x, y, z);
        pto::synchronize();
      }
    }
  }
}
void BM_LaunchUnprofiled(benchmark::State& state) { run_profiled(state, false); }
void BM_LaunchProfiled(benchmark::State& state) { run_profiled(state, true); }
BENCHMARK(BM_LaunchUnprofiled)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_LaunchProfiled)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);

void print_roofline() {
  const auto kernel = va::make_kernel<float>({});
  auto& in = inputs();
  const auto& chip = pto::ChipProfile::get("a2");
  std::printf("\nsimulated vector_add, 16M floats (%.0f MB moved), chip %s, HBM %.0f GB/s (unconfirmed figure)\n",
              3.0 * kLarge * 4 / 1e6, chip.name.c_str(), chip.hbm_gbps);
  std::printf("%9s %12s %14s %12s\n", "block_dim", "device_us", "simulated GB/s", "of HBM");
  for (int bd : {1, 2, 4, 8, 16, 24, 32, 40, 48}) {
    const auto p = kernel[{.block_dim = bd}].run_sync(in.x, in.y, in.z);
    const double gbps = p.gm_bytes / (p.device_us * 1e-6) / 1e9;
    std::printf("%9d %12.1f %14.1f %11.1f%%\n", bd, p.device_us, gbps, 100 * gbps / chip.hbm_gbps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rc = pto::perf::run_with_ratios(argc, argv, {{"timing+races on / off (<= 1.2)", "BM_VectorAddTimingOn/min_time:1.000/real_time",
                                                          "BM_VectorAddTimingOff/min_time:1.000/real_time"},
                                                         {"timing+races on / off, paired, repeated launch (<= 1.2)",
                                                          "BM_TimingCostPaired/replay_cache:1/min_time:3.000/real_time", ""},
                                                         {"timing+races on / off, paired, every launch replayed",
                                                          "BM_TimingCostPaired/replay_cache:0/min_time:3.000/real_time", ""},
                                                         {"timing+races on / off, paired, flash_attention 2048x128 f16, repeated launch",
                                                          "BM_TimingCostPairedFlashAttention/replay_cache:1/min_time:3.000/real_time", ""},
                                                         {"timing+races on / off, paired, flash_attention 2048x128 f16, every launch replayed",
                                                          "BM_TimingCostPairedFlashAttention/replay_cache:0/min_time:3.000/real_time", ""},
                                                         {"timing+races on / off, paired, matmul f16 1024^3, repeated launch",
                                                          "BM_TimingCostPairedMatmul/replay_cache:1/min_time:3.000/real_time", ""},
                                                         {"timing+races on / off, paired, matmul f16 1024^3, every launch replayed",
                                                          "BM_TimingCostPairedMatmul/replay_cache:0/min_time:3.000/real_time", ""},
                                                         {"replay ahead off / on, paired, vector_add 16M every launch replayed (> 1: faster on)",
                                                          "BM_ReplayAheadPaired/min_time:3.000/real_time", ""},
                                                         {"replay ahead off / on, paired, flash_attention 2048x128 f16 8 mix blocks every launch replayed",
                                                          "BM_ReplayAheadPairedFlashAttention/min_time:3.000/real_time", ""},
                                                         {"replay folding off / on, paired, vector_add 16M every launch replayed (> 1: faster on)",
                                                          "BM_FoldingPaired/play:0/min_time:3.000/real_time", ""},
                                                         {"replay folding off / on, paired, softmax 4096x1024 f32 every launch replayed (in groups)",
                                                          "BM_FoldingPairedSoftmax/play:0/min_time:3.000/real_time", ""},
                                                         {"play folding off / on, paired, vector_add 16M every launch replayed (> 1: faster on)",
                                                          "BM_FoldingPaired/play:1/min_time:3.000/real_time", ""},
                                                         {"play folding off / on, paired, softmax 4096x1024 f32 every launch replayed",
                                                          "BM_FoldingPairedSoftmax/play:1/min_time:3.000/real_time", ""},
                                                         {"play folding off / on, paired, layernorm 4096x1024 f32 every launch replayed (gamma, beta unshifted)",
                                                          "BM_PlayFoldingPairedLayernorm/play:1/min_time:3.000/real_time", ""},
                                                         {"play folding off / on, paired, matmul f16 1024^3 24 blocks every launch replayed (shift per tensor)",
                                                          "BM_PlayFoldingPairedMatmul/play:1/min_time:3.000/real_time", ""},
                                                         {"play folding off / on, paired, flash_attention 2048x128 f16 8 mix blocks every launch replayed",
                                                          "BM_PlayFoldingPairedFlashAttention/min_time:3.000/real_time", ""},
                                                         {"hook log off / on (models called live / written down), paired, flash_attention 2048x128 f16 every launch replayed",
                                                          "BM_HookLogPairedFlashAttention/min_time:3.000/real_time", ""},
                                                         {"replay of hand-built vector-add traces, 8 cores, core by core / folded",
                                                          "BM_ReplayVectorAdd/cores:8/fold:0/real_time", "BM_ReplayVectorAdd/cores:8/fold:1/real_time"},
                                                         {"replay of hand-built vector-add traces, 48 cores past the L2, core by core / folded",
                                                          "BM_ReplayVectorAdd/cores:48/fold:0/real_time", "BM_ReplayVectorAdd/cores:48/fold:1/real_time"},
                                                         {"core interleaving off / on, paired, vector_add 16M timing off (> 1: faster on)",
                                                          "BM_InterleavePaired/timing:0/min_time:3.000/real_time", ""},
                                                         {"core interleaving off / on, paired, vector_add 16M timing on",
                                                          "BM_InterleavePaired/timing:1/min_time:3.000/real_time", ""},
                                                         {"core interleaving off / on, paired, softmax 4096x1024 timing off",
                                                          "BM_InterleavePairedSoftmax/timing:0/min_time:3.000/real_time", ""},
                                                         {"core interleaving off / on, paired, softmax 4096x1024 timing on",
                                                          "BM_InterleavePairedSoftmax/timing:1/min_time:3.000/real_time", ""},
                                                         {"core interleaving off / on, paired, matmul 2048^3 f32 24 blocks (48 MiB: interleaved)",
                                                          "BM_InterleavePairedMatmul<float>/min_time:5.000/real_time", ""},
                                                         {"core interleaving off / on, paired, matmul 2048^3 f16 24 blocks (24 MiB: not, within the host's L3)",
                                                          "BM_InterleavePairedMatmul<pto::half>/min_time:5.000/real_time", ""},
                                                         {"interleave help off / on, paired, matmul 2048^3 f32 24 blocks (> 1: faster with help)",
                                                          "BM_InterleaveHelpPairedMatmul/min_time:5.000/real_time", ""},
                                                         {"host pinning off / on, runs of six launches, matmul 2048^3 f32 24 blocks, idle host (> 1: faster held)",
                                                          "BM_HostPinningPairedMatmul/load:0/iterations:8/real_time", ""},
                                                         {"host pinning off / on, runs of six launches, matmul 2048^3 f32 24 blocks, a nice-10 busy loop on one CPU",
                                                          "BM_HostPinningPairedMatmul/load:1/iterations:8/real_time", ""},
                                                         {"matmul 1024^3 emulated f32 / f16, paired (half not slower: >= 1)",
                                                          "BM_DtypePairedMatmul<pto::half>/1024/min_time:3.000/real_time", ""},
                                                         {"matmul 2048^3 emulated f32 / f16, paired (>= 1)",
                                                          "BM_DtypePairedMatmul<pto::half>/2048/min_time:3.000/real_time", ""},
                                                         {"matmul 1024^3 emulated f32 / bf16, paired (>= 1)",
                                                          "BM_DtypePairedMatmul<pto::bfloat16>/1024/min_time:3.000/real_time", ""},
                                                         {"matmul 1024^3 emulated f32 / int8, paired",
                                                          "BM_DtypePairedMatmul<int8_t>/1024/min_time:3.000/real_time", ""},
                                                         {"copy elision off / on, paired, softmax 4096x1024 f32 timing off (> 1: faster on)",
                                                          "BM_ElisionPairedSoftmax/min_time:3.000/real_time", ""},
                                                         {"copy elision off / on, paired, layernorm 4096x1024 f32 timing off",
                                                          "BM_ElisionPairedLayernorm/min_time:3.000/real_time", ""},
                                                         {"copy elision off / on, paired, vector_add 16M timing off",
                                                          "BM_ElisionPairedVectorAdd/min_time:3.000/real_time", ""},
                                                         {"row fusion off / on, paired, softmax 4096x1024 f32 timing off (> 1: faster on)",
                                                          "BM_FusionPairedSoftmax/min_time:3.000/real_time", ""},
                                                         {"row fusion off / on, paired, layernorm 4096x1024 f32 timing off",
                                                          "BM_FusionPairedLayernorm/min_time:3.000/real_time", ""},
                                                         {"profiled / unprofiled launch (<= 2)", "BM_LaunchProfiled/min_time:1.000/real_time",
                                                          "BM_LaunchUnprofiled/min_time:1.000/real_time"}});
  print_roofline();
  return rc;
}
