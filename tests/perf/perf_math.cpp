// Transcendental benchmarks (label perf, not in the default test run): a tile expression of one
// function over 4M floats on 8 blocks, emulated (pto::math inlined and vectorised by the JIT,
// timing and race checking on) against the native baseline (a TBB loop over rows of glibc's
// libmvec powf / expf at -O3 -ffast-math, samples/common/native). Ratio printed: native time /
// emulated time; and the scalar C library call per element that pl::pow was before, as the
// before/after of vectorising it.
#include <tbb/parallel_for.h>

#include <pto/pto.hpp>

#include "RatioReporter.hpp"
#include "common/native/NativeKernels.hpp"

namespace pl = pto::lang;

namespace {

constexpr int64_t kRows = 4096, kCols = 1024, kTileRows = 16;

struct Inputs {
  pto::Tensor<float> x = pto::Tensor<float>::random({kRows, kCols}, 1);
  pto::Tensor<float> y = pto::Tensor<float>::random({kRows, kCols}, 2);
  pto::Tensor<float> z = pto::Tensor<float>::zeros({kRows, kCols});
  Inputs() {
    for (int64_t i = 0; i < kRows * kCols; ++i) x[i] = std::fabs(x[i]) * 4, y[i] = y[i] * 8;  // pow of positive bases
  }
  static Inputs& get() {
    static Inputs in;
    return in;
  }
};

/// z = body(x, y) a tile at a time; with `binary` false, y is not loaded (body gets an empty b).
template <class Body>
auto make_map(const char* name, Body body, bool binary) {
  return pl::jit({.name = name}, [body, binary](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
    auto a = pl::make_tile<float>(pl::Vec, {kTileRows, kCols});
    auto b = pl::make_tile<float>(pl::Vec, {kTileRows, kCols});
    const int64_t tiles = kRows / kTileRows;
    for (auto t : pl::range(pl::get_block_idx(), tiles, pl::get_block_num())) {
      pl::load(a, x.slice(t * kTileRows, kTileRows, 0, kCols));
      if (binary) pl::load(b, y.slice(t * kTileRows, kTileRows, 0, kCols));
      a = body(a, b);
      pl::store(z.slice(t * kTileRows, kTileRows, 0, kCols), a);
    }
  });
}

template <class Body>
void run_emulated(benchmark::State& state, const char* name, Body body, bool binary = true) {
  static const auto kernel = make_map(name, body, binary);
  auto& in = Inputs::get();
  kernel[{.block_dim = 8}](in.x, in.y, in.z);
  pto::synchronize();
  for (auto _ : state) {
    kernel[{.block_dim = 8}](in.x, in.y, in.z);
    pto::synchronize();
  }
}

template <class RowFn>
void run_native(benchmark::State& state, RowFn row) {
  auto& in = Inputs::get();
  for (auto _ : state) {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kRows, kTileRows), [&](const auto& r) {
      for (int64_t i = r.begin(); i < r.end(); ++i) row(in.x.data() + i * kCols, in.y.data() + i * kCols, in.z.data() + i * kCols);
    });
  }
}

void BM_PowEmulated(benchmark::State& state) {
  run_emulated(state, "bench_pow", [](const auto& a, const auto& b) { return pl::pow(a, b); });
}
BENCHMARK(BM_PowEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_PowNative(benchmark::State& state) {
  run_native(state, [](const float* x, const float* y, float* z) { pto::samples::native::pow_row(x, y, z, kCols); });
}
BENCHMARK(BM_PowNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// exp alone, the transcendental of softmax: pto::math::exp inlined vs libmvec's expf.
void BM_ExpEmulated(benchmark::State& state) {
  run_emulated(state, "bench_exp", [](const auto& a, const auto&) { return pl::exp(a); }, false);
}
BENCHMARK(BM_ExpEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_ExpNative(benchmark::State& state) {
  run_native(state, [](const float* x, const float*, float* z) { pto::samples::native::exp_row(x, z, kCols); });
}
BENCHMARK(BM_ExpNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// What pl::pow cost before pto::math::pow: the C library's powf called once per element (the
// engines called it through the runtime, so it was never vectorised).
void BM_PowScalarLibc(benchmark::State& state) {
  static float (*volatile scalar_powf)(float, float) = ::powf;
  run_native(state, [](const float* x, const float* y, float* z) {
    for (int64_t c = 0; c < kCols; ++c) z[c] = scalar_powf(x[c], y[c]);
  });
}
BENCHMARK(BM_PowScalarLibc)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  return pto::perf::run_with_ratios(argc, argv, {{"pow native/emulated", "BM_PowNative/min_time:1.000/real_time",
                                                  "BM_PowEmulated/min_time:1.000/real_time"},
                                                 {"exp native/emulated", "BM_ExpNative/min_time:1.000/real_time",
                                                  "BM_ExpEmulated/min_time:1.000/real_time"},
                                                 {"scalar powf per element / emulated", "BM_PowScalarLibc/min_time:1.000/real_time",
                                                  "BM_PowEmulated/min_time:1.000/real_time"}});
}
