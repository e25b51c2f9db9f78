// Tile views (`tile.view(row, rows, col, cols)`) as operands and destinations of tile expressions,
// against plain C++: windows at constant and runtime offsets, one-column and one-row views that
// broadcast, 1-D views, views of views, every dtype, tails and idle cores; a view write leaves
// the tile's valid extent as it was.
#include "common.hpp"
#include "pto/backend/Math.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kRows = 16, kCols = 64;

/// One [16, 64] block per core (idle cores beyond the blocks): y = 0, then
/// y[4 +: 8, 16 +: 32] = x[2 +: 8, 8 +: 32] + 1 and y[0, :] = x[15, :] * 2 (a one-row window).
template <class T>
auto window_kernel() {
  return pl::jit({.name = "view_window_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> y) {
    auto xt = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    auto yt = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    for (auto b : pl::range(pl::get_block_idx(), x.dim(0) / kRows, pl::get_block_num())) {
      pl::load(xt, x.slice(b * kRows, kRows, 0, kCols));
      yt = 0;
      yt.view(4, 8, 16, 32) = xt.view(2, 8, 8, 32) + 1;
      yt.view(0, 1, 0, kCols) = xt.view(15, 1, 0, kCols) * 2;
      pl::store(y.slice(b * kRows, kRows, 0, kCols), yt);
    }
  });
}

TEST_CASE_TEMPLATE("a view is an operand and a destination at constant offsets, on every dtype and idle cores", T, float, half,
                   bfloat16, int32_t) {
  const auto k = window_kernel<T>();
  for (int64_t blocks : {1, 3}) {
    auto x = pto::Tensor<T>::random({blocks * kRows, kCols}, 11);
    auto y = pto::Tensor<T>::full({blocks * kRows, kCols}, T(7));
    k[{.block_dim = 5}](x, y);  // 5 cores, at most 3 blocks: idle cores
    pto::synchronize();
    for (int64_t b = 0; b < blocks; ++b) {
      for (int64_t r = 0; r < kRows; ++r) {
        for (int64_t c = 0; c < kCols; ++c) {
          const int64_t R = b * kRows + r;
          compute_t<T> want = 0;
          if (r >= 4 && r < 12 && c >= 16 && c < 48) want = widen(x.at(b * kRows + r - 2, c - 8)) + 1;
          if (r == 0) want = widen(x.at(b * kRows + 15, c)) * 2;
          CAPTURE(R);
          CAPTURE(c);
          CHECK(widen(y.at(R, c)) == widen(narrow<T>(want)));
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("row views at runtime offsets (a loop over the rows of a tile with a tail) and broadcasting views", T, float, half,
                   bfloat16) {
  // y[r, :] = exp(x[r, :] - x[r, 0]) * x[0, :]: a row view at runtime offset r, its first element
  // as a one-column view broadcast along the row, and a one-row view (row 0).
  const auto k = pl::jit({.name = "view_rows_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> y) {
    auto xt = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    auto yt = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    const auto rows = x.dim(0);
    for (auto b : pl::range(pl::get_block_idx(), pl::ceil_div(rows, kRows), pl::get_block_num())) {
      auto n = pl::min(kRows, rows - b * kRows);
      pl::load(xt, x.slice(b * kRows, n, 0, kCols));
      for (auto r : pl::range(0, n)) {
        yt.view(r, 1, 0, kCols) = pl::cast<T>(pl::exp(xt.view(r, 1, 0, kCols) - xt.view(r, 1, 0, 1)) * xt.view(0, 1, 0, kCols));
      }
      pl::set_validshape(yt, n, kCols);  // written only through views: its valid extent is declared
      pl::store(y.slice(b * kRows, n, 0, kCols), yt);
    }
  });
  const int64_t rows = 37;  // two full blocks and a tail of 5
  auto x = pto::Tensor<T>::random({rows, kCols}, 12, -2.0, 2.0);
  auto y = pto::Tensor<T>::zeros({rows, kCols});
  k[{.block_dim = 4}](x, y);
  pto::synchronize();
  check_all(
      y,
      [&](int64_t i) {
        const int64_t r = i / kCols, c = i % kCols, b0 = r / kRows * kRows;
        const float d = widen(x.at(r, c)) - widen(x.at(r, 0));
        return narrow<T>(pto::math::exp(d) * widen(x.at(b0, c)));
      },
      kExact, [&](int64_t i) { return show(x[i]); });
}

TEST_CASE("1-D views, views of views, and a view write that leaves the tile's valid extent") {
  const auto k = pl::jit({.name = "view_misc"}, [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
    auto v = pl::make_tile<float>(pl::Vec, {64});
    auto w = pl::make_tile<float>(pl::Vec, {64});
    pl::load(v, x.slice(0, 64));
    w = v;
    w.view(8, 16) = v.view(40, 16) * 10;  // 1-D
    pl::store(y.slice(0, 64), w);
    auto t = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    pl::load(t, z.slice(0, 5, 0, kCols));  // valid extent 5 rows
    t.view(2, 8, 8, 32).view(1, 2, 4, 8) = -1.0f;  // rows 3..4, columns 12..19 (inside the 5 valid rows)
    pl::store(z.slice(8, 5, 0, kCols), t);  // stores the 5 valid rows: the view write kept them at 5
  });
  auto x = pto::Tensor<float>::random({64}, 13);
  auto y = pto::Tensor<float>::zeros({64});
  auto z = pto::Tensor<float>::random({16, kCols}, 14);
  const auto z0 = pto::test::copy_of(z);
  k[{.block_dim = 1}](x, y, z);
  pto::synchronize();
  for (int64_t i = 0; i < 64; ++i) CHECK(y[i] == (i >= 8 && i < 24 ? x[i + 32] * 10 : x[i]));
  for (int64_t r = 0; r < 16; ++r) {
    for (int64_t c = 0; c < kCols; ++c) {
      float want = z0.at(r, c);
      if (r >= 8 && r < 13) want = (r - 8 >= 3 && r - 8 < 5 && c >= 12 && c < 20) ? -1.0f : z0.at(r - 8, c);
      CAPTURE(r);
      CAPTURE(c);
      CHECK(z.at(r, c) == want);
    }
  }
}

}  // namespace
}  // namespace pto::correctness
