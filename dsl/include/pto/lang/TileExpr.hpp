#pragma once
// Tile expressions. Operators and functions on tiles build an expression tree; assigning it to
// a tile emits ONE fused vector instruction (no intermediate tiles). The element type is part
// of the C++ type, so mixing dtypes without `pl::cast<U>` is a compile error with a readable
// message. Scalars (C++ numbers, `pl::Int`, `pl::Float`) broadcast to every element.
#include <type_traits>

#include "pto/lang/Tile.hpp"

namespace pto::lang {

template <Element T>
struct TExpr {
  using element_type = T;
  ir::Expr node;
};

/// An element-wise condition, from comparing tile expressions; consumed by `pl::select`.
struct Mask {
  ir::Expr node;
};

namespace detail {
template <class X> struct tile_operand : std::false_type {};
template <Element T> struct tile_operand<Tile<T>> : std::true_type { using elem = T; };
template <Element T> struct tile_operand<TExpr<T>> : std::true_type { using elem = T; };

template <Element T> ir::Expr operand_expr(const Tile<T>& t) { return t.read(); }
template <Element T> ir::Expr operand_expr(const TExpr<T>& e) { return e.node; }

template <Element T, class S>
ir::Expr scalar_expr(const S& s) {
  if constexpr (std::is_same_v<S, Int>) {
    return s.expr();
  } else if constexpr (std::is_same_v<S, Float>) {
    static_assert(is_floating(dtype_of<T>),
                  "pto: a runtime float scalar (pl::Float) broadcasts into floating-point tiles only; convert the tile with pl::cast<float>");
    return s.expr();
  } else if constexpr (is_floating(dtype_of<T>)) {
    return ir::FloatImm::make(static_cast<double>(s), DType::f32);
  } else {
    return ir::IntImm::make(static_cast<int64_t>(s), DType::i32);
  }
}
}  // namespace detail

template <class X>
concept TileOperand = detail::tile_operand<std::remove_cvref_t<X>>::value;
template <class X>
concept ScalarOperand = std::is_arithmetic_v<std::remove_cvref_t<X>> || std::is_same_v<std::remove_cvref_t<X>, Int> ||
                        std::is_same_v<std::remove_cvref_t<X>, Float>;
template <TileOperand X>
using elem_t = typename detail::tile_operand<std::remove_cvref_t<X>>::elem;

template <class A, class B>
inline constexpr bool same_elem_v = std::is_same_v<elem_t<A>, elem_t<B>>;

#define PTO_DTYPE_MISMATCH_MESSAGE \
  "pto: the tile operands have different element types; convert one with pl::cast<T>(...)"

// Element-wise binary operators and functions: tile op tile, tile op scalar, scalar op tile.
#define PTO_TILE_BINARY(name, op)                                                                  \
  template <TileOperand A, TileOperand B>                                                          \
  auto name(const A& a, const B& b) {                                                              \
    static_assert(same_elem_v<A, B>, PTO_DTYPE_MISMATCH_MESSAGE);                                  \
    return TExpr<elem_t<A>>{ir::Binary::make(ir::BinaryOp::op, detail::operand_expr(a), detail::operand_expr(b))}; \
  }                                                                                                \
  template <TileOperand A, ScalarOperand S>                                                        \
  auto name(const A& a, const S& s) {                                                              \
    return TExpr<elem_t<A>>{ir::Binary::make(ir::BinaryOp::op, detail::operand_expr(a), detail::scalar_expr<elem_t<A>>(s))}; \
  }                                                                                                \
  template <ScalarOperand S, TileOperand B>                                                        \
  auto name(const S& s, const B& b) {                                                              \
    return TExpr<elem_t<B>>{ir::Binary::make(ir::BinaryOp::op, detail::scalar_expr<elem_t<B>>(s), detail::operand_expr(b))}; \
  }
PTO_TILE_BINARY(operator+, Add)
PTO_TILE_BINARY(operator-, Sub)
PTO_TILE_BINARY(operator*, Mul)
PTO_TILE_BINARY(operator/, Div)
PTO_TILE_BINARY(max, Max)
PTO_TILE_BINARY(min, Min)
#undef PTO_TILE_BINARY

// Element-wise binary functions defined for one kind of dtype: `allowed(dtype)` must hold for the
// tiles' element type, else `message` is the compile error.
#define PTO_TILE_RESTRICTED(name, op, allowed, message)                                           \
  template <TileOperand A, TileOperand B>                                                          \
  auto name(const A& a, const B& b) {                                                              \
    static_assert(same_elem_v<A, B>, PTO_DTYPE_MISMATCH_MESSAGE);                                  \
    static_assert(allowed(dtype_of<elem_t<A>>), message);                                          \
    return TExpr<elem_t<A>>{ir::Binary::make(ir::BinaryOp::op, detail::operand_expr(a), detail::operand_expr(b))}; \
  }                                                                                                \
  template <TileOperand A, ScalarOperand S>                                                        \
  auto name(const A& a, const S& s) {                                                              \
    static_assert(allowed(dtype_of<elem_t<A>>), message);                                          \
    return TExpr<elem_t<A>>{ir::Binary::make(ir::BinaryOp::op, detail::operand_expr(a), detail::scalar_expr<elem_t<A>>(s))}; \
  }                                                                                                \
  template <ScalarOperand S, TileOperand B>                                                        \
  auto name(const S& s, const B& b) {                                                              \
    static_assert(allowed(dtype_of<elem_t<B>>), message);                                          \
    return TExpr<elem_t<B>>{ir::Binary::make(ir::BinaryOp::op, detail::scalar_expr<elem_t<B>>(s), detail::operand_expr(b))}; \
  }

namespace detail {
constexpr bool integer_dtype(DType t) { return !is_floating(t); }
}  // namespace detail

// Bitwise operators on integer tiles (docs/semantics.md: shift counts are unsigned; a count not
// below the element width shifts everything out). PyPTO Pro's names and_/or_/xor_/not_/shl/shr
// (C++ reserves and/or/xor/not) are the same operations.
#define PTO_TILE_BITWISE(name, op) \
  PTO_TILE_RESTRICTED(name, op, detail::integer_dtype, "pto: bitwise operators and shifts need integer tiles (int32_t, int8_t)")
PTO_TILE_BITWISE(operator&, And)
PTO_TILE_BITWISE(operator|, Or)
PTO_TILE_BITWISE(operator^, Xor)
PTO_TILE_BITWISE(operator<<, Shl)
PTO_TILE_BITWISE(operator>>, Shr)
PTO_TILE_BITWISE(and_, And)
PTO_TILE_BITWISE(or_, Or)
PTO_TILE_BITWISE(xor_, Xor)
PTO_TILE_BITWISE(shl, Shl)
PTO_TILE_BITWISE(shr, Shr)
#undef PTO_TILE_BITWISE

/// pow(base, exponent) element-wise on floating-point tiles: the C library's powf in float, rounded
/// once into the destination (docs/semantics.md).
PTO_TILE_RESTRICTED(pow, Pow, is_floating, "pto: pl::pow needs floating-point tiles (float, half, bfloat16)")
#undef PTO_TILE_RESTRICTED

template <TileOperand A>
auto operator~(const A& a) {
  static_assert(!is_floating(dtype_of<elem_t<A>>), "pto: bitwise operators and shifts need integer tiles (int32_t, int8_t)");
  return TExpr<elem_t<A>>{ir::Unary::make(ir::UnaryOp::Not, detail::operand_expr(a))};
}
template <TileOperand A>
auto not_(const A& a) {
  return ~a;
}

#define PTO_TILE_COMPARE(name, op)                                                                 \
  template <TileOperand A, TileOperand B>                                                          \
  Mask name(const A& a, const B& b) {                                                              \
    static_assert(same_elem_v<A, B>, PTO_DTYPE_MISMATCH_MESSAGE);                                  \
    return Mask{ir::Binary::make(ir::BinaryOp::op, detail::operand_expr(a), detail::operand_expr(b))}; \
  }                                                                                                \
  template <TileOperand A, ScalarOperand S>                                                        \
  Mask name(const A& a, const S& s) {                                                              \
    return Mask{ir::Binary::make(ir::BinaryOp::op, detail::operand_expr(a), detail::scalar_expr<elem_t<A>>(s))}; \
  }
PTO_TILE_COMPARE(operator<, LT)
PTO_TILE_COMPARE(operator<=, LE)
PTO_TILE_COMPARE(operator>, GT)
PTO_TILE_COMPARE(operator>=, GE)
PTO_TILE_COMPARE(operator==, EQ)
PTO_TILE_COMPARE(operator!=, NE)
#undef PTO_TILE_COMPARE

#define PTO_TILE_UNARY(name, op, float_only)                                                      \
  template <TileOperand A>                                                                         \
  auto name(const A& a) {                                                                          \
    static_assert(!(float_only) || is_floating(dtype_of<elem_t<A>>),                               \
                  "pto: pl::" #name " needs a floating-point tile (float, half or bfloat16)");     \
    return TExpr<elem_t<A>>{ir::Unary::make(ir::UnaryOp::op, detail::operand_expr(a))};           \
  }
PTO_TILE_UNARY(operator-, Neg, false)
PTO_TILE_UNARY(neg, Neg, false)
PTO_TILE_UNARY(abs, Abs, false)
PTO_TILE_UNARY(relu, Relu, false)
PTO_TILE_UNARY(exp, Exp, true)
PTO_TILE_UNARY(log, Log, true)
PTO_TILE_UNARY(sqrt, Sqrt, true)
PTO_TILE_UNARY(rsqrt, Rsqrt, true)
PTO_TILE_UNARY(tanh, Tanh, true)
PTO_TILE_UNARY(sigmoid, Sigmoid, true)
PTO_TILE_UNARY(erf, Erf, true)
PTO_TILE_UNARY(sin, Sin, true)
PTO_TILE_UNARY(cos, Cos, true)
#undef PTO_TILE_UNARY

/// PyPTO Pro's RoundMode (pl::RoundMode::CAST_ROUND, ...): how pl::cast rounds (ir::RoundMode).
using ir::RoundMode;

/// Element-wise conversion to U: round to nearest even between floats, truncation toward zero
/// with saturation from float to integer, saturation between integers; with a RoundMode, rounded
/// as PyPTO Pro's mode says (docs/semantics.md).
template <Element U, TileOperand A>
TExpr<U> cast(const A& a, RoundMode mode = RoundMode::Default) {
  return TExpr<U>{ir::Cast::make(dtype_of<U>, detail::operand_expr(a), mode)};
}

/// `mask ? a : b` element-wise.
template <TileOperand A, TileOperand B>
auto select(const Mask& m, const A& a, const B& b) {
  static_assert(same_elem_v<A, B>, PTO_DTYPE_MISMATCH_MESSAGE);
  return TExpr<elem_t<A>>{ir::Select::make(m.node, detail::operand_expr(a), detail::operand_expr(b))};
}
template <TileOperand A, ScalarOperand S>
auto select(const Mask& m, const A& a, const S& s) {
  return TExpr<elem_t<A>>{ir::Select::make(m.node, detail::operand_expr(a), detail::scalar_expr<elem_t<A>>(s))};
}
template <ScalarOperand S, TileOperand B>
auto select(const Mask& m, const S& s, const B& b) {
  return TExpr<elem_t<B>>{ir::Select::make(m.node, detail::scalar_expr<elem_t<B>>(s), detail::operand_expr(b))};
}

}  // namespace pto::lang
