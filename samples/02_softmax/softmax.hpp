#pragma once
// Sample 02: numerically stable row softmax of a [rows, cols] tensor.
//
//   y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :])))
//
// A tile holds `rows_per_tile` whole rows (the column count padded to the 32-byte UB block);
// blocks of rows are spread over cores by strided assignment, the last block may be short.
// Half and bfloat16 inputs are widened to float for the arithmetic and rounded once at the end.
#include <cmath>
#include <numeric>

#include <tbb/parallel_for.h>

#include "../common/Sample.hpp"
#include "../common/native/NativeKernels.hpp"
#include "../common/native/NativeRows.hpp"

namespace pto::samples::softmax {

namespace pl = pto::lang;

struct Params {
  int buffers = 2;                      // slots of the input and output tile groups
  int64_t rows_per_tile = 0;            // 0: as many rows as fit the UB
  SyncMode sync = SyncMode::automatic;  // auto_mutex, hand-written flags, or none (racy on purpose)
  std::string chip = "a2";
};

/// Whole rows of `cols` that fit `ub_bytes` with the given buffering (0: not even one).
template <class T>
int64_t rows_in_ub(int64_t cols, int buffers, int64_t ub_bytes) {
  const int64_t per_row = 2 * buffers * padded_cols<T>(cols) * static_cast<int64_t>(sizeof(T))  // x and y slots
                          + padded_cols<float>(cols) * 4                                         // exp in float
                          + 2 * 4;                                                               // max and sum
  return std::max<int64_t>(0, (ub_bytes - 256) / per_row);
}

/// Rows per tile that fit `ub_bytes` with the given buffering (at least one: the sample kernel
/// walks a row too wide for the UB in column chunks, softmax_in_chunks).
template <class T>
int64_t fitting_rows(int64_t rows, int64_t cols, int buffers, int64_t ub_bytes) {
  return std::max<int64_t>(1, std::min<int64_t>({rows, 64, rows_in_ub<T>(cols, buffers, ub_bytes)}));
}

/// The body both the sample kernel and the operator's kernel trace: softmax over `row_blocks`
/// blocks of `r_tile` rows (a runtime count for the operator, a constant for the sample).
template <class T>
void softmax_rows(const pl::Tensor<T>& x, const pl::Tensor<T>& y, const pl::Int& row_blocks, int64_t r_tile, int buffers,
                  SyncMode sync) {
  const pl::Int rows = x.extent(0);  // a constant, unless the kernel declares the rows pl::DYNAMIC
  const int64_t cols = x.dim(1);
  std::vector<int> slots(buffers);
  std::iota(slots.begin(), slots.end(), 0);
  auto xs = pl::make_tile_group<T>(pl::Vec, {r_tile, padded_cols<T>(cols)}, slots);    // (R, C) x buffers
  auto ys = pl::make_tile_group<T>(pl::Vec, {r_tile, padded_cols<T>(cols)}, slots);
  auto e = pl::make_tile<float>(pl::Vec, {r_tile, padded_cols<float>(cols)});           // (R, C) exp(x - max)
  auto mx = pl::make_tile<float>(pl::Vec, {r_tile, 1});                                 // (R, 1) row max
  auto sum = pl::make_tile<float>(pl::Vec, {r_tile, 1});                                // (R, 1) row sum
  const bool manual = sync == SyncMode::manual;
  using pl::Pipe;
  if (manual) {
    for (int s = 0; s < buffers; ++s) {
      pl::set_flag(Pipe::V, Pipe::MTE2, s);  // x slot s may be loaded
      pl::set_flag(Pipe::MTE3, Pipe::V, s);  // y slot s may be written
    }
  }
  for (auto t : pl::range(pl::get_block_idx(), row_blocks, pl::get_block_num())) {
    auto r0 = t * r_tile;
    auto nr = pl::min(r_tile, rows - r0);                                               // tail block: fewer rows
    auto s = xs.slot();
    if (manual) pl::wait_flag(Pipe::V, Pipe::MTE2, s);
    pl::load(xs.current(), x.slice(r0, nr, 0, cols));
    if (manual) {
      pl::set_flag(Pipe::MTE2, Pipe::V, s);
      pl::wait_flag(Pipe::MTE2, Pipe::V, s);
    }
    pl::row_max(mx, pl::cast<float>(xs.current()));
    e = pl::exp(pl::cast<float>(xs.current()) - mx);                                    // (R,1) broadcasts along rows
    if (manual) pl::set_flag(Pipe::V, Pipe::MTE2, s);                                   // x[s] read for the last time
    pl::row_sum(sum, e);
    if (manual) pl::wait_flag(Pipe::MTE3, Pipe::V, s);                                  // y[s] stored last time
    ys.current() = pl::cast<T>(e / sum);
    if (manual) {
      pl::set_flag(Pipe::V, Pipe::MTE3, s);
      pl::wait_flag(Pipe::V, Pipe::MTE3, s);
    }
    pl::store(y.slice(r0, nr, 0, cols), ys.current());
    if (manual) pl::set_flag(Pipe::MTE3, Pipe::V, s);
    xs.next();
    ys.next();
  }
  if (manual) {
    for (int s = 0; s < buffers; ++s) {
      pl::wait_flag(Pipe::V, Pipe::MTE2, s);
      pl::wait_flag(Pipe::MTE3, Pipe::V, s);
    }
  }
}

/// Rows wider than the UB holds (a vocabulary's logits, tens of thousands of columns): blocks of
/// r_tile rows, each pass over the row in chunks of `cc` columns (widest_chunk): the chunks' row
/// maxima give the row max, then the sums of their exps the row sum, then each chunk's exps are
/// divided by it and stored. x is read from GM three times and exp computed twice (256 x 32000:
/// f32 0.48 of the native row loop, which computes it once, f16 1.05; `pto bench --vs-native`, one
/// run each); tile groups and auto_mutex order the chunks.
template <class T>
void softmax_in_chunks(const pl::Tensor<T>& x, const pl::Tensor<T>& y, int64_t cc, const Params& p) {
  const int64_t rows = x.dim(0), cols = x.dim(1);
  const int64_t ub = ChipProfile::get(p.chip).limits(pl::Vec).bytes;
  const int64_t r_tile = p.rows_per_tile > 0 ? p.rows_per_tile : fitting_rows<T>(rows, cc, p.buffers, ub);
  std::vector<int> slots(p.buffers);
  std::iota(slots.begin(), slots.end(), 0);
  auto xs = pl::make_tile_group<T>(pl::Vec, {r_tile, padded_cols<T>(cc)}, slots);
  auto ys = pl::make_tile_group<T>(pl::Vec, {r_tile, padded_cols<T>(cc)}, slots);
  auto e = pl::make_tile<float>(pl::Vec, {r_tile, padded_cols<float>(cc)});  // a chunk's exp(x - max)
  auto mx = pl::make_tile<float>(pl::Vec, {r_tile, 1});
  auto sum = pl::make_tile<float>(pl::Vec, {r_tile, 1});
  auto part = pl::make_tile<float>(pl::Vec, {r_tile, 1});  // a chunk's row max or sum
  const int64_t chunks = (cols + cc - 1) / cc;
  for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, r_tile), pl::get_block_num())) {
    auto r0 = t * r_tile;
    auto nr = pl::min(r_tile, rows - r0);
    // Chunk k of the block's rows, then use(x as float, its columns).
    auto chunk = [&](const pl::Int& k, auto&& use) {
      load_chunk(x, xs, r0, nr, k, cc, [&](const auto& xt, const pl::Int& c0, const pl::Int& clen) { use(pl::cast<float>(xt), c0, clen); });
    };
    total_over_chunks(
        chunks, chunk, mx, part, [](const pl::Tile<float>& into, const auto& xin) { pl::row_max(into, xin); },
        [](pl::Tile<float>& total, const pl::Tile<float>& more) { total = pl::max(total, more); });
    total_over_chunks(
        chunks, chunk, sum, part,
        [&](const pl::Tile<float>& into, const auto& xin) {
          e = pl::exp(xin - mx);
          pl::row_sum(into, e);
        },
        [](pl::Tile<float>& total, const pl::Tile<float>& more) { total = total + more; });
    for (auto k : pl::range(chunks)) {
      chunk(k, [&](const auto& xin, const pl::Int& c0, const pl::Int& clen) {
        e = pl::exp(xin - mx);
        auto yt = ys.next();
        yt = pl::cast<T>(e / sum);
        pl::store(y.slice(r0, nr, c0, clen), yt);
      });
    }
  }
}

template <class T>
auto make_kernel(Params p) {
  return pl::jit(jit_options("softmax", p.sync, p.chip), [p](pl::Tensor<T> x, pl::Tensor<T> y) {
    pl::require(x.rank() == 2 && x.shape() == y.shape(), "softmax takes two 2-D tensors of the same shape");
    const int64_t rows = x.dim(0), cols = x.dim(1);
    const int64_t ub = ChipProfile::get(p.chip).limits(pl::Vec).bytes;
    if (rows_in_ub<T>(cols, p.buffers, ub) == 0) {
      pl::require(p.sync == SyncMode::automatic, "rows wider than the UB holds are walked in column chunks, ordered by auto_mutex only: "
                                                 "use sync=auto");
      return softmax_in_chunks<T>(x, y, widest_chunk(cols, [&](int64_t w) { return rows_in_ub<T>(w, p.buffers, ub); }), p);
    }
    const int64_t r_tile = p.rows_per_tile > 0 ? p.rows_per_tile : fitting_rows<T>(rows, cols, p.buffers, ub);
    softmax_rows<T>(x, y, pl::ceil_div(rows, r_tile), r_tile, p.buffers, p.sync);
  });
}

template <class T>
void reference(const Tensor<T>& x, Tensor<T>& y) {
  const int64_t rows = x.dim(0), cols = x.dim(1);
  std::vector<float> e(cols);
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, static_cast<float>(x.at(r, c)));
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += e[c] = std::exp(static_cast<float>(x.at(r, c)) - m);
    for (int64_t c = 0; c < cols; ++c) y.at(r, c) = T(e[c] / static_cast<float>(s));
  }
}

/// Absolute tolerance on outputs in [0, 1]: a few units in the last place of T.
template <class T>
constexpr double tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-6;
  if constexpr (std::is_same_v<T, half>) return 1e-3;
  return 8e-3;
}

template <class T>
const pto::Op<pto::Tensor<T>, pto::Tensor<T>>& softmax_op();

/// What `pto tune softmax` searches: rows_per_tile 0 lets the kernel fit as many rows as the UB holds.
struct Tunables {
  BOOST_HANA_DEFINE_STRUCT(Tunables,
    (KeyValues<int, 1, 2, 4, 8, 16, 24, 32, 40, 48>, block_dim),
    (KeyField<int, 1, 4>, buffers),
    (KeyValues<int, 0, 1, 2, 4, 8, 16, 32>, rows_per_tile));
};

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "softmax";
  info.about = "row softmax of [rows, cols]: row max, exp, row sum, divide; float, half, bfloat16";
  info.default_shape = {1024, 1024};
  info.tunables = tune_space_of<Tunables>();
  info.prepare = [](const SampleArgs& a) {
    return dispatch_float_dtype(a.dtype, [&]<class T>() {
      PTO_USER_CHECK(a.shape.size() == 2, ErrorSite{}) << "softmax takes a 2-D --shape ROWSxCOLS";
      Params p{static_cast<int>(a.param("buffers", 2)), a.param("rows_per_tile", 0), parse_sync(a.text_param("sync", "auto")), a.chip};
      PTO_USER_CHECK(p.buffers >= 1 && p.buffers <= 16, ErrorSite{}) << "--param buffers must be 1..16";
      auto kernel = std::make_shared<decltype(make_kernel<T>(p))>(make_kernel<T>(p));
      auto x = Tensor<T>::random(a.shape, 7, -4.0, 4.0);
      auto y = Tensor<T>::zeros(a.shape);
      const int bd = a.block_dim;
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd}](x, y); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd}].run_sync(x, y); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd}].compile(x, y); };
      run.verify = [=] {
        auto want = Tensor<T>::zeros(a.shape);
        reference(x, want);
        Verdict v;
        v.tolerance = tolerance<T>();
        v.max_abs_error = max_abs_diff(y, want);
        v.ok = v.max_abs_error <= v.tolerance;
        return v;
      };
      run.native_about = "a TBB loop over rows of native::softmax_row (GCC -O3 -ffast-math, AVX-512/AVX2 clones, libmvec expf); "
                         "half and bfloat16 rows widened to float and rounded back, counted in its time";
      run.native = [=]() mutable {
        const int64_t cols = x.dim(1);
        native::for_each_row(x.data(), y.data(), x.dim(0), cols, [&](const float* in, float* out, int64_t) { native::softmax_row(in, out, cols); });
      };
      run.gm_bytes = 2 * static_cast<int64_t>(x.bytes());
      run.op_launch = [=] { softmax_op<T>()(x, y); };
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::softmax

#include "softmax_op.hpp"  // the operator the sample also offers (pto bench softmax --op)
