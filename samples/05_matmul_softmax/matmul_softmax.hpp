#pragma once
// Sample 05: Y = softmax_rows(A x B), fused: the cube produces whole rows of C, the vector cores
// normalise them as soon as a tile is ready (cross-core flags through a GM workspace, or on the
// a5 profile straight from L0C into the AIVs' UB: sample 04's cube_tiles_then_vector).
//
// Softmax needs whole rows, so an output tile spans all N columns (N <= 512) and the tile height
// tm shrinks to keep the Acc double buffer within L0C. The cube side is sample 04's; the vector
// epilogue is sample 02's row softmax on this AIV's half of the tile's rows.
#include "../02_softmax/softmax.hpp"
#include "../04_matmul_bias_relu/matmul_bias_relu.hpp"

namespace pto::samples::matmul_softmax {

namespace pl = pto::lang;
using matmul::Params;

/// Tiles for an N-column softmax of `T` inputs: tn = N rounded up to 16, tm as tall as two float
/// Acc slots allow and as the AIV's UB allows for its half of the rows (two float slots of C, the
/// float exp, two T output slots), tk at most `tk` and as deep as two Left slots of tm x tk, two
/// Right slots of tk x tn and two L1 slots of each allow (float with N under 112 once asked for
/// 128-deep Left slots that do not fit).
template <class T>
Params params_for(int64_t N, const std::string& chip_name, int64_t tk) {
  const auto& chip = ChipProfile::get(chip_name);
  Params p;
  p.tn = (N + 15) / 16 * 16;
  const int64_t by_acc = chip.limits(ir::MemSpace::Acc).bytes / 2 / (p.tn * 4);
  const int64_t ub_row = (2 * 4 + 4) * p.tn + 2 * static_cast<int64_t>(sizeof(T)) * padded_cols<T>(p.tn) + 2 * 32;
  const int64_t by_ub = 2 * (chip.limits(ir::MemSpace::Vec).bytes / ub_row);
  p.tm = std::max<int64_t>(16, std::min<int64_t>({128, by_acc, by_ub}) / 16 * 16);
  const auto elem = static_cast<int64_t>(sizeof(T));
  const int64_t right_rows = chip.limits(ir::MemSpace::Right).bytes / 2 / (p.tn * elem);
  const int64_t left_cols = chip.limits(ir::MemSpace::Left).bytes / 2 / (p.tm * elem);
  const int64_t mat_depth = chip.limits(ir::MemSpace::Mat).bytes / 2 / ((p.tm + p.tn) * elem);
  p.tk = std::max<int64_t>(16, std::min<int64_t>(tk, std::min({right_rows, left_cols, mat_depth}) / 16 * 16));
  p.chip = chip_name;
  return p;
}

template <class T>
auto make_kernel(Params p) {
  return pl::jit({.name = "matmul_softmax", .auto_mutex = true, .chip = p.chip, .timing = p.timing, .race_check = p.timing},
                 [p](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<T> y, pl::Tensor<float> ws) {
    const int64_t M = a.dim(0), N = b.dim(1);
    pl::require(N <= p.tn, "matmul_softmax keeps whole rows in one tile: N must be at most the tile width tn");
    pl::require(y.dim(0) == M && y.dim(1) == N, "Y is M x N");
    matmul_bias_relu::cube_tiles_then_vector<T>(a, b, ws, p, [&] {
      const int64_t half = (p.tm + 1) / 2;
      auto e = pl::make_tile<float>(pl::Vec, {half, p.tn});
      auto out = pl::make_tile_group<T>(pl::Vec, {half, padded_cols<T>(p.tn)}, {2, 3});
      auto mx = pl::make_tile<float>(pl::Vec, {half, 1});
      auto sum = pl::make_tile<float>(pl::Vec, {half, 1});
      return [=, &y](const pl::Tile<float>& c, const pl::Int& row, const pl::Int& rows, const pl::Int& n0, const pl::Int& nlen) mutable {
        pl::row_max(mx, c);
        e = pl::exp(c - mx);
        pl::row_sum(sum, e);
        out.current() = pl::cast<T>(e / sum);
        pl::store(y.slice(row, rows, n0, nlen), out.current());
        out.next();
      };
    });
  });
}

/// Plain C++: C in double from the exact products, then softmax per row in double, rounded once.
template <class T>
void reference(const Tensor<T>& a, const Tensor<T>& b, Tensor<T>& y) {
  const int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  tbb::parallel_for(int64_t{0}, M, [&](int64_t i) {
    std::vector<double> row(static_cast<size_t>(N), 0.0);
    for (int64_t k = 0; k < K; ++k) {
      const double av = static_cast<float>(a[i * K + k]);
      for (int64_t j = 0; j < N; ++j) row[j] += av * static_cast<float>(b[k * N + j]);
    }
    const double mx = *std::max_element(row.begin(), row.end());
    double sum = 0;
    for (auto& v : row) sum += (v = std::exp(v - mx));
    for (int64_t j = 0; j < N; ++j) y[i * N + j] = T(static_cast<float>(row[j] / sum));
  });
}

/// Softmax outputs are in [0, 1]: float sums of K products, exp and the division, plus one output rounding.
template <class T>
double tolerance(int64_t K) {
  const double out_eps = std::is_same_v<T, float> ? 0x1p-22 : (std::is_same_v<T, half> ? 0x1p-10 : 0x1p-7);
  return static_cast<double>(K) * 0x1p-21 + 0x1p-18 + out_eps;
}

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "matmul_softmax";
  info.about = "Y = softmax_rows(A x B): cube tiles handed to the vector cores through cross-core flags";
  info.default_shape = {1024, 256, 256};
  info.prepare = [](const SampleArgs& args) {
    return dispatch_float_dtype(args.dtype, [&]<class T>() {
      PTO_USER_CHECK(args.shape.size() == 3, ErrorSite{}) << "matmul_softmax takes --shape MxNxK";
      const int64_t M = args.shape[0], N = args.shape[1], K = args.shape[2];
      PTO_USER_CHECK(N <= 512, ErrorSite{}) << "matmul_softmax keeps whole rows in one tile: N must be at most 512, got " << N;
      Params p = params_for<T>(N, args.chip, args.param("tk", 128));
      auto kernel = std::make_shared<decltype(matmul_softmax::make_kernel<T>(p))>(matmul_softmax::make_kernel<T>(p));
      auto a = Tensor<T>::random({M, K}, 1), b = Tensor<T>::random({K, N}, 2);
      auto y = Tensor<T>::zeros({M, N});
      auto ws = Tensor<float>::zeros({M, N});
      const int bd = args.block_dim;
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd}](a, b, y, ws); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd}].run_sync(a, b, y, ws); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd}].compile(a, b, y, ws); };
      run.verify = [=] {
        auto want = Tensor<T>::zeros({M, N});
        reference(a, b, want);
        Verdict v;
        v.max_abs_error = max_abs_diff(y, want);
        v.tolerance = tolerance<T>(K);
        v.ok = v.max_abs_error <= v.tolerance;
        return v;
      };
      run.native_about = openblas_sgemm_name() + ", then native::softmax_row over rows on TBB (libmvec expf; half and bfloat16 widened "
                         "and rounded back, counted in its time)";
      auto c = std::make_shared<std::vector<float>>(static_cast<size_t>(M * N));
      run.native = [=]() mutable {
        native_matmul(a.data(), b.data(), c->data(), M, N, K);
        native::for_each_row(c->data(), y.data(), M, N, [&](const float* in, float* out, int64_t) { native::softmax_row(in, out, N); });
      };
      run.gm_bytes = static_cast<int64_t>(a.bytes() + b.bytes() + y.bytes() + 2 * ws.bytes());
      run.flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::matmul_softmax
