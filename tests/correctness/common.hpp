#pragma once
// Shared helpers of the correctness tests: dtype traits, test data with special values, plain C++
// reference semantics (compute in float or int32, round or wrap once) and element comparison.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <pto/pto.hpp>

#include "common/TensorHelpers.hpp"

namespace pto::correctness {

namespace pl = pto::lang;
using pto::bfloat16;
using pto::half;

template <class T>
inline constexpr bool is_float_v = std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

/// What a vector instruction computes in: float for floating dtypes, int32 for integers.
template <class T>
using compute_t = std::conditional_t<is_float_v<T>, float, int32_t>;

template <class T>
std::string type_name() {
  return std::string(pto::dtype_name(pto::dtype_of<T>));
}

template <class T>
compute_t<T> widen(T v) {
  if constexpr (is_float_v<T>) {
    return static_cast<float>(v);
  } else {
    return static_cast<int32_t>(v);
  }
}

/// A compute value stored to T: rounded once (floats) or wrapped (integers, modulo 2^bits).
template <class T>
T narrow(compute_t<T> v) {
  if constexpr (is_float_v<T>) {
    return T(v);
  } else {
    return static_cast<T>(v);  // C++20: modular conversion
  }
}

// Wrapping int32 arithmetic, as the generated code does (no undefined behaviour here).
inline int32_t wrap_add(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)); }
inline int32_t wrap_sub(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)); }
inline int32_t wrap_mul(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b)); }
inline int32_t wrap_neg(int32_t a) { return wrap_sub(0, a); }
/// x / 0 = 0 and INT_MIN / -1 = INT_MIN (wrapping), otherwise C++ truncating division.
inline int32_t safe_div(int32_t a, int32_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap_neg(a);
  return a / b;
}

/// Conversion semantics of pl::cast<U> on a value of T: via float / int32, round to nearest
/// even between floats, truncation with saturation (nan -> 0) from float to integers,
/// saturation from int32 to int8.
template <class U, class T>
U convert(T v) {
  if constexpr (is_float_v<T>) {
    const float f = static_cast<float>(v);
    if constexpr (is_float_v<U>) {
      return U(f);
    } else {
      constexpr double lo = static_cast<double>(std::numeric_limits<U>::min());
      constexpr double hi = static_cast<double>(std::numeric_limits<U>::max());
      if (std::isnan(f)) return U(0);
      const double t = std::trunc(static_cast<double>(f));
      if (t <= lo) return std::numeric_limits<U>::min();
      if (t >= hi) return std::numeric_limits<U>::max();
      return static_cast<U>(t);
    }
  } else {
    const int32_t i = static_cast<int32_t>(v);
    if constexpr (is_float_v<U>) {
      return U(static_cast<float>(i));
    } else {
      const int32_t lo = std::numeric_limits<U>::min(), hi = std::numeric_limits<U>::max();
      return static_cast<U>(i < lo ? lo : (i > hi ? hi : i));
    }
  }
}

// ----------------------------------------------------------------------------------- comparison

template <class T>
uint32_t bits_of(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return v.bits;
  else return static_cast<uint32_t>(static_cast<int64_t>(v));
}

template <class T>
bool is_nan(T v) {
  if constexpr (is_float_v<T>) return std::isnan(static_cast<float>(v));
  else return false;
}

/// Distance in units in the last place of T between two finite or infinite values of T.
template <class T>
int64_t ulp_distance(T a, T b) {
  static_assert(is_float_v<T>);
  constexpr int width = std::is_same_v<T, float> ? 32 : 16;
  auto ordered = [](uint32_t bits) -> int64_t {
    const uint32_t sign = 1u << (width - 1);
    return (bits & sign) ? -static_cast<int64_t>(bits & (sign - 1)) : static_cast<int64_t>(bits);
  };
  const int64_t d = ordered(bits_of(a)) - ordered(bits_of(b));
  return d < 0 ? -d : d;
}

/// max, min and relu as docs/semantics.md defines them (the plain reference of the tests): a NaN
/// operand gives the other one, +0 is above -0, relu(x) = x > 0 ? x : +0.
inline float ref_max(float a, float b) {
  if (std::isnan(b)) return a;
  if (std::isnan(a)) return b;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float ref_min(float a, float b) {
  if (std::isnan(b)) return a;
  if (std::isnan(a)) return b;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline float ref_relu(float a) { return a > 0 ? a : 0.0f; }

/// How a result is compared with its reference.
struct Tol {
  int ulps = 0;                  // 0: exact (nan matches nan)
  bool zero_sign_free = false;   // +0 and -0 are equal (max/min/relu of signed zeros)
};

inline constexpr Tol kExact{};

template <class T>
bool matches(T got, T want, Tol tol) {
  if constexpr (is_float_v<T>) {
    if (is_nan(want) || is_nan(got)) return is_nan(want) && is_nan(got);
    const float g = static_cast<float>(got), w = static_cast<float>(want);
    if (std::isinf(w) || std::isinf(g)) {
      if (tol.ulps == 0) return bits_of(got) == bits_of(want);
      return ulp_distance(got, want) <= tol.ulps;  // the largest finite value is 1 ulp from inf
    }
    if (g == 0 && w == 0 && (tol.zero_sign_free || tol.ulps > 0)) return true;
    if (tol.ulps == 0) return bits_of(got) == bits_of(want);
    return ulp_distance(got, want) <= tol.ulps;
  } else {
    return got == want;
  }
}

template <class T>
std::string show(T v) {
  std::ostringstream os;
  if constexpr (is_float_v<T>) {
    os.precision(9);
    os << static_cast<float>(v) << " (0x" << std::hex << bits_of(v) << ")";
  } else {
    os << static_cast<int64_t>(v);
  }
  return os.str();
}

/// Checks got[i] against want(i) for every i; reports the count and the first mismatches.
template <class T, class WantFn, class InputFn>
void check_all(const pto::Tensor<T>& got, WantFn want, Tol tol, InputFn describe_input) {
  int64_t bad = 0;
  std::string first;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const T w = want(i);
    if (!matches(got[i], w, tol)) {
      if (bad < 4) first += "\n  [" + std::to_string(i) + "] input " + describe_input(i) + ": got " + show(got[i]) + ", want " + show(w);
      ++bad;
    }
  }
  INFO("mismatches of " << got.numel() << ":" << first);
  CHECK(bad == 0);
}

template <class T, class WantFn>
void check_all(const pto::Tensor<T>& got, WantFn want, Tol tol = kExact) {
  check_all(got, want, tol, [](int64_t) { return std::string("-"); });
}

// ---------------------------------------------------------------------------------- test data

/// Special values of T that every element-wise test meets: zeros, infinities, nan, extremes,
/// subnormals, and (integers) the wrapping boundaries.
template <class T>
std::vector<T> special_values() {
  if constexpr (std::is_same_v<T, float>) {
    const float inf = std::numeric_limits<float>::infinity();
    return {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1e30f, -3e38f, 1e-40f, -2.5f, 0.5f, 7.0f, -1.0f};
  } else if constexpr (std::is_same_v<T, half>) {
    const float inf = std::numeric_limits<float>::infinity();
    return {half(0.0f), half(-0.0f), half(inf), half(-inf), half(std::numeric_limits<float>::quiet_NaN()), half(65504.0f),
            half(-1000.0f), half(6e-8f), half(300.0f), half(-2.5f), half(0.5f), half(1.0f)};
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    const float inf = std::numeric_limits<float>::infinity();
    return {bfloat16(0.0f), bfloat16(-0.0f), bfloat16(inf), bfloat16(-inf), bfloat16(std::numeric_limits<float>::quiet_NaN()),
            bfloat16(3e38f), bfloat16(-1e20f), bfloat16(1e-39f), bfloat16(1e19f), bfloat16(-2.5f), bfloat16(0.5f), bfloat16(1.0f)};
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return {0, -1, 1, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 46341, -46341, 65536, -7, 3, 100000, -2};
  } else {
    return {0, -1, 1, -128, 127, 64, -64, 100, -100, 3, -7, 2};
  }
}

/// n values of T: uniform random in [lo, hi] with the special values at the start and the end
/// (so both the vectorised body and the scalar tail of a tile see them).
template <class T>
pto::Tensor<T> test_data(std::vector<int64_t> shape, uint64_t seed, double lo, double hi, bool specials = true) {
  auto t = pto::Tensor<T>::random(shape, seed, lo, hi);
  if (specials) {
    const auto sv = special_values<T>();
    const int64_t n = t.numel();
    for (size_t k = 0; k < sv.size() && static_cast<int64_t>(k) < n; ++k) t[static_cast<int64_t>(k)] = sv[k];
    // Rotated at the end, so that x and y pair different specials.
    for (size_t k = 0; k < sv.size() && static_cast<int64_t>(k) < n / 2; ++k) t[n - 1 - static_cast<int64_t>(k)] = sv[(k + seed) % sv.size()];
  }
  return t;
}

/// A default range of random values for arithmetic tests on T.
template <class T>
std::pair<double, double> default_range() {
  if constexpr (std::is_same_v<T, int8_t>) return {-128, 127};
  else if constexpr (std::is_same_v<T, int32_t>) return {-100000, 100000};
  else return {-8, 8};
}

/// `k` with row fusion, and so tile inlining, off (JitOptions::fuse_rows).
template <class K>
K unfused(const K& k) {
  pto::JitOptions o = k.options();
  o.fuse_rows = false;
  return k.with_options(o);
}

using pto::test::bitwise_equal;
using pto::test::copy_of;

// ------------------------------------------------------------------------------------- kernels

template <class T>
using Tile = pl::Tile<T>;

/// z = body(x_tile, y_tile) over 1-D tensors cut in tiles of `tile` elements, strided over cores.
template <class T, class U>
using MapFn = std::function<pl::TExpr<U>(const Tile<T>&, const Tile<T>&)>;

template <class T, class U>
auto make_map_kernel(std::string name, MapFn<T, U> body, int64_t tile = 1024) {
  return pl::jit({.name = std::move(name)}, [body, tile](pl::Tensor<T> x, pl::Tensor<T> y, pl::Tensor<U> z) {
    pl::require(x.rank() == 1 && x.shape() == y.shape() && x.numel() == z.numel(), "x, y, z: 1-D, same length");
    const int64_t n = x.numel();
    auto xs = pl::make_tile<T>(pl::Vec, {tile});
    auto ys = pl::make_tile<T>(pl::Vec, {tile});
    auto zs = pl::make_tile<U>(pl::Vec, {tile});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, tile), pl::get_block_num())) {
      auto off = t * tile;
      auto len = pl::min(tile, n - off);
      pl::load(xs, x.slice(off, len));
      pl::load(ys, y.slice(off, len));
      zs = body(xs, ys);
      pl::store(z.slice(off, len), zs);
    }
  });
}

}  // namespace pto::correctness
