#pragma once
// Inputs for checking float functions across their whole domain.
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace pto::test {

/// Every stride-th float bit pattern (both signs, zeros, subnormals, normals, infinities and NaNs),
/// then the special values and range edges of pto::math's functions.
inline std::vector<float> float_sweep(uint64_t stride) {
  std::vector<float> v;
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += stride) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  for (float s : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, -0x1p-149f, 0x1p-126f, 1.0f, -1.0f, 88.72283f, 88.72284f,
                  -87.33654f, -103.97208f, -103.97209f, 0.625f, 0.921875f, 3.92f, 4.0f, 0x1p20f, -0x1p20f, 3.0e38f})
    v.push_back(s);
  return v;
}

/// The special values of pow's C99 rules (F.9.4.4): zeros, infinities, NaN, ±1, odd and even
/// integers, non-integers, the edges of float's exact integers and of the subnormals.
inline std::vector<float> pow_special_values() {
  return {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 1.5f, -1.5f,
          0x1p23f + 1, -(0x1p23f + 1), 0x1p24f, -0x1p24f, 0x1p-149f, -0x1p-149f, 3.0e38f, -3.0e38f, 127.0f, -149.0f};
}

/// Argument pairs (x, y) for pow, `count` of them from a fixed seed, in equal thirds: any finite x
/// with a y that lands x^y anywhere from the subnormals to overflow; any finite x with y in
/// [-30, 30]; negative and positive x with integral y in [-30, 30]. Then every pair of
/// pow_special_values().
inline std::vector<std::pair<float, float>> pow_pairs(int64_t count, uint64_t seed = 42) {
  std::vector<std::pair<float, float>> v;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> log2_result(-155, 131), moderate(-30, 30);
  while (static_cast<int64_t>(v.size()) < count) {
    float x = std::bit_cast<float>(static_cast<uint32_t>(g()) & 0x7fffffffu);
    if (!std::isfinite(x) || x == 0) continue;
    float y = 0;
    switch (v.size() % 3) {
      case 0: y = static_cast<float>(log2_result(g) / std::log2(static_cast<double>(x))); break;
      case 1: y = static_cast<float>(moderate(g)); break;
      default: y = static_cast<float>(std::round(moderate(g))), x = (g() & 1) ? -x : x; break;
    }
    if (std::isfinite(y)) v.emplace_back(x, y);
  }
  for (float x : pow_special_values())
    for (float y : pow_special_values()) v.emplace_back(x, y);
  return v;
}

}  // namespace pto::test
