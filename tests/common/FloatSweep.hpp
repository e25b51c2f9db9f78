#pragma once
// Inputs for checking float functions across their whole domain.
#include <bit>
#include <cmath>
#include <cstdint>
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

}  // namespace pto::test
