// pto::half and pto::bfloat16: round to nearest even, subnormals, inf and nan, and round trips.
// References are independent of Float16.hpp: exact arithmetic in double (ldexp) and the
// compiler's own _Float16 conversion.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <pto/pto.hpp>

using pto::bfloat16;
using pto::half;

namespace {

uint16_t hbits(float f) { return half(f).bits; }
uint16_t bbits(float f) { return bfloat16(f).bits; }
float from_u32(uint32_t u) { return std::bit_cast<float>(u); }

/// The exact value of a binary16 bit pattern (nan for nan patterns).
double half_value(uint16_t b) {
  const int sign = (b & 0x8000) ? -1 : 1;
  const int exp = (b >> 10) & 0x1f;
  const int mant = b & 0x3ff;
  if (exp == 31) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(1024 + mant, exp - 25);
}

/// Round to nearest even from float to bfloat16, by comparing the two neighbours in double.
uint16_t bf16_reference(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return 0;  // not used for nan
  const uint16_t lo = static_cast<uint16_t>(u >> 16);
  if ((u & 0xffffu) == 0) return lo;
  const uint16_t hi = static_cast<uint16_t>(lo + 1);  // next magnitude (may become inf: exact)
  const double x = std::fabs(static_cast<double>(f));
  const double dl = x - std::fabs(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(lo) << 16)));
  const float hf = std::bit_cast<float>(static_cast<uint32_t>(hi) << 16);
  double dh;
  if (std::isinf(hf)) {
    // The value between the largest finite and "the next binade": overflow boundary is
    // 0x7f7f8000 (halfway); above it rounds to inf.
    dh = std::ldexp(1.0, 128) - x;
  } else {
    dh = std::fabs(static_cast<double>(hf)) - x;
  }
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return (lo & 1) ? hi : lo;
}

}  // namespace

TEST_CASE("half converts exact values and the largest finite value exactly") {
  CHECK(hbits(0.0f) == 0x0000);
  CHECK(hbits(-0.0f) == 0x8000);
  CHECK(hbits(1.0f) == 0x3c00);
  CHECK(hbits(-2.0f) == 0xc000);
  CHECK(hbits(0.5f) == 0x3800);
  CHECK(hbits(65504.0f) == 0x7bff);
  CHECK(hbits(-65504.0f) == 0xfbff);
  CHECK(hbits(std::ldexp(1.0f, -14)) == 0x0400);  // smallest normal
  CHECK(static_cast<float>(half::from_bits(0x3555)) == 0x1.554p-2f);
}

TEST_CASE("half rounds to nearest with ties to even") {
  const float one_ulp = std::ldexp(1.0f, -10);  // ulp of half at 1.0
  CHECK(hbits(1.0f + one_ulp / 2) == 0x3c00);                     // tie, 0x3c00 is even
  CHECK(hbits(1.0f + 3 * one_ulp / 2) == 0x3c02);                 // tie, 0x3c01 is odd
  CHECK(hbits(std::nextafter(1.0f + one_ulp / 2, 2.0f)) == 0x3c01);  // just above the tie
  CHECK(hbits(std::nextafter(1.0f + 3 * one_ulp / 2, 0.0f)) == 0x3c01);
  CHECK(hbits(-(1.0f + one_ulp / 2)) == 0xbc00);
  // 2049 is a tie between 2048 and 2050: even mantissa wins.
  CHECK(hbits(2049.0f) == hbits(2048.0f));
  CHECK(hbits(2051.0f) == hbits(2052.0f));
}

TEST_CASE("half overflows to infinity at and beyond the rounding boundary 65520") {
  CHECK(hbits(65519.0f) == 0x7bff);
  CHECK(hbits(std::nextafter(65520.0f, 0.0f)) == 0x7bff);
  CHECK(hbits(65520.0f) == 0x7c00);  // tie between 65504 and 65536 (odd mantissa 0x3ff): rounds up to inf
  CHECK(hbits(1e10f) == 0x7c00);
  CHECK(hbits(-1e10f) == 0xfc00);
  CHECK(hbits(std::numeric_limits<float>::max()) == 0x7c00);
}

TEST_CASE("half converts subnormals with round to nearest even and flushes below half the minimum to zero") {
  const float min_sub = std::ldexp(1.0f, -24);
  CHECK(hbits(min_sub) == 0x0001);
  CHECK(hbits(-min_sub) == 0x8001);
  CHECK(hbits(1023 * min_sub) == 0x03ff);                    // largest subnormal
  CHECK(hbits(min_sub / 2) == 0x0000);                       // tie with zero: even (zero)
  CHECK(hbits(-min_sub / 2) == 0x8000);                      // keeps the sign
  CHECK(hbits(std::nextafter(min_sub / 2, 1.0f)) == 0x0001);
  CHECK(hbits(min_sub / 4) == 0x0000);
  CHECK(hbits(3 * min_sub / 2) == 0x0002);                   // tie between 1 and 2: even
  CHECK(hbits(5 * min_sub / 2) == 0x0002);                   // tie between 2 and 3: even
  CHECK(hbits(std::nextafter(5 * min_sub / 2, 1.0f)) == 0x0003);
  CHECK(hbits(1023.5f * min_sub) == 0x0400);                 // tie rounds up into the smallest normal
  CHECK(hbits(std::numeric_limits<float>::denorm_min()) == 0x0000);
  CHECK(static_cast<float>(half::from_bits(0x0001)) == min_sub);
  CHECK(static_cast<float>(half::from_bits(0x83ff)) == -1023 * min_sub);
}

TEST_CASE("half keeps infinities and turns nan into a quiet nan of the same sign") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(hbits(inf) == 0x7c00);
  CHECK(hbits(-inf) == 0xfc00);
  const uint16_t n = hbits(std::numeric_limits<float>::quiet_NaN());
  CHECK((n & 0x7c00) == 0x7c00);
  CHECK((n & 0x0200) != 0);
  CHECK((n & 0x8000) == 0);
  const uint16_t sn = hbits(from_u32(0xff800001u));  // negative signalling nan
  CHECK((sn & 0x7c00) == 0x7c00);
  CHECK((sn & 0x03ff) != 0);
  CHECK((sn & 0x8000) != 0);
  CHECK(std::isinf(static_cast<float>(half::from_bits(0x7c00))));
  CHECK(std::isnan(static_cast<float>(half::from_bits(0x7c01))));
  CHECK(std::isnan(static_cast<float>(half::from_bits(0xfe00))));
}

TEST_CASE("every one of the 65536 half bit patterns converts to its exact value and back unchanged") {
  int mismatched_value = 0, mismatched_round_trip = 0;
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = half::from_bits(bits);
    const double want = half_value(bits);
    if (std::isnan(want)) {
      if (!std::isnan(f)) ++mismatched_value;
      const uint16_t back = half(f).bits;
      // nan stays nan with its sign; the payload is not preserved.
      if ((back & 0x7c00) != 0x7c00 || (back & 0x3ff) == 0 || (back & 0x8000) != (bits & 0x8000)) ++mismatched_round_trip;
      continue;
    }
    if (static_cast<double>(f) != want || std::signbit(f) != static_cast<bool>(bits & 0x8000)) ++mismatched_value;
    if (half(f).bits != bits) ++mismatched_round_trip;
  }
  CHECK(mismatched_value == 0);
  CHECK(mismatched_round_trip == 0);
}

TEST_CASE("half agrees with the compiler's _Float16 conversion on a sweep of float bit patterns") {
  int mismatches = 0;
  uint32_t first_bad = 0;
  // Every 257th float bit pattern plus every pattern around the half rounding boundaries.
  auto check_one = [&](uint32_t u) {
    const float f = std::bit_cast<float>(u);
    if (std::isnan(f)) return;
    const auto want = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
    if (half(f).bits != want) {
      if (mismatches++ == 0) first_bad = u;
    }
  };
  for (uint64_t u = 0; u <= 0xffffffffull; u += 257) check_one(static_cast<uint32_t>(u));
  for (uint32_t e : {0x33000000u, 0x38800000u, 0x477fe000u, 0x3f800000u, 0x387fc000u}) {
    for (uint32_t d = 0; d < 0x4000; ++d) {
      check_one(e + d);
      check_one(e - d);
      check_one((e + d) | 0x80000000u);
    }
  }
  CAPTURE(first_bad);
  CHECK(mismatches == 0);
}

TEST_CASE("bfloat16 rounds to nearest with ties to even") {
  CHECK(bbits(1.0f) == 0x3f80);
  CHECK(bbits(-1.0f) == 0xbf80);
  CHECK(bbits(0.0f) == 0x0000);
  CHECK(bbits(-0.0f) == 0x8000);
  CHECK(bbits(from_u32(0x3f808000u)) == 0x3f80);  // tie, even stays
  CHECK(bbits(from_u32(0x3f818000u)) == 0x3f82);  // tie, odd rounds up
  CHECK(bbits(from_u32(0x3f808001u)) == 0x3f81);
  CHECK(bbits(from_u32(0x3f807fffu)) == 0x3f80);
  CHECK(bbits(from_u32(0x3fffffffu)) == 0x4000);  // carries into the exponent
  CHECK(bbits(3.140625f) == 0x4049);
}

TEST_CASE("bfloat16 handles subnormals, overflow, infinities and nan") {
  CHECK(bbits(from_u32(0x00008000u)) == 0x0000);  // subnormal tie: even
  CHECK(bbits(from_u32(0x00018000u)) == 0x0002);
  CHECK(bbits(from_u32(0x00008001u)) == 0x0001);
  CHECK(bbits(from_u32(0x807fffffu)) == 0x8080);  // largest negative subnormal rounds to the smallest normal
  CHECK(bbits(std::numeric_limits<float>::max()) == 0x7f80);  // rounds to inf
  CHECK(bbits(from_u32(0x7f7f7fffu)) == 0x7f7f);              // largest finite stays finite
  CHECK(bbits(std::numeric_limits<float>::infinity()) == 0x7f80);
  CHECK(bbits(-std::numeric_limits<float>::infinity()) == 0xff80);
  CHECK(bbits(from_u32(0x7f800001u)) == 0x7fc0);  // signalling nan becomes quiet, not inf
  CHECK(bbits(from_u32(0xffffffffu)) == 0xffff);
  CHECK(bbits(std::numeric_limits<float>::quiet_NaN()) == 0x7fc0);
}

TEST_CASE("every one of the 65536 bfloat16 bit patterns round trips through float") {
  int bad = 0;
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = bfloat16::from_bits(bits);
    if (std::bit_cast<uint32_t>(f) != b << 16) ++bad;
    const uint16_t back = bfloat16(f).bits;
    const bool is_nan = (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
    if (is_nan ? back != (bits | 0x40) : back != bits) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("bfloat16 agrees with an exact round-to-nearest-even reference on a sweep of float bit patterns") {
  int mismatches = 0;
  uint32_t first_bad = 0;
  auto check_one = [&](uint32_t u) {
    const float f = std::bit_cast<float>(u);
    if (std::isnan(f)) return;
    if (bfloat16(f).bits != bf16_reference(f) && mismatches++ == 0) first_bad = u;
  };
  for (uint64_t u = 0; u <= 0xffffffffull; u += 263) check_one(static_cast<uint32_t>(u));
  for (uint32_t e : {0x3f808000u, 0x7f7f8000u, 0x00008000u, 0x4049c000u}) {
    for (uint32_t d = 0; d < 0x400; ++d) {
      check_one(e + d);
      check_one(e - d);
      check_one((e + d) | 0x80000000u);
    }
  }
  CAPTURE(first_bad);
  CHECK(mismatches == 0);
}
