// Dynamic dimensions against static shapes (label perf, not in the default test run): the same
// kernel body traced once with static shapes and once with the rows declared pl::DYNAMIC, run on
// the same data side by side. Printed: host time dynamic / static (target <= 1.10), and, as the
// "ratio" counter of the dynamic benchmark, simulated device time dynamic / static (target 1.00
// within 10%). Softmax 4096x1024 f32 on 8 AIVs and matmul f32 1024^3 on 24 AICs (the samples'
// bodies: softmax_rows, matmul_tiles).
#include <pto/pto.hpp>

#include "02_softmax/softmax.hpp"
#include "03_matmul/matmul.hpp"
#include "RatioReporter.hpp"

namespace pl = pto::lang;
namespace sm = pto::samples::softmax;
namespace mm = pto::samples::matmul;

namespace {

constexpr int64_t kRows = 4096, kCols = 1024, kSize = 1024;
constexpr int kSoftmaxBlocks = 8, kMatmulBlocks = 24;

struct SoftmaxData {
  pto::Tensor<float> x = pto::Tensor<float>::random({kRows, kCols}, 7, -4, 4);
  pto::Tensor<float> y = pto::Tensor<float>::zeros({kRows, kCols});
};
SoftmaxData& softmax_data() {
  static SoftmaxData d;
  return d;
}

struct MatmulData {
  pto::Tensor<float> a = pto::Tensor<float>::random({kSize, kSize}, 1);
  pto::Tensor<float> b = pto::Tensor<float>::random({kSize, kSize}, 2);
  pto::Tensor<float> c = pto::Tensor<float>::zeros({kSize, kSize});
};
MatmulData& matmul_data() {
  static MatmulData d;
  return d;
}

const auto& softmax_static() {
  static const auto k = sm::make_kernel<float>(sm::Params{});
  return k;
}
const auto& softmax_dynamic() {
  static const auto k = pl::jit({.name = "softmax_dynamic_rows", .auto_mutex = true},
                                [](pl::Tensor<float, pl::DYNAMIC, pl::STATIC> x, pl::Tensor<float, pl::DYNAMIC, pl::STATIC> y) {
                                  const sm::Params p;
                                  // The static kernel's tile for 4096 rows: fitting_rows caps at 64 rows either way.
                                  const int64_t r_tile = sm::fitting_rows<float>(sm::kAnyRows, x.dim(1), p.buffers,
                                                                                 pto::ChipProfile::get(p.chip).limits(pl::Vec).bytes);
                                  sm::softmax_rows<float>(x, y, pl::ceil_div(x.extent(0), r_tile), r_tile, p.buffers, p.sync);
                                });
  return k;
}

const auto& matmul_static() {
  static const auto k = mm::make_kernel<float>(mm::Params{});
  return k;
}
const auto& matmul_dynamic() {
  static const auto k = pl::jit({.name = "matmul_dynamic_m", .auto_mutex = true},
                                [](pl::Tensor<float, pl::DYNAMIC, pl::STATIC> a, pl::Tensor<float> b,
                                   pl::Tensor<float, pl::DYNAMIC, pl::STATIC> c) {
                                  mm::matmul_tiles<float>(a, b, mm::Params{}, pl::get_block_idx(), pl::get_block_num(),
                                                          [&](const auto& acc, const pl::Int& m0, const pl::Int& mlen, const pl::Int& n0,
                                                              const pl::Int& nlen) { pl::store(c.slice(m0, mlen, n0, nlen), acc); });
                                });
  return k;
}

/// Host time of `launch` + synchronize; the counter "device_us" is the simulated time, and
/// "ratio" (when `other` is given) the simulated time over `other`'s.
template <class Run, class Other>
void measure(benchmark::State& state, Run run_sync, Other other) {
  const pto::LaunchProfile p = run_sync();  // warm-up: compiles
  for (auto _ : state) run_sync();
  state.counters["device_us"] = p.device_us;
  if constexpr (!std::is_same_v<Other, std::nullptr_t>) state.counters["ratio"] = p.device_us / other().device_us;
}

void BM_SoftmaxStatic(benchmark::State& state) {
  auto& d = softmax_data();
  measure(state, [&] { return softmax_static()[{.block_dim = kSoftmaxBlocks}].run_sync(d.x, d.y); }, nullptr);
}
BENCHMARK(BM_SoftmaxStatic)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_SoftmaxDynamic(benchmark::State& state) {
  auto& d = softmax_data();
  measure(state, [&] { return softmax_dynamic()[{.block_dim = kSoftmaxBlocks}].run_sync(d.x, d.y); },
          [&] { return softmax_static()[{.block_dim = kSoftmaxBlocks}].run_sync(d.x, d.y); });
}
BENCHMARK(BM_SoftmaxDynamic)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_MatmulStatic(benchmark::State& state) {
  auto& d = matmul_data();
  measure(state, [&] { return matmul_static()[{.block_dim = kMatmulBlocks}].run_sync(d.a, d.b, d.c); }, nullptr);
}
BENCHMARK(BM_MatmulStatic)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_MatmulDynamic(benchmark::State& state) {
  auto& d = matmul_data();
  measure(state, [&] { return matmul_dynamic()[{.block_dim = kMatmulBlocks}].run_sync(d.a, d.b, d.c); },
          [&] { return matmul_static()[{.block_dim = kMatmulBlocks}].run_sync(d.a, d.b, d.c); });
}
BENCHMARK(BM_MatmulDynamic)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  auto name = [](const char* bench) { return std::string(bench) + "/min_time:1.000/real_time"; };
  return pto::perf::run_with_ratios(argc, argv,
                                    {{"softmax 4096x1024 host: dynamic / static", name("BM_SoftmaxDynamic"), name("BM_SoftmaxStatic")},
                                     {"softmax 4096x1024 simulated: dynamic / static", name("BM_SoftmaxDynamic"), ""},
                                     {"matmul 1024^3 host: dynamic / static", name("BM_MatmulDynamic"), name("BM_MatmulStatic")},
                                     {"matmul 1024^3 simulated: dynamic / static", name("BM_MatmulDynamic"), ""}});
}
