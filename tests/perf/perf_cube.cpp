// Cube benchmarks (label perf, not in the default test run):
//   * matmul at 1024^3 and 2048^3, float and half: the emulated kernel (launch + synchronize,
//     24 blocks, timing and race checking on) versus OpenBLAS sgemm with as many threads as the
//     emulator's host pool, side by side (ratio: OpenBLAS time / emulated time, target >= 0.5 for
//     float). The half path widens to float for OpenBLAS (counted in its time).
//   * matmul at 1024^3 in bfloat16 and int8 (int32 out) beside float and half: the emulator's
//     host time per dtype (half and bfloat16 not slower than float, int8 within 1.5x of half),
//     each dtype in runs of its own (perf_pipeline's BM_DtypePairedMatmul pairs them launch by
//     launch, the figure to trust on a shared machine).
//   * flash attention forward at 2048 x 128 (half), emulated (target: under a second), on a2
//     through GM workspaces and on a5 fused through the cross-core moves (host ratio printed).
#include "03_matmul/matmul.hpp"
#include "06_flash_attention/flash_attention.hpp"
#include "RatioReporter.hpp"

namespace mm = pto::samples::matmul;
namespace fa = pto::samples::flash_attention;

namespace {

template <class T>
struct Inputs {
  int64_t n;
  pto::Tensor<T> a, b;
  pto::Tensor<mm::out_t<T>> c;
  explicit Inputs(int64_t size)
      : n(size), a(pto::Tensor<T>::random({size, size}, 1)), b(pto::Tensor<T>::random({size, size}, 2)),
        c(pto::Tensor<mm::out_t<T>>::zeros({size, size})) {}
};
template <class T>
Inputs<T>& inputs(int64_t n) {
  static std::map<int64_t, Inputs<T>> cache;
  return cache.try_emplace(n, n).first->second;
}

template <class T>
void BM_MatmulEmulated(benchmark::State& state) {
  static const auto kernel = mm::make_kernel<T>({.tk = std::is_same_v<T, float> ? 64 : 128});
  auto& in = inputs<T>(state.range(0));
  kernel[{.block_dim = 24}](in.a, in.b, in.c);
  pto::synchronize();
  for (auto _ : state) {
    kernel[{.block_dim = 24}](in.a, in.b, in.c);
    pto::synchronize();
  }
  state.counters["GFLOPs"] = benchmark::Counter(2.0 * std::pow(static_cast<double>(in.n), 3) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.counters["mac_util"] = pto::last_launch()->mac_util;
}

template <class T>
void BM_MatmulOpenBLAS(benchmark::State& state) {
  auto& in = inputs<T>(state.range(0));
  std::vector<float> c(static_cast<size_t>(in.n * in.n));
  for (auto _ : state) {
    if constexpr (std::is_same_v<T, float>) {
      pto::samples::blas_sgemm(in.a.data(), in.b.data(), c.data(), in.n, in.n, in.n);
    } else {
      pto::samples::native_matmul(in.a.data(), in.b.data(), c.data(), in.n, in.n, in.n);
    }
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPs"] = benchmark::Counter(2.0 * std::pow(static_cast<double>(in.n), 3) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

BENCHMARK(BM_MatmulEmulated<float>)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_MatmulOpenBLAS<float>)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_MatmulEmulated<pto::half>)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_MatmulOpenBLAS<pto::half>)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_MatmulEmulated<pto::bfloat16>)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_MatmulEmulated<int8_t>)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

/// Arg 0: chip a2 (S, P and PV through GM workspaces); arg 1: chip a5 (fused through the
/// cross-core moves, pipelined across the cores). The counter device_us is the simulated time.
void BM_FlashAttention2048x128(benchmark::State& state) {
  const bool a5 = state.range(0) == 1;
  const auto p = fa::default_params<pto::half>(a5 ? "a5" : "a2");
  static const auto on_a2 = fa::make_kernel<pto::half>(fa::default_params<pto::half>("a2"));
  static const auto on_a5 = fa::make_kernel<pto::half>(fa::default_params<pto::half>("a5"));
  const auto& kernel = a5 ? on_a5 : on_a2;
  constexpr int64_t S = 2048, D = 128;
  constexpr int kBlocks = 16;
  auto q = pto::Tensor<pto::half>::random({S, D}, 1), k = pto::Tensor<pto::half>::random({S, D}, 2);
  auto v = pto::Tensor<pto::half>::random({S, D}, 3), o = pto::Tensor<pto::half>::zeros({S, D});
  fa::Workspace<pto::half> ws(kBlocks, p, D);
  for (auto _ : state) {
    kernel[{.block_dim = kBlocks}](q, k, v, o, ws.scores, ws.probs, ws.values);
    pto::synchronize();
  }
  state.counters["device_us"] = pto::last_launch()->device_us;
  state.counters["mac_util"] = pto::last_launch()->mac_util;
}
BENCHMARK(BM_FlashAttention2048x128)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  return pto::perf::run_with_ratios(
      argc, argv,
      {{"matmul f32 1024^3 OpenBLAS/emulated (>= 0.5)", "BM_MatmulOpenBLAS<float>/1024/min_time:1.000/real_time",
        "BM_MatmulEmulated<float>/1024/min_time:1.000/real_time"},
       {"matmul f32 2048^3 OpenBLAS/emulated (>= 0.5)", "BM_MatmulOpenBLAS<float>/2048/min_time:1.000/real_time",
        "BM_MatmulEmulated<float>/2048/min_time:1.000/real_time"},
       {"matmul f16 1024^3 OpenBLAS/emulated", "BM_MatmulOpenBLAS<pto::half>/1024/min_time:1.000/real_time",
        "BM_MatmulEmulated<pto::half>/1024/min_time:1.000/real_time"},
       {"matmul f16 2048^3 OpenBLAS/emulated", "BM_MatmulOpenBLAS<pto::half>/2048/min_time:1.000/real_time",
        "BM_MatmulEmulated<pto::half>/2048/min_time:1.000/real_time"},
       {"matmul 1024^3 emulated f32 / f16 (half not slower: >= 1)", "BM_MatmulEmulated<float>/1024/min_time:1.000/real_time",
        "BM_MatmulEmulated<pto::half>/1024/min_time:1.000/real_time"},
       {"matmul 1024^3 emulated f32 / bf16 (>= 1)", "BM_MatmulEmulated<float>/1024/min_time:1.000/real_time",
        "BM_MatmulEmulated<pto::bfloat16>/1024/min_time:1.000/real_time"},
       {"matmul 1024^3 emulated f16 / int8 (int8 within 1.5x of half: >= 0.67)", "BM_MatmulEmulated<pto::half>/1024/min_time:1.000/real_time",
        "BM_MatmulEmulated<int8_t>/1024/min_time:1.000/real_time"},
       {"flash attention host time a5 fused / a2 workspaces", "BM_FlashAttention2048x128/1/min_time:1.000/real_time",
        "BM_FlashAttention2048x128/0/min_time:1.000/real_time"}});
}
