#pragma once
// What the float operators compute where the C++ of the passes and the interpreter evaluates
// them: max / min of two floats (docs/semantics.md, "Floating point") and the binary operators on
// f32 scalars (pl::Float arithmetic and comparisons; docs/semantics.md, "Control and scalars").
// The generated code uses the same IEEE binary32 operations.
#include <bit>
#include <cmath>
#include <cstdint>

#include "pto/ir/IR.hpp"

namespace pto::ir {

/// max and min: a NaN operand gives the other operand (two NaNs: the first), +0 is above -0,
/// otherwise the larger (smaller) value.
inline float max_number(float a, float b) {
  if (a > b) return a;
  if (b > a) return b;
  if (std::isnan(b)) return a;  // unordered: a NaN operand gives the other
  if (std::isnan(a)) return b;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(a) & std::bit_cast<uint32_t>(b));  // equal: +0 over -0
}
inline float min_number(float a, float b) {
  if (a < b) return a;
  if (b < a) return b;
  if (std::isnan(b)) return a;
  if (std::isnan(a)) return b;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(a) | std::bit_cast<uint32_t>(b));  // equal: -0 under +0
}

/// A scalar f32 -> i64 conversion (pl::to_int): toward zero, saturating, NaN to 0.
inline int64_t f32_to_i64(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 9.2233720368547758e18f) return INT64_MAX;
  if (f <= -9.2233720368547758e18f) return INT64_MIN;
  return static_cast<int64_t>(f);
}

/// The operators defined on f32 scalars: + - * /, min, max and the comparisons.
inline bool float_scalar_op(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div || op == BinaryOp::Min ||
         op == BinaryOp::Max || is_comparison(op);
}

/// An f32 scalar operation: the result's bits for arithmetic (one rounding), 0 or 1 for a
/// comparison (false with a NaN operand, except !=).
inline int64_t float_binary_bits(BinaryOp op, float a, float b) {
  auto bits = [](float f) { return static_cast<int64_t>(std::bit_cast<uint32_t>(f)); };
  switch (op) {
    case BinaryOp::Add: return bits(a + b);
    case BinaryOp::Sub: return bits(a - b);
    case BinaryOp::Mul: return bits(a * b);
    case BinaryOp::Div: return bits(a / b);
    case BinaryOp::Min: return bits(min_number(a, b));
    case BinaryOp::Max: return bits(max_number(a, b));
    case BinaryOp::LT: return a < b;
    case BinaryOp::LE: return a <= b;
    case BinaryOp::GT: return a > b;
    case BinaryOp::GE: return a >= b;
    case BinaryOp::EQ: return a == b;
    case BinaryOp::NE: return !(a == b);
    default: return 0;
  }
}

}  // namespace pto::ir
