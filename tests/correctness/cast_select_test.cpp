// pl::cast between every pair of dtypes, and comparisons feeding pl::select, against plain C++.
#include "common.hpp"

namespace pto::correctness {
namespace {

/// Values of T that exercise conversions: rounding ties, truncation toward zero, saturation,
/// nan and infinities, and (integers) the limits of every narrower type.
template <class T>
std::vector<T> cast_inputs() {
  if constexpr (is_float_v<T>) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> v = {
        0.0f, -0.0f, 0.5f, -0.5f, 0.99f, -0.99f, 1.5f, -1.5f, 2.5f, -2.5f, 126.9f, 127.0f, 127.5f, 128.0f, -128.0f,
        -128.9f, -129.0f, 200.0f, -300.0f, 1000.25f, 65504.0f, 65519.0f, 65520.0f, 70000.0f, -70000.0f,
        16777217.0f, 2147483520.0f, 2147483648.0f, 3e9f, -2147483648.0f, -3e9f, 1e30f, -1e30f, inf, -inf, nan,
        1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 1.0f + 0x1p-8f, 1.0f + 0x3p-8f, 6e-8f, 1e-40f, 0x1.fffffep-1f};
    std::vector<T> out;
    for (float f : v) out.push_back(T(f));
    return out;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 65504, 65519, 65520, 65536, 70000, -70000,
            16777216, 16777217, 16777219, 33554435, 2147483647, -2147483647 - 1, 1000000007, -123456789};
  } else {
    return {0, 1, -1, 2, -2, 100, -100, 127, -128, 126, -127, 64, -65};
  }
}

template <class T>
pto::Tensor<T> cast_data(int64_t n) {
  const auto [lo, hi] = std::is_same_v<T, int32_t> ? std::pair<double, double>{-1e6, 1e6} : default_range<T>();
  auto x = pto::Tensor<T>::random({n}, 9, is_float_v<T> ? -300 : lo, is_float_v<T> ? 300 : hi);
  const auto v = cast_inputs<T>();
  for (size_t k = 0; k < v.size(); ++k) {
    x[static_cast<int64_t>(k)] = v[k];
    x[n - 1 - static_cast<int64_t>(k)] = v[v.size() - 1 - k];  // the tail tile too
  }
  return x;
}

template <class From, class To>
void check_cast(int64_t n, int block_dim) {
  CAPTURE(type_name<From>());
  CAPTURE(type_name<To>());
  const auto k = make_map_kernel<From, To>("cast_" + type_name<From>() + "_to_" + type_name<To>(),
                                           [](const Tile<From>& a, const Tile<From>&) { return pl::cast<To>(a); });
  auto x = cast_data<From>(n);
  auto z = pto::Tensor<To>::zeros({n});
  k[{.block_dim = block_dim}](x, x, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) { return convert<To>(x[i]); }, kExact, [&](int64_t i) { return show(x[i]); });
}

template <class From>
void check_casts_from(int64_t n, int block_dim) {
  check_cast<From, float>(n, block_dim);
  check_cast<From, half>(n, block_dim);
  check_cast<From, bfloat16>(n, block_dim);
  check_cast<From, int32_t>(n, block_dim);
  check_cast<From, int8_t>(n, block_dim);
}

}  // namespace

TEST_CASE_TEMPLATE("pl::cast converts to every dtype like C++ through float/int32: round to nearest even, truncate and saturate",
                   From, float, half, bfloat16, int32_t, int8_t) {
  check_casts_from<From>(4099, 3);
}

TEST_CASE("the reference conversion semantics of the cast tests are the documented ones") {
  // Guards the test's own reference: a wrong reference would let a wrong kernel pass.
  CHECK(convert<int32_t>(2.9f) == 2);
  CHECK(convert<int32_t>(-2.9f) == -2);
  CHECK(convert<int32_t>(3e9f) == 2147483647);
  CHECK(convert<int32_t>(-3e9f) == -2147483647 - 1);
  CHECK(convert<int32_t>(std::numeric_limits<float>::quiet_NaN()) == 0);
  CHECK(convert<int8_t>(-128.9f) == -128);
  CHECK(convert<int8_t>(127.9f) == 127);
  CHECK(convert<int8_t>(1000.0f) == 127);
  CHECK(convert<int8_t>(int32_t{-200}) == -128);
  CHECK(convert<int8_t>(int32_t{300}) == 127);
  CHECK(convert<half>(int32_t{65520}).bits == 0x7c00);
  CHECK(convert<half>(1.0f + 0x1p-11f).bits == 0x3c00);
  CHECK(convert<bfloat16>(int32_t{16777217}).bits == 0x4b80);
  CHECK(convert<float>(half(2.5f)) == 2.5f);
}

// ------------------------------------------------------------------------------ compare + select

namespace {

enum class Cmp { LT, LE, GT, GE, EQ, NE };
constexpr Cmp kAllCmps[] = {Cmp::LT, Cmp::LE, Cmp::GT, Cmp::GE, Cmp::EQ, Cmp::NE};

const char* cmp_name(Cmp c) {
  switch (c) {
    case Cmp::LT: return "<";
    case Cmp::LE: return "<=";
    case Cmp::GT: return ">";
    case Cmp::GE: return ">=";
    case Cmp::EQ: return "==";
    case Cmp::NE: return "!=";
  }
  return "?";
}

template <class A, class B>
pl::Mask dsl_compare(Cmp c, const A& a, const B& b) {
  switch (c) {
    case Cmp::LT: return a < b;
    case Cmp::LE: return a <= b;
    case Cmp::GT: return a > b;
    case Cmp::GE: return a >= b;
    case Cmp::EQ: return a == b;
    case Cmp::NE: return a != b;
  }
  return a == b;
}

template <class V>
bool ref_compare(Cmp c, V a, V b) {
  switch (c) {
    case Cmp::LT: return a < b;
    case Cmp::LE: return a <= b;
    case Cmp::GT: return a > b;
    case Cmp::GE: return a >= b;
    case Cmp::EQ: return a == b;
    case Cmp::NE: return a != b;
  }
  return false;
}

/// A value never present in the compare test data, so the selected branch is always visible.
template <class T>
T sentinel() {
  if constexpr (std::is_same_v<T, int8_t>) return 127;
  else if constexpr (std::is_same_v<T, int32_t>) return 1 << 20;
  else return T(100.0f);
}

/// x, y with many equal pairs, and (floats) nan, infinities and signed zeros.
template <class T>
std::pair<pto::Tensor<T>, pto::Tensor<T>> compare_data(int64_t n) {
  auto x = pto::Tensor<T>::random({n}, 21, -20, 20);
  auto y = pto::Tensor<T>::random({n}, 22, -20, 20);
  for (int64_t i = 0; i < n; i += 3) y[i] = x[i];  // a third equal
  std::vector<T> sp;
  if constexpr (is_float_v<T>) {
    const float inf = std::numeric_limits<float>::infinity();
    for (float f : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1.0f}) sp.push_back(T(f));
  } else {
    sp = {T(0), T(-1), std::numeric_limits<T>::min(), T(1), T(std::numeric_limits<T>::max() - 1)};
  }
  const int64_t s = static_cast<int64_t>(sp.size());
  for (int64_t p = 0; p < s * s; ++p) {
    x[p + 1] = sp[p / s];
    y[p + 1] = sp[p % s];
    x[n - 1 - p] = sp[p % s];
    y[n - 1 - p] = sp[p / s];
  }
  return {std::move(x), std::move(y)};
}

template <class T>
void check_compare_select(int64_t n, int block_dim) {
  auto [x, y] = compare_data<T>(n);
  const T s = sentinel<T>();
  const compute_t<T> sc = widen(s);  // the same value as a C++ scalar operand (float or int32)
  for (Cmp c : kAllCmps) {
    CAPTURE(type_name<T>());
    CAPTURE(std::string(cmp_name(c)));
    // select(x op y, x, sentinel)
    {
      const auto k = make_map_kernel<T, T>("select_tile_scalar",
                                           [c, sc](const Tile<T>& a, const Tile<T>& b) { return pl::select(dsl_compare(c, a, b), a, sc); });
      auto z = pto::Tensor<T>::zeros({n});
      k[{.block_dim = block_dim}](x, y, z);
      pto::synchronize();
      check_all(z, [&](int64_t i) { return ref_compare(c, widen(x[i]), widen(y[i])) ? x[i] : s; }, kExact,
                [&](int64_t i) { return show(x[i]) + " " + cmp_name(c) + " " + show(y[i]); });
    }
    // select(x op 1, y, sentinel): a tile compared with a scalar.
    {
      const auto k = make_map_kernel<T, T>("select_cmp_scalar",
                                           [c, sc](const Tile<T>& a, const Tile<T>& b) { return pl::select(dsl_compare(c, a, 1), b, sc); });
      auto z = pto::Tensor<T>::zeros({n});
      k[{.block_dim = block_dim}](x, y, z);
      pto::synchronize();
      check_all(z, [&](int64_t i) { return ref_compare(c, widen(x[i]), compute_t<T>(1)) ? y[i] : s; }, kExact,
                [&](int64_t i) { return show(x[i]) + " " + cmp_name(c) + " 1"; });
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("comparisons feed pl::select element-wise like C++ comparisons (nan compares unequal)", T, float, half, bfloat16,
                   int32_t, int8_t) {
  check_compare_select<T>(4099, 5);
}

TEST_CASE_TEMPLATE("pl::select with a scalar first branch and a tile second branch picks per element", T, float,
                   int32_t) {
  const T s = sentinel<T>();
  const compute_t<T> sc = widen(s);
  const auto k = make_map_kernel<T, T>("select_scalar_tile",
                                       [sc](const Tile<T>& a, const Tile<T>& b) { return pl::select(a > b, sc, b); });
  auto [x, y] = compare_data<T>(999);
  auto z = pto::Tensor<T>::zeros({999});
  k[{.block_dim = 2}](x, y, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) { return widen(x[i]) > widen(y[i]) ? s : y[i]; });
}

TEST_CASE_TEMPLATE("pl::select between two tile expressions picks per element", T, float, half, int32_t, int8_t) {
  const auto k = make_map_kernel<T, T>("select_tiles", [](const Tile<T>& a, const Tile<T>& b) {
    return pl::select(a * 2 < b, b - a, pl::select(a == b, a, -b));
  });
  auto [x, y] = compare_data<T>(4099);
  auto z = pto::Tensor<T>::zeros({4099});
  k[{.block_dim = 7}](x, y, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) {
    const auto a = widen(x[i]), b = widen(y[i]);
    if constexpr (is_float_v<T>) {
      return narrow<T>(a * 2 < b ? b - a : (a == b ? a : -b));
    } else {
      return narrow<T>(wrap_mul(a, 2) < b ? wrap_sub(b, a) : (a == b ? a : wrap_neg(b)));
    }
  }, kExact, [&](int64_t i) { return show(x[i]) + ", " + show(y[i]); });
}

}  // namespace pto::correctness

namespace pto::correctness {

TEST_CASE("a mask from a float comparison selects between int32 tiles, and a cast operand compares like its value") {
  const auto k = pl::jit({.name = "mask_across_types"},
                         [](pl::Tensor<float> a, pl::Tensor<half> h, pl::Tensor<int32_t> i, pl::Tensor<int32_t> z) {
    const int64_t n = a.numel();
    auto at = pl::make_tile<float>(pl::Vec, {256});
    auto ht = pl::make_tile<half>(pl::Vec, {256});
    auto it = pl::make_tile<int32_t>(pl::Vec, {256});
    auto zt = pl::make_tile<int32_t>(pl::Vec, {256});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, 256), pl::get_block_num())) {
      auto len = pl::min(256, n - t * 256);
      pl::load(at, a.slice(t * 256, len));
      pl::load(ht, h.slice(t * 256, len));
      pl::load(it, i.slice(t * 256, len));
      zt = pl::select(pl::cast<float>(ht) < at, it * 2, -it);
      pl::store(z.slice(t * 256, len), zt);
    }
  });
  const int64_t n = 1001;
  auto a = test_data<float>({n}, 61, -4, 4);
  auto h = test_data<half>({n}, 62, -4, 4);
  auto i = test_data<int32_t>({n}, 63, -1000, 1000);
  auto z = pto::Tensor<int32_t>::zeros({n});
  k[{.block_dim = 3}](a, h, i, z);
  pto::synchronize();
  check_all(z, [&](int64_t j) { return static_cast<float>(h[j]) < a[j] ? wrap_mul(i[j], 2) : wrap_neg(i[j]); });
}

TEST_CASE_TEMPLATE("assigning a C++ number fills the whole tile; a store then writes the part it names", T, float, half, bfloat16,
                   int32_t, int8_t) {
  const auto k = pl::jit({.name = "fill"}, [](pl::Tensor<T> z) {
    const int64_t n = z.numel();
    auto t = pl::make_tile<T>(pl::Vec, {128});
    t = 3.5f;  // integers: 3
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, 128), pl::get_block_num())) {
      pl::store(z.slice(i * 128, pl::min(128, n - i * 128)), t);
    }
  });
  auto z = pto::Tensor<T>::zeros({1000});
  k[{.block_dim = 4}](z);
  pto::synchronize();
  check_all(z, [](int64_t) { return is_float_v<T> ? T(3.5f) : T(3); });
}

}  // namespace pto::correctness
