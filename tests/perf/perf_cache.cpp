// Compile-cache benchmarks (label perf): how long until a launch is ready
//   * cold: trace + passes + LLVM optimise + codegen + link (a new kernel body each time), the
//     quick tier of tiered compilation (what a first call pays) and one optimising compile
//   * disk cache hit: trace + passes + object load (what a new process pays)
//   * package hit: the same from an AOT package
//   * memory cache hit with a TilingKey: launch + synchronize of a tiny kernel (target <= 5 us)
//   * the operator layer: a two-phase op call versus the direct launch of its plan (target <= 2 us more)
#include <cstdlib>
#include <filesystem>

#include <boost/hana/define_struct.hpp>

#include "02_softmax/softmax.hpp"
#include "RatioReporter.hpp"
#include "pto/pto.hpp"

namespace pl = pto::lang;

namespace {

struct Key {
  BOOST_HANA_DEFINE_STRUCT(Key, (bool, twice), (pto::KeyField<int, 0, 7>, unroll));
};

auto make_kernel(float factor, bool tiered = true) {
  return pl::jit({.name = "cached", .auto_mutex = true, .tiered = tiered}, [factor](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile_group<float>(pl::Vec, {2048}, {0, 1});
    for (auto i : pl::range(pl::get_block_idx(), x.numel() / 2048, pl::get_block_num())) {
      pl::load(t.current(), x.slice(i * 2048, 2048));
      t.current() = t.current() * factor + 1.0f;
      pl::store(y.slice(i * 2048, 2048), t.current());
      t.next();
    }
  });
}

pto::Tensor<float>& x() {
  static auto t = pto::Tensor<float>::random({16384});
  return t;
}
pto::Tensor<float>& y() {
  static auto t = pto::Tensor<float>::zeros({16384});
  return t;
}

void BM_ReadyCold(benchmark::State& state) {
  float factor = 1.0f;
  for (auto _ : state) {
    const auto k = make_kernel(factor += 1.0f);  // a new body: nothing cached anywhere
    k[{.block_dim = 1}].compile(x(), y());
  }
}
BENCHMARK(BM_ReadyCold)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_ReadyColdOptimised(benchmark::State& state) {  // one optimising compile (JitOptions::tiered = false)
  float factor = 1.0f;
  for (auto _ : state) {
    const auto k = make_kernel(factor += 1.0f, /*tiered=*/false);
    k[{.block_dim = 1}].compile(x(), y());
  }
}
BENCHMARK(BM_ReadyColdOptimised)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_ReadyFromDisk(benchmark::State& state) {
  const auto k = make_kernel(3.0f);
  k[{.block_dim = 1}].compile(x(), y());  // writes the disk entry
  for (auto _ : state) {
    pto::CompileCache::global().clear();  // forget it in memory, as a new process would
    k[{.block_dim = 1}].compile(x(), y());
  }
}
BENCHMARK(BM_ReadyFromDisk)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_ReadyFromPackage(benchmark::State& state) {
  const std::string dir = "/tmp/pto_perf_package";
  std::filesystem::remove_all(dir);
  const auto k = make_kernel(5.0f);
  pto::PackageBuilder b(dir);
  b.add(k[{.block_dim = 1}], x(), y());
  b.finish();
  pto::Package::open(dir, {.fallback = pto::PackageFallback::error});
  for (auto _ : state) {
    pto::CompileCache::global().clear();
    k[{.block_dim = 1}].compile(x(), y());
  }
  pto::Package::close_all();
}
BENCHMARK(BM_ReadyFromPackage)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_WarmLaunchWithTilingKey(benchmark::State& state) {
  static const auto k = pl::jit({.name = "keyed", .auto_mutex = true}, [](pl::Tensor<float> a, pl::Tensor<float> b) {
    const auto key = pl::tiling_key<Key>();
    auto t = pl::make_tile<float>(pl::Vec, {256});
    pl::load(t, a.slice(0, 256));
    t = key.twice ? t * 2.0f : t * 1.0f;
    pl::store(b.slice(0, 256), t);
  });
  auto a = pto::Tensor<float>::random({256}), b = pto::Tensor<float>::zeros({256});
  const Key key{true, 3};
  k[{.block_dim = 1, .tiling_key = key}](a, b);
  pto::synchronize();
  for (auto _ : state) {
    k[{.block_dim = 1, .tiling_key = key}](a, b);
    pto::synchronize();
  }
}
BENCHMARK(BM_WarmLaunchWithTilingKey)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);

// The operator layer's cost: the same tiny softmax through pto::Op (validation + tiling +
// dispatch) and launched directly with the plan the op computes.
namespace sm = pto::samples::softmax;
auto& small_x() {
  static auto t = pto::Tensor<float>::random({8, 64});
  return t;
}
auto& small_y() {
  static auto t = pto::Tensor<float>::zeros({8, 64});
  return t;
}
void BM_SoftmaxDirect(benchmark::State& state) {
  pto::OpExecutor exec;
  sm::softmax_op<float>().get_workspace_size(small_x(), small_y(), exec);
  const auto plan = exec.plan();
  for (auto _ : state) {
    sm::softmax_op_kernel<float>()[{.block_dim = plan.block_dim, .tiling_key = plan.tiling_key}](small_x(), small_y(), plan.tiling_data[0]);
    pto::synchronize();
  }
}
void BM_SoftmaxViaOp(benchmark::State& state) {
  for (auto _ : state) {
    pto::OpExecutor exec;
    sm::softmax_op<float>().get_workspace_size(small_x(), small_y(), exec);
    sm::softmax_op<float>().run(exec);
    pto::synchronize();
  }
}
BENCHMARK(BM_SoftmaxDirect)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_SoftmaxViaOp)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  const std::string cache = "/tmp/pto_perf_cache";
  std::filesystem::remove_all(cache);
  setenv("PTO_CACHE_DIR", cache.c_str(), 1);  // before the runtime reads it
  return pto::perf::run_with_ratios(argc, argv, {{"cold quick tier / optimised", "BM_ReadyCold/min_time:1.000/real_time",
                                                  "BM_ReadyColdOptimised/min_time:1.000/real_time"},
                                                 {"disk hit / cold", "BM_ReadyFromDisk/min_time:1.000/real_time", "BM_ReadyCold/min_time:1.000/real_time"},
                                                 {"package hit / cold", "BM_ReadyFromPackage/min_time:1.000/real_time",
                                                  "BM_ReadyCold/min_time:1.000/real_time"},
                                                 {"op / direct launch", "BM_SoftmaxViaOp/min_time:1.000/real_time",
                                                  "BM_SoftmaxDirect/min_time:1.000/real_time"}},
                                     /*kernels_choose_tiers=*/true);
}
