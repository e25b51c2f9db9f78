// Runtime float scalars (pl::Float): a kernel parameter broadcast into tile expressions, not part
// of the cache key, on every float dtype with tails and idle cores, against plain C++.
#include "common.hpp"

namespace pto::correctness {

TEST_CASE_TEMPLATE("pl::Float parameters: y = x * alpha + beta, every value on one compiled kernel", T, float, half, bfloat16) {
  constexpr int64_t tile = 256;
  const auto k = pl::jit({.name = "axpb"}, [](pl::Tensor<T> x, pl::Float alpha, pl::Float beta, pl::Tensor<T> y) {
    const int64_t n = x.numel();
    auto t = pl::make_tile<T>(pl::Vec, {tile});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, tile), pl::get_block_num())) {
      auto len = pl::min(tile, n - i * tile);
      pl::load(t, x.slice(i * tile, len));
      t = t * alpha + beta;
      pl::store(y.slice(i * tile, len), t);
    }
  });
  const int64_t n = 3 * tile + 37;  // a tail; 8 blocks for 4 tiles: idle cores
  auto x = pto::Tensor<T>::random({n}, 5, -4, 4);
  const uint64_t before = pto::runtime_stats().compiles;
  for (const auto& [alpha, beta] : {std::pair{0.5f, 1.0f}, std::pair{-3.25f, 0.0f}, std::pair{1e-5f, -2.0f}}) {
    CAPTURE(alpha);
    auto y = pto::Tensor<T>::zeros({n});
    k[{.block_dim = 8}](x, alpha, beta, y);
    pto::synchronize();
    check_all(y, [&](int64_t i) { const float p = widen(x[i]) * alpha; return narrow<T>(p + beta); });
  }
  CHECK(pto::runtime_stats().compiles == before + 1);  // one specialisation for every value
}

TEST_CASE("pl::Float from half and bfloat16 host values, and next to pl::Int parameters") {
  const auto k = pl::jit({.name = "scale_rows"}, [](pl::Tensor<float> x, pl::Int rows, pl::Float s, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 64});
    pl::load(t, x.slice(0, rows, 0, 64));
    t = pl::max(t * s, s);
    pl::store(y.slice(0, rows, 0, 64), t);
  });
  auto x = pto::Tensor<float>::random({4, 64}, 9, -2, 2);
  for (const float s : {static_cast<float>(pto::half(0.375f)), static_cast<float>(pto::bfloat16(-1.5f))}) {
    auto y = pto::Tensor<float>::full({4, 64}, 7.0f);
    if (s > 0) {
      k[{.block_dim = 1}](x, int64_t{3}, pto::half(0.375f), y);
    } else {
      k[{.block_dim = 1}](x, int64_t{3}, pto::bfloat16(-1.5f), y);
    }
    pto::synchronize();
    check_all(y, [&](int64_t i) { return i < 3 * 64 ? ref_max(x[i] * s, s) : 7.0f; });  // the 4th row is not written
  }
}

TEST_CASE("pl::Float arithmetic: + - * /, max, min, negation and comparisons in binary32, one rounding each; a pl::if_ on a "
          "float comparison; NaN and signed zeros; every value on one compiled kernel") {
  const auto k = pl::jit({.name = "float_scalar_math"}, [](pl::Tensor<float> x, pl::Float a, pl::Float b, pl::Tensor<float> y,
                                                          pl::Tensor<float> s) {
    auto t = pl::make_tile<float>(pl::Vec, {2, 64});
    pl::load(t, x, {0, 0});
    const pl::Float scale = a * b + 1.5f;          // two roundings
    const pl::Float shift = (a - b) / (2.0f * b);
    t = t * scale - shift;
    pl::store(y, t, {0, 0});
    pl::setval(s, 0, pl::max(a, -b));
    pl::setval(s, 1, pl::min(a, b) + 0.25f);
    pl::setval(s, 2, -a);
    pl::if_(a > b, [&] { pl::setval(s, 3, 1.0f); }, [&] { pl::setval(s, 3, 2.0f); });
    pl::if_(a != a, [&] { pl::setval(s, 4, 5.0f); });  // true only for a NaN
    pl::setval(s, 5, 1.0f / b);
  });
  auto x = pto::Tensor<float>::random({2, 64}, 13, -3, 3);
  const uint64_t before = pto::runtime_stats().compiles;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [a, b] : {std::pair{0.7f, -1.3f}, std::pair{-2.5f, 4.0f}, std::pair{nan, 3.0f}, std::pair{0.0f, -0.0f}}) {
    CAPTURE(a);
    CAPTURE(b);
    auto y = pto::Tensor<float>::zeros({2, 64});
    auto s = pto::Tensor<float>::full({8}, 9.0f);
    k[{.block_dim = 1}].run_sync(x, a, b, y, s);
    const float p = a * b;
    const float scale = p + 1.5f;
    const float q = 2.0f * b;
    const float shift = (a - b) / q;
    check_all(y, [&](int64_t i) { const float m = x[i] * scale; return m - shift; });
    auto same = [](float u, float v) { return (std::isnan(u) && std::isnan(v)) || std::bit_cast<uint32_t>(u) == std::bit_cast<uint32_t>(v); };
    CHECK(same(s[0], ref_max(a, -b)));
    CHECK(same(s[1], ref_min(a, b) + 0.25f));
    CHECK(same(s[2], -a));
    CHECK(s[3] == (a > b ? 1.0f : 2.0f));
    CHECK(s[4] == (std::isnan(a) ? 5.0f : 9.0f));
    CHECK(same(s[5], 1.0f / b));
  }
  CHECK(pto::runtime_stats().compiles == before + 1);
}

TEST_CASE("pl::to_float(pl::Int) rounds to nearest even, pl::to_int(pl::Float) truncates toward zero and saturates (NaN 0); "
          "a mean over a runtime count; the converted values steer loops and tile expressions") {
  const auto k = pl::jit({.name = "scalar_conversions"}, [](pl::Tensor<float> x, pl::Int n, pl::Float v, pl::Tensor<float> y,
                                                           pl::Tensor<int32_t> ints, pl::Tensor<float> floats) {
    auto t = pl::make_tile<float>(pl::Vec, {1, 64});
    pl::load(t, x, {0, 0});
    const pl::Float inv = 1.0f / pl::to_float(n);
    t = t * inv;  // x / n as a multiplication by the rounded reciprocal
    pl::store(y, t, {0, 0});
    pl::setval(floats, 0, pl::to_float(n));
    pl::setval(floats, 1, pl::to_float(n * n * n));  // past 2^24: rounded
    pl::setval(ints, 0, pl::to_int(v));
    pl::setval(ints, 1, pl::to_int(-v));
    pl::setval(ints, 2, pl::to_int(v * 1e30f) - INT64_MAX);  // saturated: 0
    pl::setval(ints, 3, pl::to_int(v - v / 0.0f * 0.0f));    // NaN (inf * 0) -> 0, any v
    for (auto i : pl::range(0, pl::to_int(v))) pl::setval(ints, 4 + i, i);  // a loop bound from a float
  });
  auto x = pto::Tensor<float>::random({1, 64}, 3, -4, 4);
  for (const auto& [n, v] : {std::pair<int64_t, float>{3, 2.75f}, std::pair<int64_t, float>{300001, 3.5f}}) {
    CAPTURE(n);
    auto y = pto::Tensor<float>::zeros({1, 64});
    auto ints = pto::Tensor<int32_t>::full({1, 16}, -7);
    auto floats = pto::Tensor<float>::zeros({2});
    k[{.block_dim = 1}].run_sync(x, n, v, y, ints, floats);
    const float inv = 1.0f / static_cast<float>(n);
    check_all(y, [&](int64_t i) { return x[i] * inv; });
    CHECK(floats[0] == static_cast<float>(n));
    CHECK(floats[1] == static_cast<float>(n * n * n));
    CHECK(ints[0] == static_cast<int32_t>(v));
    CHECK(ints[1] == -static_cast<int32_t>(v));
    CHECK(ints[2] == 0);
    CHECK(ints[3] == 0);
    for (int64_t i = 0; i < 12; ++i) CHECK(ints[4 + i] == (i < static_cast<int64_t>(v) ? i : -7));
  }
}

}  // namespace pto::correctness
