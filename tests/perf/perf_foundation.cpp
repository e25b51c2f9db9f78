// Foundation benchmarks (label perf, not in the default test run):
//   * vector_add at 16M floats, 8 blocks: emulated launch + synchronize versus a plain C++ TBB
//     loop doing the same arithmetic (ratio printed: native time / emulated time, target >= 0.8)
//   * cold compile time of vector_add (trace + passes + LLVM + link, a new kernel each time)
//   * warm launch + synchronize of a tiny kernel (the compile-cache hit path, target <= 10 us)
//   * a small launch (vector_add of 256K floats, 8 blocks) + synchronize: there the stream's
//     hand-off, not the kernel, decides (Stream.hpp: who runs a launch)
//   * a launch that overlaps host work: launch (vector_add of 1M floats, 8 blocks), compute on the
//     host for 100 us, synchronize; `saved_us`: how much less that takes than the launch +
//     synchronize alone and the host work one after the other (on 2 CPUs the launch's two threads
//     and the host's share them, so at most about half the shorter of the two)
#include <chrono>

#include <tbb/parallel_for.h>

#include "01_vector_add/vector_add.hpp"
#include "RatioReporter.hpp"
#include "common/TensorHelpers.hpp"

namespace pl = pto::lang;
namespace va = pto::samples::vector_add;

namespace {

constexpr int64_t kLarge = pto::test::LargeVectorInputs::kLength;
pto::test::LargeVectorInputs& large() { return pto::test::LargeVectorInputs::get(); }

/// z = x + y on 8 blocks, launch + synchronize an iteration (after one untimed).
void vector_add_launches(benchmark::State& state, const pto::Tensor<float>& x, const pto::Tensor<float>& y, const pto::Tensor<float>& z) {
  static const auto kernel = va::make_kernel<float>({});
  kernel[{.block_dim = 8}](x, y, z);
  pto::synchronize();
  for (auto _ : state) {
    kernel[{.block_dim = 8}](x, y, z);
    pto::synchronize();
  }
}

void BM_VectorAddEmulated(benchmark::State& state) {
  auto& in = large();
  vector_add_launches(state, in.x, in.y, in.z);
  state.SetBytesProcessed(state.iterations() * 3 * kLarge * 4);
}
BENCHMARK(BM_VectorAddEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_VectorAddNative(benchmark::State& state) {
  auto& in = large();
  for (auto _ : state) {
    const float* x = in.x.data();
    const float* y = in.y.data();
    float* z = in.z.data();
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kLarge, 1 << 16), [&](const auto& r) {
      for (int64_t i = r.begin(); i < r.end(); ++i) z[i] = x[i] + y[i];
    });
  }
  state.SetBytesProcessed(state.iterations() * 3 * kLarge * 4);
}
BENCHMARK(BM_VectorAddNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_VectorAddColdCompile(benchmark::State& state) {
  auto x = pto::Tensor<float>::random({4096}), y = pto::Tensor<float>::random({4096}), z = pto::Tensor<float>::zeros({4096});
  for (auto _ : state) {
    const auto kernel = va::make_kernel<float>({});  // a new kernel: nothing cached
    kernel[{.block_dim = 1}].compile(x, y, z);
  }
}
BENCHMARK(BM_VectorAddColdCompile)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_TinyKernelWarmLaunch(benchmark::State& state) {
  static const auto kernel = pl::jit({.name = "tiny", .auto_mutex = true}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {256});
    pl::load(t, x.slice(0, 256));
    t = t * 2.0f;
    pl::store(y.slice(0, 256), t);
  });
  auto x = pto::Tensor<float>::random({256}), y = pto::Tensor<float>::zeros({256});
  kernel[{.block_dim = 1}](x, y);
  pto::synchronize();
  for (auto _ : state) {
    kernel[{.block_dim = 1}](x, y);
    pto::synchronize();
  }
}
BENCHMARK(BM_TinyKernelWarmLaunch)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);

void BM_SmallLaunchEmulated(benchmark::State& state) {
  constexpr int64_t n = 1 << 18;
  vector_add_launches(state, pto::Tensor<float>::random({n}, 1), pto::Tensor<float>::random({n}, 2), pto::Tensor<float>::zeros({n}));
}
BENCHMARK(BM_SmallLaunchEmulated)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);

/// Busy host work for `us` microseconds.
void host_work(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}
void BM_LaunchOverlapsHostWork(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  static const auto kernel = va::make_kernel<float>({});  // launched by hand: the host works between launch and synchronize
  auto x = pto::Tensor<float>::random({1 << 20}, 1), y = pto::Tensor<float>::random({1 << 20}, 2), z = pto::Tensor<float>::zeros({1 << 20});
  auto launch_sync = [&] {
    kernel[{.block_dim = 8}](x, y, z);
    pto::synchronize();
  };
  auto us_since = [](Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); };
  launch_sync();
  auto t = Clock::now();
  for (int i = 0; i < 20; ++i) launch_sync();
  const double launch_us = us_since(t) / 20;
  constexpr double kHostUs = 100;
  double total_us = 0;
  for (auto _ : state) {
    t = Clock::now();
    kernel[{.block_dim = 8}](x, y, z);
    host_work(kHostUs);
    pto::synchronize();
    total_us += us_since(t);
  }
  state.counters["launch_us"] = launch_us;
  state.counters["saved_us"] = launch_us + kHostUs - total_us / static_cast<double>(state.iterations());
}
BENCHMARK(BM_LaunchOverlapsHostWork)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  return pto::perf::run_with_ratios(argc, argv,
                                    {{"vector_add native/emulated (>= 0.8)", "BM_VectorAddNative/min_time:1.000/real_time",
                                      "BM_VectorAddEmulated/min_time:1.000/real_time"}});
}
