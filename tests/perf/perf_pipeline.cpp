// Pipeline-model benchmarks (label perf):
//   * the cost of the timing model + race checker: vector_add at 16M floats with both on versus
//     both off (ratio printed, target <= 1.2, issue #12)
//   * profiling 5 launches (files written) versus the same launches alone (ratio printed, target <= 2)
//   * the simulated roofline: vector_add's simulated GM throughput as block_dim grows from 1 to
//     48, against the profile's HBM bandwidth (deterministic numbers, printed as a table)
#include <cstdio>

#include "01_vector_add/vector_add.hpp"
#include "RatioReporter.hpp"
#include "common/TensorHelpers.hpp"

namespace va = pto::samples::vector_add;

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
BENCHMARK(BM_VectorAddTimingOff)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_VectorAddTimingOn)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

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
                                                         {"profiled / unprofiled launch (<= 2)", "BM_LaunchProfiled/min_time:1.000/real_time",
                                                          "BM_LaunchUnprofiled/min_time:1.000/real_time"}});
  print_roofline();
  return rc;
}
