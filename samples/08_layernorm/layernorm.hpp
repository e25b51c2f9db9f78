#pragma once
// Sample 08 — layer normalisation over the last dimension:
//   y = (x - mean(x)) / sqrt(var(x) + eps) * gamma + beta        (per row of x [rows, cols])
//
// What it shows:
//   * a runtime float parameter: `eps` is a pl::Float, passed per call, not part of the cache key
//     (one compiled kernel serves every epsilon)
//   * two row reductions (mean, then the variance of the centred row) into (R, 1) tiles
//   * broadcasting both ways in one fused expression: (R, 1) statistics along the rows, the
//     (1, C) gamma and beta down the columns
//   * f32 / f16 / bf16 inputs, computed in float and rounded once on the way out
//   * tails in rows and columns, and idle cores when there are fewer row blocks than blocks
//   * dynamic rows (pl::DYNAMIC, as PyPTO Pro's pl.Tensor[[pl.DYNAMIC, K], ...]): one compiled
//     kernel per column count serves every batch of rows
//   * rows too wide for the UB (hidden sizes of 8192 and more) walked in column chunks, three
//     passes over each block of rows (layernorm_in_chunks)
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "common/Blas.hpp"
#include "common/Sample.hpp"
#include "common/native/NativeKernels.hpp"
#include "common/native/NativeRows.hpp"

namespace pto::samples::layernorm {

namespace pl = pto::lang;

struct Params {
  int buffers = 2;            // slots of the input and output tile groups
  int64_t rows_per_tile = 0;  // 0: as many rows as fit the UB
  std::string chip = "a2";
};

/// UB bytes of tiles `cols` wide: the per-core gamma and beta (`fixed`), and per row the x and y
/// slots, the float copy, the centred row and the (R, 1) statistics.
template <class T>
struct TileBytes {
  int64_t fixed, per_row;
  TileBytes(int64_t cols, int buffers)
      : fixed(2 * padded_cols<T>(cols) * static_cast<int64_t>(sizeof(T)) + 2 * padded_cols<float>(cols) * 4 + 1024),
        per_row(2 * buffers * padded_cols<T>(cols) * static_cast<int64_t>(sizeof(T)) + 2 * padded_cols<float>(cols) * 4 + 3 * 4) {}
  /// Whole rows of these tiles that fit `ub_bytes` (0: not even one).
  int64_t rows_fitting(int64_t ub_bytes) const { return std::max<int64_t>(0, (ub_bytes - fixed) / per_row); }
};

/// Rows per tile that fit `ub_bytes` (at least one: a row too wide for the UB is walked in column
/// chunks, chunk_cols).
template <class T>
int64_t fitting_rows(int64_t rows, int64_t cols, int buffers, int64_t ub_bytes) {
  return std::max<int64_t>(1, std::min<int64_t>({rows, 64, TileBytes<T>(cols, buffers).rows_fitting(ub_bytes)}));
}

/// The columns of a chunk when one row of `cols` does not fit `ub_bytes` (widest_chunk); 0 when
/// whole rows fit.
template <class T>
int64_t chunk_cols(int64_t cols, int buffers, int64_t ub_bytes) {
  if (TileBytes<T>(cols, buffers).rows_fitting(ub_bytes) >= 1) return 0;
  return widest_chunk(cols, [&](int64_t width) { return TileBytes<T>(width, buffers).rows_fitting(ub_bytes); });
}

/// The row count the kernel sizes its tiles for: any (its rows are dynamic).
inline constexpr int64_t kAnyRows = int64_t{1} << 40;

/// The working tiles of a block of `r_tile` rows, `width` columns of the row (TileBytes).
template <class T>
struct RowTiles {
  pl::TileGroup<T> xs, ys;          // x and y, `buffers` slots each
  pl::Tile<float> xf, d;            // x in float, x - mean
  pl::Tile<float> mean, var, rstd;  // (R, 1) statistics
  pl::Tile<T> g_in, b_in;           // the columns' gamma and beta
  pl::Tile<float> g, b;             // and in float
  RowTiles(int64_t r_tile, int64_t width, int buffers)
      : xs(pl::make_tile_group<T>(pl::Vec, {r_tile, padded_cols<T>(width)}, slots(buffers))),
        ys(pl::make_tile_group<T>(pl::Vec, {r_tile, padded_cols<T>(width)}, slots(buffers))),
        xf(pl::make_tile<float>(pl::Vec, {r_tile, padded_cols<float>(width)})),
        d(pl::make_tile<float>(pl::Vec, {r_tile, padded_cols<float>(width)})),
        mean(pl::make_tile<float>(pl::Vec, {r_tile, 1})),
        var(pl::make_tile<float>(pl::Vec, {r_tile, 1})),
        rstd(pl::make_tile<float>(pl::Vec, {r_tile, 1})),
        g_in(pl::make_tile<T>(pl::Vec, {1, padded_cols<T>(width)})),
        b_in(pl::make_tile<T>(pl::Vec, {1, padded_cols<T>(width)})),
        g(pl::make_tile<float>(pl::Vec, {1, padded_cols<float>(width)})),
        b(pl::make_tile<float>(pl::Vec, {1, padded_cols<float>(width)})) {}

 private:
  static std::vector<int> slots(int buffers) {
    std::vector<int> s(static_cast<size_t>(buffers));
    std::iota(s.begin(), s.end(), 0);
    return s;
  }
};

template <class T>
using Rows = pl::Tensor<T, pl::DYNAMIC, pl::STATIC>;  // [rows, cols], rows a runtime value

/// Rows wider than the UB holds (layernorm's hidden sizes of 8192 and more): a block of r_tile rows
/// at a time, each pass over the row in chunks of `cc` columns (the usual split of a last
/// dimension too large for on-chip memory): the sums of the chunks give the mean, then the sums of
/// the centred chunks the variance, then each chunk is normalised and stored. x is read from GM
/// three times (512 x 8192 f32: 0.89 of the native row loop, which reads it once, `pto bench
/// --vs-native`, one run).
template <class T>
void layernorm_in_chunks(const Rows<T>& x, const pl::Tensor<T>& gamma, const pl::Tensor<T>& beta, const Rows<T>& y, const pl::Float& eps,
                         const Params& p, int64_t cc) {
  const pl::Int rows = x.extent(0);
  const int64_t cols = x.dim(1);
  const int64_t ub = ChipProfile::get(p.chip).limits(pl::Vec).bytes;
  const int64_t r_tile = p.rows_per_tile > 0 ? p.rows_per_tile : fitting_rows<T>(kAnyRows, cc, p.buffers, ub);
  RowTiles<T> w(r_tile, cc, p.buffers);  // a chunk wide
  auto part = pl::make_tile<float>(pl::Vec, {r_tile, 1});  // a chunk's row sums
  const float inv_cols = 1.0f / static_cast<float>(cols);
  const int64_t chunks = (cols + cc - 1) / cc;
  for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, r_tile), pl::get_block_num())) {
    auto r0 = t * r_tile;
    auto nr = pl::min(r_tile, rows - r0);
    // Chunk k of the block's rows, then use(x in float: the loaded slot, or its copy w.xf, its columns).
    auto chunk = [&](const pl::Int& k, auto&& use) {
      load_chunk(x, w.xs, r0, nr, k, cc, [&](const auto& xt, const pl::Int& c0, const pl::Int& clen) {
        if constexpr (std::is_same_v<T, float>) {
          use(xt, c0, clen);
        } else {
          w.xf = pl::cast<float>(xt);
          use(w.xf, c0, clen);
        }
      });
    };
    const auto add = [](pl::Tile<float>& total, const pl::Tile<float>& more) { total = total + more; };
    total_over_chunks(chunks, chunk, w.mean, part, [](const pl::Tile<float>& into, const auto& xin) { pl::row_sum(into, xin); }, add);
    w.mean = w.mean * inv_cols;
    const auto centred_sum = [&](const pl::Tile<float>& into, const auto& xin) {
      w.d = xin - w.mean;
      pl::row_sum(into, w.d * w.d);
    };
    total_over_chunks(chunks, chunk, w.var, part, centred_sum, add);
    w.rstd = pl::rsqrt(w.var * inv_cols + eps);
    for (auto k : pl::range(chunks)) {
      chunk(k, [&](const auto& xin, const pl::Int& c0, const pl::Int& clen) {
        pl::load(w.g_in, gamma.slice(0, 1, c0, clen));
        pl::load(w.b_in, beta.slice(0, 1, c0, clen));
        w.g = pl::cast<float>(w.g_in);
        w.b = pl::cast<float>(w.b_in);
        auto yt = w.ys.next();
        yt = pl::cast<T>((xin - w.mean) * w.rstd * w.g + w.b);
        pl::store(y.slice(r0, nr, c0, clen), yt);
      });
    }
  }
}

template <class T>
auto make_kernel(Params p) {
  return pl::jit(jit_options("layernorm", SyncMode::automatic, p.chip),
                 [p](Rows<T> x, pl::Tensor<T> gamma, pl::Tensor<T> beta, Rows<T> y, pl::Float eps) {
    pl::require(x.dim(1) == y.dim(1), "layernorm takes x and y of the same 2-D shape");
    const pl::Int rows = x.extent(0);  // dynamic: a runtime value (a y of other rows stops the core at its bounds check)
    const int64_t cols = x.dim(1);
    pl::require(gamma.rank() == 2 && gamma.dim(0) == 1 && gamma.dim(1) == cols && gamma.shape() == beta.shape(),
                "gamma and beta are [1, cols]");
    const int64_t ub = ChipProfile::get(p.chip).limits(pl::Vec).bytes;
    if (const int64_t cc = chunk_cols<T>(cols, p.buffers, ub); cc > 0) return layernorm_in_chunks<T>(x, gamma, beta, y, eps, p, cc);
    const int64_t r_tile = p.rows_per_tile > 0 ? p.rows_per_tile : fitting_rows<T>(kAnyRows, cols, p.buffers, ub);
    RowTiles<T> w(r_tile, cols, p.buffers);  // whole rows
    const float inv_cols = 1.0f / static_cast<float>(cols);

    const auto row_blocks = pl::ceil_div(rows, r_tile);
    // gamma and beta once per core that has rows to do (an idle core loads nothing).
    pl::if_(pl::get_block_idx() < row_blocks, [&] {
      pl::load(w.g_in, gamma.slice(0, 1, 0, cols));
      pl::load(w.b_in, beta.slice(0, 1, 0, cols));
      w.g = pl::cast<float>(w.g_in);
      w.b = pl::cast<float>(w.b_in);
    });
    for (auto t : pl::range(pl::get_block_idx(), row_blocks, pl::get_block_num())) {
      auto r0 = t * r_tile;
      auto nr = pl::min(r_tile, rows - r0);  // tail block: fewer rows
      auto xt = w.xs.next();
      auto yt = w.ys.next();
      pl::load(xt, x.slice(r0, nr, 0, cols));
      auto centre = [&](const auto& xin) {  // xin: the rows in float
        pl::row_sum(w.mean, xin);
        w.mean = w.mean * inv_cols;
        w.d = xin - w.mean;  // (R, 1) broadcasts along each row
      };
      if constexpr (std::is_same_v<T, float>) {
        centre(xt);  // already float: no copy (as a float kernel on the device has none)
      } else {
        w.xf = pl::cast<float>(xt);
        centre(w.xf);
      }
      pl::row_sum(w.var, w.d * w.d);
      w.rstd = pl::rsqrt(w.var * inv_cols + eps);  // the runtime epsilon broadcasts
      yt = pl::cast<T>(w.d * w.rstd * w.g + w.b);    // (1, C) gamma and beta broadcast down the columns
      pl::store(y.slice(r0, nr, 0, cols), yt);
    }
  });
}

/// Plain C++: statistics in double, the result rounded once to T.
template <class T>
void reference(const Tensor<T>& x, const Tensor<T>& gamma, const Tensor<T>& beta, float eps, Tensor<T>& y) {
  const int64_t rows = x.dim(0), cols = x.dim(1);
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mean += static_cast<float>(x.at(r, c));
    mean /= static_cast<double>(cols);
    for (int64_t c = 0; c < cols; ++c) {
      const double dv = static_cast<float>(x.at(r, c)) - mean;
      var += dv * dv;
    }
    var /= static_cast<double>(cols);
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t c = 0; c < cols; ++c) {
      const double v = (static_cast<float>(x.at(r, c)) - mean) * rstd * static_cast<float>(gamma.at(0, c)) + static_cast<float>(beta.at(0, c));
      y.at(r, c) = T(static_cast<float>(v));
    }
  }
}

/// Absolute tolerance for outputs of magnitude up to ~8: float rounding of the fused arithmetic,
/// or one unit in the last place of a 16-bit result.
template <class T>
constexpr double tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  if constexpr (std::is_same_v<T, half>) return 8e-3;
  return 3.2e-2;
}

/// What `pto tune layernorm` searches.
struct Tunables {
  BOOST_HANA_DEFINE_STRUCT(Tunables,
    (KeyValues<int, 1, 2, 4, 8, 16, 24, 32, 40, 48>, block_dim),
    (KeyField<int, 1, 3>, buffers),
    (KeyValues<int, 0, 1, 2, 4, 8, 16>, rows_per_tile));
};

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "layernorm";
  info.about = "layer normalisation of [rows, cols] with a runtime epsilon and [1, cols] gamma / beta; float, half, bfloat16";
  info.default_shape = {1024, 1024};
  info.tunables = tune_space_of<Tunables>();
  info.prepare = [](const SampleArgs& a) {
    return dispatch_float_dtype(a.dtype, [&]<class T>() {
      PTO_USER_CHECK(a.shape.size() == 2, ErrorSite{}) << "layernorm takes a 2-D --shape ROWSxCOLS";
      Params p{static_cast<int>(a.param("buffers", 2)), a.param("rows_per_tile", 0), a.chip};
      PTO_USER_CHECK(p.buffers >= 1 && p.buffers <= 16, ErrorSite{}) << "--param buffers must be 1..16";
      const std::string eps_text = a.text_param("eps", "1e-5");
      float eps = 0;
      try {
        eps = std::stof(eps_text);
      } catch (const std::exception&) {
        throw UserError("--param eps=" + eps_text + " is not a number", {});
      }
      PTO_USER_CHECK(eps > 0, ErrorSite{}) << "--param eps must be positive";
      auto kernel = std::make_shared<decltype(make_kernel<T>(p))>(make_kernel<T>(p));
      const int64_t cols = a.shape[1];
      auto x = Tensor<T>::random(a.shape, 5, -3.0, 5.0);
      auto gamma = Tensor<T>::random({1, cols}, 6, 0.5, 1.5), beta = Tensor<T>::random({1, cols}, 7, -1.0, 1.0);
      auto y = Tensor<T>::zeros(a.shape);
      const int bd = a.block_dim;
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd}](x, gamma, beta, y, eps); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd}].run_sync(x, gamma, beta, y, eps); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd}].compile(x, gamma, beta, y, eps); };
      run.native_about = "a TBB loop over rows of native::layernorm_row (GCC -O3 -ffast-math, AVX-512/AVX2 clones; half and "
                         "bfloat16 widened and rounded back, counted in its time)";
      run.native = [=, gs = std::vector<float>(), bs = std::vector<float>()]() mutable {  // kept between calls
        const float* g = as_float(gamma.data(), cols, gs);
        const float* b = as_float(beta.data(), cols, bs);
        native::for_each_row(x.data(), y.data(), x.dim(0), cols,
                             [&](const float* in, float* out, int64_t) { native::layernorm_row(in, g, b, out, cols, eps); });
      };
      run.verify = [=] {
        auto want = Tensor<T>::zeros(a.shape);
        reference(x, gamma, beta, eps, want);
        Verdict v;
        v.tolerance = tolerance<T>();
        v.max_abs_error = max_abs_diff(y, want);
        v.ok = v.max_abs_error <= v.tolerance;
        return v;
      };
      run.gm_bytes = 2 * static_cast<int64_t>(x.bytes()) + 2 * static_cast<int64_t>(gamma.bytes());
      run.flops = 8.0 * static_cast<double>(x.numel());
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::layernorm
