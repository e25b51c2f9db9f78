#pragma once
// Host-side 16-bit floating point types: IEEE binary16 (`pto::half`) and bfloat16.
// Storage only; arithmetic happens in float. Conversions round to nearest, ties to even,
// exactly as the JIT-compiled kernels do, so host references and kernels agree bit for bit.
#include <bit>
#include <cstdint>
#include <cstring>

namespace pto {

namespace detail {
inline uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {                      // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {                        // subnormal half or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);          // below half of min subnormal
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);                // 14 + (113 - exp)
    const uint32_t value = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half_way = 1u << (shift - 1);
    uint32_t rounded = value + ((rem > half_way || (rem == half_way && (value & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | rounded);
  }
  uint32_t bits = abs - 0x38000000u;              // rebias exponent 127 -> 15
  const uint32_t rem = bits & 0x1fffu;
  bits >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (bits & 1u))) ++bits;
  return static_cast<uint16_t>(sign | bits);
}

inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

inline float bfloat16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}
}  // namespace detail

struct half {
  uint16_t bits = 0;
  half() = default;
  half(float f) : bits(detail::float_to_half_bits(f)) {}  // NOLINT: implicit like a float
  operator float() const { return detail::half_bits_to_float(bits); }  // NOLINT
  static half from_bits(uint16_t b) { half h; h.bits = b; return h; }
};

struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  bfloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}  // NOLINT
  operator float() const { return detail::bfloat16_bits_to_float(bits); }  // NOLINT
  static bfloat16 from_bits(uint16_t b) { bfloat16 h; h.bits = b; return h; }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);

}  // namespace pto
