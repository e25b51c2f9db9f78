#pragma once
// The one definition of integer arithmetic (docs/semantics.md, "Integers"): used by the constant
// folder (Binary::make), by the reference interpreter for i64 scalars and i32 tile elements, and
// matched by the LLVM code generator.
//
//  * Add, Sub, Mul wrap (two's complement), never undefined.
//  * x / 0 = 0 and x % 0 = 0; MIN / -1 = MIN (wraps) and x % -1 = 0; division truncates toward 0.
//  * Comparisons give 0 or 1. Booleans are the values 0 and 1 (false < true); And/Or are bitwise.
//  * Shifts take the count as unsigned: a << s is 0 and a >> s (arithmetic) is the sign fill
//    (0 or -1) when s is not below the width (a negative count is a huge one).
#include <type_traits>

#include "pto/ir/IR.hpp"

namespace pto::ir {

template <class I>
constexpr I int_binary(BinaryOp op, I a, I c) {
  static_assert(std::is_integral_v<I> && std::is_signed_v<I>);
  using U = std::make_unsigned_t<I>;
  const U ua = static_cast<U>(a), uc = static_cast<U>(c);
  switch (op) {
    case BinaryOp::Add: return static_cast<I>(ua + uc);
    case BinaryOp::Sub: return static_cast<I>(ua - uc);
    case BinaryOp::Mul: return static_cast<I>(ua * uc);
    case BinaryOp::Div:
      if (c == 0) return 0;
      if (c == -1) return static_cast<I>(U{0} - ua);
      return static_cast<I>(a / c);
    case BinaryOp::Mod:
      if (c == 0 || c == -1) return 0;
      return static_cast<I>(a % c);
    case BinaryOp::Min: return a < c ? a : c;
    case BinaryOp::Max: return a > c ? a : c;
    case BinaryOp::LT: return a < c;
    case BinaryOp::LE: return a <= c;
    case BinaryOp::GT: return a > c;
    case BinaryOp::GE: return a >= c;
    case BinaryOp::EQ: return a == c;
    case BinaryOp::NE: return a != c;
    case BinaryOp::And: return static_cast<I>(a & c);
    case BinaryOp::Or: return static_cast<I>(a | c);
    case BinaryOp::Xor: return static_cast<I>(a ^ c);
    case BinaryOp::Shl: return uc < sizeof(I) * 8 ? static_cast<I>(ua << uc) : I{0};
    case BinaryOp::Shr: return static_cast<I>(a >> (uc < sizeof(I) * 8 ? uc : sizeof(I) * 8 - 1));
    case BinaryOp::Pow: break;  // floating only (refused at trace time)
  }
  return 0;
}

}  // namespace pto::ir
