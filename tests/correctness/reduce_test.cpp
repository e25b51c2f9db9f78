// Row reductions (row_sum, row_max, row_min) on 2-D tiles, with plain and fused sources, wider
// float accumulators, tail row blocks and unpadded column counts, and (R, 1) broadcast.
#include <bit>
#include <cmath>
#include <limits>

#include "common.hpp"

namespace pto::correctness {
namespace {

enum class Red { Sum, Max, Min };

const char* red_name(Red r) { return r == Red::Sum ? "row_sum" : (r == Red::Max ? "row_max" : "row_min"); }

/// Elements of a 32-byte block of T (the UB row alignment).
template <class T>
constexpr int64_t block_elems() {
  return 32 / static_cast<int64_t>(sizeof(T));
}

template <class T>
constexpr int64_t padded(int64_t cols) {
  return (cols + block_elems<T>() - 1) / block_elems<T>() * block_elems<T>();
}

/// out[r, :] = reduce_c src(x)[r, c], broadcast over a 32-byte row: out = zeros + red (R, 1).
/// `fused` reduces abs(x - 1) * 2 instead of x. U is the result dtype (T or float).
template <class T, class U>
auto make_reduce_kernel(Red op, bool fused, int64_t rows_per_tile) {
  return pl::jit({.name = std::string(red_name(op)) + "_" + type_name<T>() + "_to_" + type_name<U>()},
                 [=](pl::Tensor<T> x, pl::Tensor<U> zeros, pl::Tensor<U> out) {
    const int64_t rows = x.dim(0), cols = x.dim(1);
    constexpr int64_t W = block_elems<U>();
    pl::require(zeros.dim(0) == rows && zeros.dim(1) == W && out.shape() == zeros.shape(), "zeros, out: [rows, 32 B]");
    auto xs = pl::make_tile<T>(pl::Vec, {rows_per_tile, padded<T>(cols)});
    auto zs = pl::make_tile<U>(pl::Vec, {rows_per_tile, W});
    auto os = pl::make_tile<U>(pl::Vec, {rows_per_tile, W});
    auto red = pl::make_tile<U>(pl::Vec, {rows_per_tile, 1});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, rows_per_tile), pl::get_block_num())) {
      auto r0 = t * rows_per_tile;
      auto nr = pl::min(rows_per_tile, rows - r0);
      pl::load(xs, x.slice(r0, nr, 0, cols));
      pl::load(zs, zeros.slice(r0, nr, 0, W));
      auto reduce = [&](const auto& src) {
        if (op == Red::Sum) pl::row_sum(red, src);
        if (op == Red::Max) pl::row_max(red, src);
        if (op == Red::Min) pl::row_min(red, src);
      };
      if constexpr (std::is_same_v<T, U>) {
        if (fused) reduce(pl::abs(xs - 1) * 2);
        else reduce(xs);
      } else {
        if (fused) reduce(pl::abs(pl::cast<U>(xs) - 1) * 2);
        else reduce(pl::cast<U>(xs));
      }
      os = zs + red;  // (R, 1) broadcast along each row
      pl::store(out.slice(r0, nr, 0, W), os);
    }
  });
}

/// The reference of one row, in double (sum) or exactly (max, min), and the bound of the
/// float-accumulation error of a sum over `cols` elements in any order.
template <class T, class U>
void check_reduce(Red op, bool fused, int64_t rows, int64_t cols, int64_t rows_per_tile, int block_dim, double lo, double hi) {
  CAPTURE(std::string(red_name(op)));
  CAPTURE(type_name<T>());
  CAPTURE(type_name<U>());
  CAPTURE(fused);
  CAPTURE(rows);
  CAPTURE(cols);
  const auto k = make_reduce_kernel<T, U>(op, fused, rows_per_tile);
  auto x = pto::Tensor<T>::random({rows, cols}, 31, lo, hi);
  constexpr int64_t W = block_elems<U>();
  auto zeros = pto::Tensor<U>::zeros({rows, W});
  auto out = pto::Tensor<U>::full({rows, W}, U(7));
  k[{.block_dim = block_dim}](x, zeros, out);
  pto::synchronize();

  int64_t bad = 0;
  std::string first;
  for (int64_t r = 0; r < rows; ++r) {
    using C = compute_t<U>;
    double sum = 0, sum_abs = 0;
    C mx = std::numeric_limits<C>::lowest(), mn = std::numeric_limits<C>::max();
    if constexpr (is_float_v<U>) {
      mx = -std::numeric_limits<float>::infinity();
      mn = std::numeric_limits<float>::infinity();
    }
    int32_t isum = 0;
    float lane[8] = {};  // docs/semantics.md: column c adds to lane c % 8 in column order, then a fixed tree
    for (int64_t c = 0; c < cols; ++c) {
      // The element as the kernel's source expression produces it (computed in float / int32).
      C v = widen(convert<U>(x.at(r, c)));
      if (fused) {
        if constexpr (is_float_v<U>) {
          v = std::fabs(v - 1) * 2;
        } else {
          const int32_t d = wrap_sub(v, 1);
          v = wrap_mul(d < 0 ? wrap_neg(d) : d, 2);
        }
      }
      if constexpr (is_float_v<U>) {
        mx = ref_max(mx, v);
        mn = ref_min(mn, v);
        lane[c % 8] += v;
      } else {
        mx = std::max(mx, v);
        mn = std::min(mn, v);
        isum = wrap_add(isum, v);
      }
      sum += static_cast<double>(v);
      sum_abs += std::fabs(static_cast<double>(v));
    }
    for (int64_t c = 0; c < W; ++c) {
      const U got = out.at(r, c);
      bool ok;
      U want;
      if (op == Red::Sum) {
        if constexpr (is_float_v<U>) {
          // Bit for bit the sum in the defined order, rounded once to U; and that order is close to
          // the exact sum: |error| <= (cols - 1) eps sum|v|, then one rounding to U.
          want = narrow<U>(((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7])));
          const double tol = static_cast<double>(cols) * std::numeric_limits<float>::epsilon() * sum_abs +
                             std::fabs(sum) * (std::is_same_v<U, float> ? 0x1p-24 : std::is_same_v<U, half> ? 0x1p-11 : 0x1p-8);
          ok = matches(got, want, kExact) && std::fabs(static_cast<double>(static_cast<float>(got)) - sum) <= tol;
        } else {
          want = convert<U>(isum);  // fits: the tests keep integer sums in range
          ok = got == want;
        }
      } else {
        want = narrow<U>(op == Red::Max ? mx : mn);
        ok = matches(got, want, kExact);
      }
      if (!ok) {
        if (bad < 4) first += "\n  row " + std::to_string(r) + " col " + std::to_string(c) + ": got " + show(got) + ", want " + show(want);
        ++bad;
      }
    }
  }
  INFO("mismatches:" << first);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("row_sum, row_max and row_min reduce each row of a tile, with tail row blocks and unpadded columns", T, float,
                   half, bfloat16) {
  for (Red op : {Red::Sum, Red::Max, Red::Min}) {
    for (bool fused : {false, true}) {
      check_reduce<T, T>(op, fused, 37, 100, 8, 3, -4, 4);  // 5 row blocks, the last of 5 rows; 100 columns
    }
  }
  // Aligned rows and columns, 48 cores.
  check_reduce<T, T>(Red::Sum, false, 64, 256, 16, 48, 0, 1);
  // The JIT sums four rows side by side, then the last one to three together: tiles of 6 and 7
  // rows (a group of four, then two or three; the 37-row case above ends on one), over two
  // chunks of 256 columns with a tail of lanes.
  for (int64_t rows_per_tile : {6, 7}) {
    for (bool fused : {false, true}) check_reduce<T, T>(Red::Sum, fused, 21, 300, rows_per_tile, 2, -2, 2);
  }
}

TEST_CASE("float row_max / row_min skip NaNs and break +0/-0 ties as documented, in any lane (JIT and interpreter alike)") {
  // The JIT runs max/min in 64 lanes folded to 8 (order-free), over chunks of 256 columns; the
  // result must not depend on the lane a special lands in: columns 1..300 put NaN, -0, +0 and
  // infinities in every lane position, in one chunk and across two, with and without a tail.
  for (int64_t cols : {int64_t{1}, int64_t{31}, int64_t{45}, int64_t{77}, int64_t{128}, int64_t{150}, int64_t{300}}) {
    const int64_t rows = 12;
    auto x = pto::Tensor<float>::random({rows, cols}, 5, -3, 3);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t k = (r * 7 + c * 3) % 11;
        if (r == 0) x.at(r, c) = nan;                            // a row of NaNs: -inf (max) / +inf (min)
        else if (r == 1) x.at(r, c) = (c % 2) ? 0.0f : -0.0f;   // only zeros: +0 (max) / -0 (min)
        else if (k == 0) x.at(r, c) = nan;
        else if (k == 1) x.at(r, c) = -0.0f;
        else if (k == 2 && r % 3 == 0) x.at(r, c) = (r % 2) ? inf : -inf;
      }
    }
    for (Red op : {Red::Max, Red::Min}) {
      CAPTURE(cols);
      CAPTURE(red_name(op));
      const auto kernel = make_reduce_kernel<float, float>(op, false, 4);
      auto zeros = pto::Tensor<float>::zeros({rows, 8});  // -0: -0 + red is red, the sign of a zero kept
      for (int64_t i = 0; i < zeros.numel(); ++i) zeros[i] = -0.0f;
      auto out = pto::Tensor<float>::zeros({rows, 8});
      kernel[{.block_dim = 2}](x, zeros, out);
      pto::synchronize();
      for (int64_t r = 0; r < rows; ++r) {
        float want = op == Red::Max ? -inf : inf;
        for (int64_t c = 0; c < cols; ++c) {
          const float v = x.at(r, c);
          if (std::isnan(v)) continue;
          if (v == want) {  // a tie: max ANDs the bits (+0 wins), min ORs them (-0 wins)
            const uint32_t a = std::bit_cast<uint32_t>(v), b = std::bit_cast<uint32_t>(want);
            want = std::bit_cast<float>(op == Red::Max ? (a & b) : (a | b));
          } else if (op == Red::Max ? v > want : v < want) {
            want = v;
          }
        }
        CAPTURE(r);
        CHECK(std::bit_cast<uint32_t>(out.at(r, 0)) == std::bit_cast<uint32_t>(want));
      }
    }
  }
}

TEST_CASE_TEMPLATE("row reductions of 16-bit sources into a float destination accumulate and round in float", T, half, bfloat16) {
  for (Red op : {Red::Sum, Red::Max, Red::Min}) {
    check_reduce<T, float>(op, false, 21, 300, 4, 7, -2, 2);
    check_reduce<T, float>(op, true, 21, 300, 4, 7, -2, 2);
  }
}

TEST_CASE("row reductions of int32 are exact and row_sum wraps like int32") {
  for (Red op : {Red::Sum, Red::Max, Red::Min}) {
    for (bool fused : {false, true}) {
      check_reduce<int32_t, int32_t>(op, fused, 19, 72, 8, 4, -1e6, 1e6);
    }
  }
  // Sums past INT32_MAX wrap: 64 columns of ~1e9.
  check_reduce<int32_t, int32_t>(Red::Sum, false, 9, 64, 8, 2, 5e8, 2e9);
}

TEST_CASE("row reductions of int8 are exact: max/min over the full range, sums that fit int8, and sums into float") {
  check_reduce<int8_t, int8_t>(Red::Max, false, 13, 96, 8, 3, -128, 127);
  check_reduce<int8_t, int8_t>(Red::Min, false, 13, 96, 8, 3, -128, 127);
  check_reduce<int8_t, int8_t>(Red::Sum, false, 13, 40, 8, 3, -3, 3);  // |sum| <= 120
  // Into float: the int32 accumulator converted once, no int8 overflow.
  check_reduce<int8_t, float>(Red::Sum, false, 13, 200, 8, 3, -128, 127);
  check_reduce<int8_t, float>(Red::Max, true, 13, 200, 8, 3, -128, 127);
}

TEST_CASE_TEMPLATE("x - row_max(x) broadcasts an (R, 1) tile along rows and rounds once (exact)", T, float, half, bfloat16) {
  const int64_t rows = 29, cols = 45;
  const auto k = pl::jit({.name = "minus_row_max"}, [](pl::Tensor<T> x, pl::Tensor<T> y) {
    const int64_t r = x.dim(0), c = x.dim(1), rt = 4;
    auto xs = pl::make_tile<T>(pl::Vec, {rt, padded<T>(c)});
    auto ys = pl::make_tile<T>(pl::Vec, {rt, padded<T>(c)});
    auto mx = pl::make_tile<float>(pl::Vec, {rt, 1});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(r, rt), pl::get_block_num())) {
      auto nr = pl::min(rt, r - t * rt);
      pl::load(xs, x.slice(t * rt, nr, 0, c));
      pl::row_max(mx, pl::cast<float>(xs));
      ys = pl::cast<T>(mx - pl::cast<float>(xs) * 3);  // the broadcast operand first
      pl::store(y.slice(t * rt, nr, 0, c), ys);
    }
  });
  auto x = pto::Tensor<T>::random({rows, cols}, 41, -10, 10);
  auto y = pto::Tensor<T>::zeros({rows, cols});
  k[{.block_dim = 6}](x, y);
  pto::synchronize();
  std::vector<float> row_max(rows, -std::numeric_limits<float>::infinity());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) row_max[r] = std::max(row_max[r], static_cast<float>(x.at(r, c)));
  check_all(y, [&](int64_t i) {
    const int64_t r = i / cols;
    const float p = static_cast<float>(x[i]) * 3.0f;
    return T(row_max[r] - p);
  });
}

TEST_CASE_TEMPLATE("row softmax (row_max, exp, row_sum, divide by the (R, 1) sum) matches plain C++", T, float, half, bfloat16) {
  const int64_t rows = 50, cols = 77;
  const auto k = pl::jit({.name = "softmax"}, [](pl::Tensor<T> x, pl::Tensor<T> y) {
    const int64_t r = x.dim(0), c = x.dim(1), rt = 8;
    auto xs = pl::make_tile_group<T>(pl::Vec, {rt, padded<T>(c)}, {0, 1});
    auto ys = pl::make_tile_group<T>(pl::Vec, {rt, padded<T>(c)}, {0, 1});
    auto e = pl::make_tile<float>(pl::Vec, {rt, padded<float>(c)});
    auto mx = pl::make_tile<float>(pl::Vec, {rt, 1});
    auto sum = pl::make_tile<float>(pl::Vec, {rt, 1});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(r, rt), pl::get_block_num())) {
      auto r0 = t * rt;
      auto nr = pl::min(rt, r - r0);
      pl::load(xs.current(), x.slice(r0, nr, 0, c));
      pl::row_max(mx, pl::cast<float>(xs.current()));
      e = pl::exp(pl::cast<float>(xs.current()) - mx);
      pl::row_sum(sum, e);
      ys.current() = pl::cast<T>(e / sum);
      pl::store(y.slice(r0, nr, 0, c), ys.current());
      xs.next();
      ys.next();
    }
  });
  auto x = pto::Tensor<T>::random({rows, cols}, 51, -6, 6);
  auto y = pto::Tensor<T>::zeros({rows, cols});
  k[{.block_dim = 4}](x, y);
  pto::synchronize();
  int64_t bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(static_cast<float>(x.at(r, c))));
    for (int64_t c = 0; c < cols; ++c) s += std::exp(static_cast<double>(static_cast<float>(x.at(r, c))) - m);
    for (int64_t c = 0; c < cols; ++c) {
      const double want = std::exp(static_cast<double>(static_cast<float>(x.at(r, c))) - m) / s;
      // float: a few ulp of exp, sum and divide; 16-bit: one rounding to T (relative 2^-11 / 2^-8) plus that.
      const double rel = std::is_same_v<T, float> ? 1e-5 : (std::is_same_v<T, half> ? 0x1p-10 : 0x1p-7);
      if (std::fabs(static_cast<double>(static_cast<float>(y.at(r, c))) - want) > rel * want + 1e-7) ++bad;
    }
  }
  CHECK(bad == 0);
}

}  // namespace pto::correctness

namespace pto::correctness {
namespace {
/// The plain reference of one column reduction step, in the compute type.
template <class T>
compute_t<T> col_step(Red op, compute_t<T> acc, compute_t<T> v) {
  if constexpr (is_float_v<T>) {
    return op == Red::Sum ? acc + v : op == Red::Max ? ref_max(acc, v) : ref_min(acc, v);
  } else {
    return op == Red::Sum ? wrap_add(acc, v) : op == Red::Max ? std::max(acc, v) : std::min(acc, v);
  }
}
template <class T>
compute_t<T> col_init(Red op) {
  using C = compute_t<T>;
  if constexpr (is_float_v<T>) {
    return op == Red::Sum ? 0.0f : op == Red::Max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  } else {
    return op == Red::Sum ? 0 : op == Red::Max ? std::numeric_limits<C>::min() : std::numeric_limits<C>::max();
  }
}
}  // namespace

TEST_CASE_TEMPLATE("column reductions (col_sum/col_max/col_min, PyPTO Pro's sum/max/min with dim=1) reduce each column "
                   "into a {1, cols} tile, the rows in order from the first; x - col_max(x) broadcasts it down the columns",
                   T, float, half, bfloat16, int32_t, int8_t) {
  constexpr int64_t TR = 32, TC = 64;
  const auto k = pl::jit({.name = "col_reduce"}, [](pl::Tensor<T> x, pl::Tensor<T> sums, pl::Tensor<T> maxs, pl::Tensor<T> mins,
                                                     pl::Tensor<float> fused, pl::Tensor<T> centered) {
    const int64_t rows = x.dim(0), cols = x.dim(1);
    auto xs = pl::make_tile<T>(pl::Vec, {TR, TC});
    auto s = pl::make_tile<T>(pl::Vec, {1, TC});
    auto m = pl::make_tile<T>(pl::Vec, {1, TC});
    auto n = pl::make_tile<T>(pl::Vec, {1, TC});
    auto f = pl::make_tile<float>(pl::Vec, {1, TC});
    auto c = pl::make_tile<T>(pl::Vec, {TR, TC});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(cols, TC), pl::get_block_num())) {
      auto c0 = t * TC;
      auto nc = pl::min(TC, cols - c0);
      pl::load(xs, x.slice(0, rows, c0, nc));
      pl::sum(s, xs, xs, 1);  // PyPTO Pro's spelling
      pl::col_max(m, xs);
      pl::min(n, xs, xs, 1);
      pl::col_sum(f, pl::cast<float>(xs) * 0.5f);  // a fused source into a float accumulator
      c = xs - m;                                   // a {1, cols} operand down each column
      pl::store(sums.slice(0, 1, c0, nc), s);
      pl::store(maxs.slice(0, 1, c0, nc), m);
      pl::store(mins.slice(0, 1, c0, nc), n);
      pl::store(fused.slice(0, 1, c0, nc), f);
      pl::store(centered.slice(0, rows, c0, nc), c);
    }
  });
  const auto [lo, hi] = default_range<T>();
  for (const auto& [rows, cols, block_dim] : {std::tuple{int64_t{29}, int64_t{200}, 5}, std::tuple{int64_t{1}, int64_t{64}, 1},
                                              std::tuple{int64_t{32}, int64_t{7}, 3}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto x = test_data<T>({rows, cols}, 97, lo, hi, false);
    auto sums = Tensor<T>::zeros({1, cols}), maxs = Tensor<T>::zeros({1, cols}), mins = Tensor<T>::zeros({1, cols});
    auto fused = Tensor<float>::zeros({1, cols});
    auto centered = Tensor<T>::zeros({rows, cols});
    k[{.block_dim = block_dim}].run_sync(x, sums, maxs, mins, fused, centered);
    int64_t wrong = 0;
    for (int64_t j = 0; j < cols; ++j) {
      compute_t<T> s = col_init<T>(Red::Sum), m = col_init<T>(Red::Max), n = col_init<T>(Red::Min);
      float f = 0;
      for (int64_t i = 0; i < rows; ++i) {
        const auto v = widen(x[i * cols + j]);
        s = col_step<T>(Red::Sum, s, v), m = col_step<T>(Red::Max, m, v), n = col_step<T>(Red::Min, n, v);
        f += static_cast<float>(x[i * cols + j]) * 0.5f;
      }
      const T want[3] = {narrow<T>(s), narrow<T>(m), narrow<T>(n)};
      const T got[3] = {sums[j], maxs[j], mins[j]};
      for (int e = 0; e < 3; ++e) wrong += std::memcmp(&want[e], &got[e], sizeof(T)) != 0;
      wrong += std::bit_cast<uint32_t>(f) != std::bit_cast<uint32_t>(fused[j]);
      for (int64_t i = 0; i < rows; ++i) {
        const T c = narrow<T>(is_float_v<T> ? compute_t<T>(widen(x[i * cols + j]) - widen(want[1]))
                                            : compute_t<T>(static_cast<int32_t>(static_cast<uint32_t>(widen(x[i * cols + j])) -
                                                                                 static_cast<uint32_t>(widen(want[1])))));
        wrong += std::memcmp(&c, &centered[i * cols + j], sizeof(T)) != 0;
      }
    }
    CHECK(wrong == 0);
  }
}

}  // namespace pto::correctness

namespace pto::correctness {
namespace {
/// The plain reference of argmax / argmin over n values read by `at` (in the compute type): the
/// first index of a greater (less) number, NaNs skipped, 0 for an all-NaN run.
template <class T, class At>
int32_t ref_arg(bool want_max, int64_t n, At at) {
  int32_t index = 0;
  bool have = false;
  compute_t<T> best{};
  for (int64_t i = 0; i < n; ++i) {
    const compute_t<T> v = at(i);
    if constexpr (is_float_v<T>) {
      if (std::isnan(v)) continue;
    }
    if (!have || (want_max ? v > best : v < best)) best = v, index = static_cast<int32_t>(i), have = true;
  }
  return index;
}
}  // namespace

TEST_CASE_TEMPLATE("row_argmax/row_argmin/col_argmax/col_argmin (PyPTO Pro's argmax/argmin with dim 0 and 1): int32 indices "
                   "of the first greatest / least element, ties to the first, NaN skipped",
                   T, float, half, bfloat16, int32_t, int8_t) {
  constexpr int64_t TR = 16, TC = 64;
  const auto k = pl::jit({.name = "arg_reduce"}, [](pl::Tensor<T> x, pl::Tensor<int32_t> rmax, pl::Tensor<int32_t> rmin,
                                                     pl::Tensor<int32_t> cmax, pl::Tensor<int32_t> cmin) {
    const int64_t rows = x.dim(0), cols = x.dim(1);
    auto xs = pl::make_tile<T>(pl::Vec, {TR, TC});
    auto rows_out = pl::make_tile<int32_t>(pl::Vec, {TR, 8});  // 8 columns: a 32-byte row to store
    auto r = pl::make_tile<int32_t>(pl::Vec, {TR, 1});
    auto c = pl::make_tile<int32_t>(pl::Vec, {1, TC});
    const int64_t col_tiles = (cols + TC - 1) / TC;
    rows_out = 0;  // every element valid: the {rows, 1} indices broadcast along its rows
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, TR) * col_tiles, pl::get_block_num())) {
      auto r0 = t / col_tiles * TR, c0 = t % col_tiles * TC;
      auto nr = pl::min(TR, rows - r0), nc = pl::min(TC, cols - c0);
      pl::load(xs, x.slice(r0, nr, c0, nc));
      pl::argmax(r, xs, xs);  // PyPTO Pro's spelling, dim 0
      pl::set_validshape(rows_out, nr, 8);
      rows_out = r + 0 * rows_out;
      pl::store(rmax.slice(r0, nr, t % col_tiles * 8, 8), rows_out);
      pl::row_argmin(r, xs);
      rows_out = r + 0 * rows_out;
      pl::store(rmin.slice(r0, nr, t % col_tiles * 8, 8), rows_out);
      pl::argmax(c, xs, xs, 1);
      pl::store(cmax.slice(t / col_tiles, 1, c0, nc), c);
      pl::col_argmin(c, pl::abs(xs));  // a fused source
      pl::store(cmin.slice(t / col_tiles, 1, c0, nc), c);
    }
  });
  for (const auto& [rows, cols, block_dim] : {std::tuple{int64_t{37}, int64_t{150}, 5}, std::tuple{int64_t{16}, int64_t{64}, 1}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    // Few distinct values, so ties are common; floats also get NaNs, infinities and signed zeros.
    auto x = test_data<T>({rows, cols}, 61, -3, 3, true);
    for (int64_t i = 0; i < x.numel(); i += 3) x[i] = T(static_cast<float>(static_cast<int>(widen(x[i])) % 3));
    const int64_t col_tiles = (cols + TC - 1) / TC, row_tiles = (rows + TR - 1) / TR;
    auto rmax = Tensor<int32_t>::zeros({rows, col_tiles * 8}), rmin = Tensor<int32_t>::zeros({rows, col_tiles * 8});
    auto cmax = Tensor<int32_t>::zeros({row_tiles, cols}), cmin = Tensor<int32_t>::zeros({row_tiles, cols});
    k[{.block_dim = block_dim}].run_sync(x, rmax, rmin, cmax, cmin);
    int64_t wrong = 0;
    for (int64_t ct = 0; ct < col_tiles; ++ct) {
      const int64_t c0 = ct * TC, nc = std::min(TC, cols - c0);
      for (int64_t i = 0; i < rows; ++i) {
        auto at = [&](int64_t j) { return widen(x[i * cols + c0 + j]); };
        for (int64_t j = 0; j < 8; ++j) {
          wrong += rmax[i * col_tiles * 8 + ct * 8 + j] != ref_arg<T>(true, nc, at);
          wrong += rmin[i * col_tiles * 8 + ct * 8 + j] != ref_arg<T>(false, nc, at);
        }
      }
    }
    for (int64_t rt = 0; rt < row_tiles; ++rt) {
      const int64_t r0 = rt * TR, nr = std::min(TR, rows - r0);
      for (int64_t j = 0; j < cols; ++j) {
        auto at = [&](int64_t i) { return widen(x[(r0 + i) * cols + j]); };
        auto abs_at = [&](int64_t i) -> compute_t<T> {  // pl::abs in the compute type (int8 -128 gives 128)
          const compute_t<T> v = at(i);
          if constexpr (is_float_v<T>) {
            return std::fabs(v);
          } else {
            return v < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(v)) : v;
          }
        };
        wrong += cmax[rt * cols + j] != ref_arg<T>(true, nr, at);
        wrong += cmin[rt * cols + j] != ref_arg<T>(false, nr, abs_at);
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE_TEMPLATE("a {rows, 1} tile (PyPTO Pro's DN column) loads and stores: row sums stored into a [R, 1] tensor and into "
                   "one column of a wider one, a column loaded back and broadcast along rows; tails and idle cores", T, float, half,
                   int32_t) {
  constexpr int64_t R = 37, C = 32, TR = 8;
  const auto k = pl::jit({.name = "column_tiles_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> sums, pl::Tensor<T> wide,
                                                                       pl::Tensor<T> y) {
    auto t = pl::make_tile<T>(pl::Vec, {TR, C});
    auto s = pl::make_tile<T>(pl::Vec, {TR, 1});
    auto c = pl::make_tile<T>(pl::Vec, {TR, 1});
    for (auto b : pl::range(pl::get_block_idx(), pl::ceil_div(R, TR), pl::get_block_num())) {
      auto r0 = b * TR;
      auto rows = pl::min(TR, R - r0);
      pl::load(t, x.slice(r0, rows, 0, C));
      pl::row_sum(s, t);
      pl::store(sums.slice(r0, rows, 0, 1), s);  // a [R, 1] tensor: one contiguous run
      pl::store(wide.slice(r0, rows, 0, 1), s);  // column 0 of a [R, 4] tensor: one element per GM row
      pl::pipe_barrier(pl::Pipe::ALL);
      pl::load(c, wide.slice(r0, rows, 0, 1));
      t = t - c;  // the column broadcast along each row
      pl::store(y.slice(r0, rows, 0, C), t);
    }
  });
  // Multiples of 1/4 for floats: every sum is exact, whatever order the lanes add in.
  auto x = Tensor<T>::random({R, C}, 61, -100, 100);
  if constexpr (is_float_v<T>) {
    for (int64_t i = 0; i < x.numel(); ++i) x[i] = T(std::round(static_cast<float>(x[i]) / 25.0f) / 4.0f);
  }
  auto sums = Tensor<T>::full({R, 1}, T(5));
  auto wide = Tensor<T>::full({R, 4}, T(5));
  auto y = Tensor<T>::zeros({R, C});
  const LaunchProfile p = k[{.block_dim = 7}].run_sync(x, sums, wide, y);  // 5 row blocks on 7 cores
  CHECK(p.races.empty());
  int64_t wrong = 0;
  for (int64_t r = 0; r < R; ++r) {
    compute_t<T> acc = 0;
    for (int64_t c = 0; c < C; ++c) acc = is_float_v<T> ? acc + widen(x[r * C + c]) : compute_t<T>(wrap_add(int32_t(acc), int32_t(widen(x[r * C + c]))));
    const T sum = narrow<T>(acc);
    wrong += !(sums[r] == sum);
    for (int64_t c = 0; c < 4; ++c) wrong += !(wide[r * 4 + c] == (c == 0 ? sum : T(5)));
    for (int64_t c = 0; c < C; ++c) {
      const compute_t<T> d = widen(x[r * C + c]) - widen(sum);
      wrong += !(y[r * C + c] == narrow<T>(d));
    }
  }
  CHECK(wrong == 0);
}

}  // namespace pto::correctness
