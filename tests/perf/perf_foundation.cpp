// Foundation benchmarks (label perf, not in the default test run):
//   * vector_add at 16M floats, 8 blocks: emulated launch + synchronize versus a plain C++ TBB
//     loop doing the same arithmetic (ratio printed: native time / emulated time, target >= 0.8)
//   * cold compile time of vector_add (trace + passes + LLVM + link, a new kernel each time)
//   * warm launch + synchronize of a tiny kernel (the compile-cache hit path, target <= 10 us)
#include <tbb/parallel_for.h>

#include "01_vector_add/vector_add.hpp"
#include "RatioReporter.hpp"
#include "common/TensorHelpers.hpp"

namespace pl = pto::lang;
namespace va = pto::samples::vector_add;

namespace {

constexpr int64_t kLarge = pto::test::LargeVectorInputs::kLength;
pto::test::LargeVectorInputs& large() { return pto::test::LargeVectorInputs::get(); }

void BM_VectorAddEmulated(benchmark::State& state) {
  static const auto kernel = va::make_kernel<float>({});
  auto& in = large();
  kernel[{.block_dim = 8}](in.x, in.y, in.z);
  pto::synchronize();
  for (auto _ : state) {
    kernel[{.block_dim = 8}](in.x, in.y, in.z);
    pto::synchronize();
  }
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

}  // namespace

int main(int argc, char** argv) {
  return pto::perf::run_with_ratios(argc, argv, {{"vector_add native/emulated (>= 0.8)", "BM_VectorAddNative/min_time:1.000/real_time",
                                                  "BM_VectorAddEmulated/min_time:1.000/real_time"}});
}
