// pl::cast with PyPTO Pro's RoundMode (and the destination form pl::cast(out, src), whose default is
// PyPTO Pro's CAST_ROUND) against a plain reference that rounds on the target's grid in double:
// ties, directed roundings, overflow, subnormals, NaN, integers past f32's 24 bits, f32 -> f32.
#include "common.hpp"

namespace pto::correctness {
namespace {

using Mode = pl::RoundMode;
constexpr Mode kModes[] = {Mode::CAST_NONE, Mode::CAST_RINT, Mode::CAST_ROUND, Mode::CAST_FLOOR, Mode::CAST_CEIL, Mode::CAST_TRUNC, Mode::CAST_ODD};
constexpr int64_t kModeCount = 7;

struct Grid {  // a float format: significand bits (with the leading one), least normal exponent, largest finite
  int bits;
  int min_exp;
  double max;
};
constexpr Grid kF16{11, -14, 65504.0}, kBF16{8, -126, 3.3895313892515355e38}, kF32{24, -126, 3.4028234663852886e38};

/// x (exact in double) rounded to `g` by `m` (already resolved: no CAST_NONE), in double.
double round_to_grid(double x, const Grid& g, Mode m) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double a = std::fabs(x);
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the leading bit is 2^(e - 1)
  const double ulp = std::ldexp(1.0, std::max(e - 1, g.min_exp) - (g.bits - 1));
  const double q = a / ulp;  // exact: a power-of-two scaling
  const bool neg = x < 0;
  double n = 0;
  switch (m) {
    case Mode::CAST_RINT: n = std::nearbyint(q); break;
    case Mode::CAST_ROUND: n = std::floor(q + 0.5); break;
    case Mode::CAST_FLOOR: n = neg ? std::ceil(q) : std::floor(q); break;
    case Mode::CAST_CEIL: n = neg ? std::floor(q) : std::ceil(q); break;
    case Mode::CAST_TRUNC: n = std::floor(q); break;
    case Mode::CAST_ODD: n = std::floor(q); if (n != q && std::fmod(n, 2.0) == 0) n += 1; break;
    default: FAIL("mode");
  }
  double r = n * ulp;
  if (r > g.max) {  // past the largest finite: inf when rounding away from zero, else the largest
    const bool away = m == Mode::CAST_RINT || m == Mode::CAST_ROUND || (m == Mode::CAST_CEIL && !neg) || (m == Mode::CAST_FLOOR && neg);
    r = away ? std::numeric_limits<double>::infinity() : g.max;
  }
  return neg ? -r : r;
}

/// PyPTO Pro's table: CAST_NONE and (except f32 -> f16) CAST_ODD round to nearest even between floats.
Mode resolved(Mode m, bool f32_to_f16) {
  if (m == Mode::CAST_NONE) return Mode::CAST_RINT;
  if (m == Mode::CAST_ODD && !f32_to_f16) return Mode::CAST_RINT;
  return m;
}

/// Float -> integer: to an integral value by the mode (CAST_NONE and CAST_ODD truncate), then saturated.
int64_t round_to_int(float f, Mode m, int64_t lo, int64_t hi) {
  if (std::isnan(f)) return 0;
  double r = 0;
  switch (m) {
    case Mode::CAST_RINT: r = std::nearbyint(static_cast<double>(f)); break;
    case Mode::CAST_ROUND: r = std::round(static_cast<double>(f)); break;
    case Mode::CAST_FLOOR: r = std::floor(static_cast<double>(f)); break;
    case Mode::CAST_CEIL: r = std::ceil(static_cast<double>(f)); break;
    default: r = std::trunc(static_cast<double>(f)); break;
  }
  return static_cast<int64_t>(std::clamp(r, static_cast<double>(lo), static_cast<double>(hi)));
}

std::vector<float> float_inputs() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, 2.5f, -2.5f, 3.5f, 1.6f, -1.6f, 0.5f, -0.5f,
                          1.0f + 0x1p-11f,          // halfway between 1 and the next f16
                          -(1.0f + 0x1p-11f), 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-8f,  // a bf16 tie
                          1.0f + 0x1p-12f, 0x1p-25f, -0x1p-25f, 3 * 0x1p-25f, 0x1p-26f,  // f16 subnormal ties and below
                          65504.0f, 65519.0f, 65520.0f, 70000.0f, -70000.0f, 1e30f, -1e38f, 3.4e38f, 2.5e38f, 3.3e38f,
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(), 2147483520.0f, 3e9f, -3e9f, 127.5f, -128.5f, 200.0f};
  auto r = Tensor<float>::random({120}, 31, -300, 300);
  for (int64_t i = 0; i < r.numel(); ++i) v.push_back(r[i]);
  while (v.size() % 8) v.push_back(0.25f);
  return v;
}

/// Row m of out: pl::cast<U>(x, kModes[m]).
template <class T, class U>
auto make_cast_kernel(int64_t n) {
  return pl::jit({.name = "cast_modes_" + type_name<T>() + "_" + type_name<U>()}, [=](pl::Tensor<T> x, pl::Tensor<U> out) {
    auto t = pl::make_tile<T>(pl::Vec, {1, n});
    auto o = pl::make_tile<U>(pl::Vec, {1, n});
    pl::load(t, x.slice(0, 1, 0, n));
    for (int64_t m = 0; m < kModeCount; ++m) {
      o = pl::cast<U>(t, kModes[m]);
      pl::store(out.slice(m, 1, 0, n), o);
    }
  });
}

template <class T, class U>
Tensor<U> run_modes(const std::vector<T>& in) {
  const auto n = static_cast<int64_t>(in.size());
  auto x = Tensor<T>::from({1, n}, in);
  auto out = Tensor<U>::zeros({kModeCount, n});
  make_cast_kernel<T, U>(n)[{.block_dim = 1}].run_sync(x, out);
  return out;
}

template <class U>
bool same_float(U got, double want) {
  const float g = static_cast<float>(got);
  if (std::isnan(want)) return std::isnan(g);
  return g == want && std::signbit(g) == std::signbit(want);
}

template <class U>
void check_float_to_float(const Grid& grid) {
  CAPTURE(type_name<U>());
  const auto in = float_inputs();
  const auto out = run_modes<float, U>(in);
  const auto n = static_cast<int64_t>(in.size());
  int64_t wrong = 0;
  for (int64_t m = 0; m < kModeCount; ++m) {
    const Mode mode = resolved(kModes[m], std::is_same_v<U, half>);
    for (int64_t i = 0; i < n; ++i) {
      const double want = round_to_grid(in[static_cast<size_t>(i)], grid, mode);
      if (!same_float(out[m * n + i], want)) {
        ++wrong;
        MESSAGE(pto::ir::round_mode_name(kModes[m]), " of ", in[static_cast<size_t>(i)], ": got ", static_cast<float>(out[m * n + i]),
                ", want ", want);
      }
    }
  }
  CHECK(wrong == 0);
}

template <class U>
void check_float_to_int(int64_t lo, int64_t hi) {
  CAPTURE(type_name<U>());
  const auto in = float_inputs();
  const auto out = run_modes<float, U>(in);
  const auto n = static_cast<int64_t>(in.size());
  int64_t wrong = 0;
  for (int64_t m = 0; m < kModeCount; ++m) {
    for (int64_t i = 0; i < n; ++i) wrong += static_cast<int64_t>(out[m * n + i]) != round_to_int(in[static_cast<size_t>(i)], kModes[m], lo, hi);
  }
  CHECK(wrong == 0);
}

template <class U>
void check_int_to_float(const Grid& grid) {
  CAPTURE(type_name<U>());
  std::vector<int32_t> in = {0, 1, -1, 2049, -2049, 2051, 4097, 65519, 65520, 65535, 70000, -70000, 16777217, -16777217, 16777219,
                             33554435, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 257, 259, -257, 100};
  while (in.size() % 8) in.push_back(7);
  const auto out = run_modes<int32_t, U>(in);
  const auto n = static_cast<int64_t>(in.size());
  int64_t wrong = 0;
  for (int64_t m = 0; m < kModeCount; ++m) {
    const Mode mode = resolved(kModes[m], false);
    for (int64_t i = 0; i < n; ++i) {
      const double want = round_to_grid(static_cast<double>(in[static_cast<size_t>(i)]), grid, mode);
      if (!same_float(out[m * n + i], want)) {
        ++wrong;
        MESSAGE(pto::ir::round_mode_name(kModes[m]), " of ", in[static_cast<size_t>(i)], ": got ", static_cast<float>(out[m * n + i]),
                ", want ", want);
      }
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("pl::cast with a RoundMode from f32 to f16 and bf16: nearest even (CAST_NONE, CAST_RINT), ties away (CAST_ROUND), "
          "floor, ceil, trunc and round to odd (f32 -> f16 only) on ties, subnormals, overflow, infinities and NaN") {
  check_float_to_float<half>(kF16);
  check_float_to_float<bfloat16>(kBF16);
}

TEST_CASE("pl::cast with a RoundMode from f32 to int32 and int8: rounded to an integral value by the mode (CAST_NONE and "
          "CAST_ODD truncate), then saturated") {
  check_float_to_int<int32_t>(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  check_float_to_int<int8_t>(-128, 127);
}

TEST_CASE("pl::cast with a RoundMode from int32 to f32, f16 and bf16: rounded once on the target's grid (no double rounding "
          "through f32), past 2^24 too") {
  check_int_to_float<float>(kF32);
  check_int_to_float<half>(kF16);
  check_int_to_float<bfloat16>(kBF16);
}

TEST_CASE("PyPTO Pro's destination forms: pl::cast(out, src) rounds with CAST_ROUND by default (ties away), f32 -> f32 rounds "
          "to an integral value, mul_cast's default is CAST_ROUND; the expression pl::cast<U>(x) keeps nearest even") {
  const auto k = pl::jit({.name = "cast_dest"}, [](pl::Tensor<float> x, pl::Tensor<half> h, pl::Tensor<int32_t> i, pl::Tensor<float> f,
                                                    pl::Tensor<half> h_expr, pl::Tensor<half> h_mul) {
    auto t = pl::make_tile<float>(pl::Vec, {1, 8});
    auto th = pl::make_tile<half>(pl::Vec, {1, 16});
    auto ti = pl::make_tile<int32_t>(pl::Vec, {1, 8});
    auto tf = pl::make_tile<float>(pl::Vec, {1, 8});
    pl::load(t, x, {0, 0});
    pl::cast(th, t);
    pl::store(h, th, {0, 0});
    pl::cast(ti, t, pl::RoundMode::CAST_FLOOR);
    pl::store(i, ti, {0, 0});
    pl::cast(tf, t);
    pl::store(f, tf, {0, 0});
    th = pl::cast<half>(t);
    pl::store(h_expr, th, {0, 0});
    auto ones = pl::make_tile<float>(pl::Vec, {1, 8});
    ones = 1.0f;
    pl::mul_cast(th, t, ones);
    pl::store(h_mul, th, {0, 0});
  });
  const std::vector<float> in = {1.0f + 0x1p-11f, -(1.0f + 0x1p-11f), 2.5f, -2.5f, 1.6f, -1.6f, 0.5f, 3.5f};
  auto x = Tensor<float>::from({1, 8}, in);
  auto h = Tensor<half>::zeros({1, 8}), h_expr = Tensor<half>::zeros({1, 8}), h_mul = Tensor<half>::zeros({1, 8});
  auto i = Tensor<int32_t>::zeros({1, 8});
  auto f = Tensor<float>::zeros({1, 8});
  k[{.block_dim = 1}].run_sync(x, h, i, f, h_expr, h_mul);
  int64_t wrong = 0;
  for (int64_t e = 0; e < 8; ++e) {
    const float v = in[static_cast<size_t>(e)];
    wrong += !same_float(h[e], round_to_grid(v, kF16, Mode::CAST_ROUND));
    wrong += !same_float(h_mul[e], round_to_grid(v, kF16, Mode::CAST_ROUND));
    wrong += !same_float(h_expr[e], round_to_grid(v, kF16, Mode::CAST_RINT));
    wrong += i[e] != static_cast<int32_t>(std::floor(v));
    wrong += f[e] != std::round(v);
  }
  CHECK(wrong == 0);
  CHECK(static_cast<float>(h[0]) == 1.0f + 0x1p-10f);  // the tie goes away from zero
  CHECK(static_cast<float>(h_expr[0]) == 1.0f);        // the expression form: to even
}

}  // namespace pto::correctness
