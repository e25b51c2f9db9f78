#pragma once
// The reference of pl::cast's rounding modes (PyPTO Pro's RoundMode; docs/semantics.md,
// "Conversions"): a narrowing rounds to nearest even first, then, where that was inexact, moves
// one unit in the last place as the mode asks. CodeGen::convert_mode emits the same steps.
#include <bit>
#include <cmath>
#include <cstdint>

#include "pto/ir/IR.hpp"
#include "pto/support/Float16.hpp"

namespace pto::backend::rounding {

/// The narrow float formats: their bits, round-to-nearest-even from the wide type and back.
struct F16 {
  using Wide = float;
  using Bits = uint16_t;
  static Bits rne(float w) { return detail::float_to_half_bits(w); }
  static float widen(Bits b) { return detail::half_bits_to_float(b); }
};
struct BF16 {
  using Wide = float;
  using Bits = uint16_t;
  static Bits rne(float w) { return detail::float_to_bfloat16_bits(w); }
  static float widen(Bits b) { return detail::bfloat16_bits_to_float(b); }
};
struct F32 {
  using Wide = double;
  using Bits = uint32_t;
  static Bits rne(double w) { return std::bit_cast<Bits>(static_cast<float>(w)); }
  static double widen(Bits b) { return std::bit_cast<float>(b); }
};

template <class B>
constexpr B kSign = static_cast<B>(B(1) << (8 * sizeof(B) - 1));

/// The neighbour of `b` toward +inf / -inf / zero (a step of the magnitude; zero steps to the
/// least subnormal of the sign asked for).
template <class B>
B next_up(B b) {
  if (b & kSign<B>) return (b & ~kSign<B>) == 0 ? B(1) : B(b - 1);
  return B(b + 1);
}
template <class B>
B next_down(B b) {
  if (!(b & kSign<B>)) return b == 0 ? B(kSign<B> | 1) : B(b - 1);
  return B(b + 1);
}
template <class B>
B toward_zero(B b) {
  return (b & ~kSign<B>) == 0 ? b : B(b - 1);
}

/// `w` rounded to format N by `mode` (a PyPTO Pro mode; CAST_NONE and Default round to nearest even).
template <class N>
typename N::Bits narrow(typename N::Wide w, ir::RoundMode mode) {
  using B = typename N::Bits;
  const B r = N::rne(w);
  if (std::isnan(w)) return r;
  const auto back = N::widen(r);
  if (back == w) return r;
  switch (mode) {
    case ir::RoundMode::CAST_FLOOR: return back > w ? next_down(r) : r;
    case ir::RoundMode::CAST_CEIL: return back < w ? next_up(r) : r;
    case ir::RoundMode::CAST_TRUNC: return std::fabs(back) > std::fabs(w) ? toward_zero(r) : r;
    case ir::RoundMode::CAST_ODD: return static_cast<B>((std::fabs(back) > std::fabs(w) ? toward_zero(r) : r) | 1);
    case ir::RoundMode::CAST_ROUND: {  // a tie (w halfway between r and its other neighbour) goes away from zero
      const B other = back > w ? next_down(r) : next_up(r);
      const auto o = N::widen(other);
      return w - back == o - w && std::fabs(o) > std::fabs(back) ? other : r;  // both differences exact
    }
    default: return r;
  }
}

/// Float -> integer rounding before the saturating conversion.
inline float round_to_integral(float f, ir::RoundMode mode) {
  switch (mode) {
    case ir::RoundMode::CAST_RINT: return std::nearbyint(f);  // the default FP environment: ties to even
    case ir::RoundMode::CAST_ROUND: return std::round(f);
    case ir::RoundMode::CAST_FLOOR: return std::floor(f);
    case ir::RoundMode::CAST_CEIL: return std::ceil(f);
    default: return std::trunc(f);  // CAST_NONE, CAST_TRUNC, CAST_ODD (its fallback), Default
  }
}

}  // namespace pto::backend::rounding
