#pragma once
// `pl::Int`: a runtime integer scalar (index arithmetic, loop variables, block index); `pl::Float`
// a runtime float parameter for tile expressions.
// Plain `int64_t` arithmetic stays trace-time constant; mixing it with a `pl::Int` builds IR,
// with constants folded. `pl::Bool` is a runtime condition for `pl::if_`; it does not convert
// to `bool`: a C++ `if` on a runtime value cannot be traced.
#include <concepts>
#include <optional>
#include <type_traits>

#include "pto/ir/IR.hpp"

namespace pto::lang {

class Int {
 public:
  template <std::integral I>
  Int(I v) : e_(ir::IntImm::make(static_cast<int64_t>(v))) {}  // NOLINT: int literals are Ints
  explicit Int(ir::Expr e) : e_(std::move(e)) {}

  const ir::Expr& expr() const { return e_; }
  std::optional<int64_t> constant() const {
    if (const auto* imm = e_.as<ir::IntImm>()) return imm->value;
    return std::nullopt;
  }

 private:
  ir::Expr e_;
};

/// `pl::Float`: a runtime f32 scalar: a kernel parameter (the host passes a float, half or
/// bfloat16), a pl::getval of a floating element, or arithmetic on them. It broadcasts into
/// floating-point tile expressions (`x * alpha + beta`); it is not a cache key, so every value
/// runs the same compiled kernel. `+ - * /`, pl::max / pl::min and comparisons with other
/// pl::Floats and C++ numbers compute in IEEE binary32, one rounding per operation.
class Float {
 public:
  explicit Float(ir::Expr e) : e_(std::move(e)) {}
  const ir::Expr& expr() const { return e_; }

 private:
  ir::Expr e_;
};

class Bool {
 public:
  explicit Bool(ir::Expr e) : e_(std::move(e)) {}
  Bool(bool b) : e_(ir::IntImm::make(b, DType::boolean)) {}  // NOLINT
  const ir::Expr& expr() const { return e_; }
  explicit operator bool() const = delete;  // runtime conditions need pl::if_

 private:
  ir::Expr e_;
};

#define PTO_INT_BINARY(sym, op)                                       \
  inline Int operator sym(const Int& a, const Int& b) {               \
    return Int(ir::Binary::make(ir::BinaryOp::op, a.expr(), b.expr())); \
  }
PTO_INT_BINARY(+, Add)
PTO_INT_BINARY(-, Sub)
PTO_INT_BINARY(*, Mul)
PTO_INT_BINARY(/, Div)
PTO_INT_BINARY(%, Mod)
#undef PTO_INT_BINARY

#define PTO_INT_COMPARE(sym, op)                                       \
  inline Bool operator sym(const Int& a, const Int& b) {               \
    return Bool(ir::Binary::make(ir::BinaryOp::op, a.expr(), b.expr())); \
  }
PTO_INT_COMPARE(<, LT)
PTO_INT_COMPARE(<=, LE)
PTO_INT_COMPARE(>, GT)
PTO_INT_COMPARE(>=, GE)
PTO_INT_COMPARE(==, EQ)
PTO_INT_COMPARE(!=, NE)
#undef PTO_INT_COMPARE

inline Bool operator&&(const Bool& a, const Bool& b) { return Bool(ir::Binary::make(ir::BinaryOp::And, a.expr(), b.expr())); }
inline Bool operator||(const Bool& a, const Bool& b) { return Bool(ir::Binary::make(ir::BinaryOp::Or, a.expr(), b.expr())); }
inline Int operator-(const Int& a) { return Int(0) - a; }

namespace detail {
inline ir::Expr float_operand(const Float& f) { return f.expr(); }
template <class N> requires std::is_arithmetic_v<N>
ir::Expr float_operand(N n) { return ir::FloatImm::make(static_cast<float>(n), DType::f32); }
template <class A, class B>
concept FloatScalarPair = (std::is_same_v<A, Float> && (std::is_same_v<B, Float> || std::is_arithmetic_v<B>)) ||
                          (std::is_arithmetic_v<A> && std::is_same_v<B, Float>);
}  // namespace detail

#define PTO_FLOAT_BINARY(sym, op, R)                                                           \
  template <class A, class B> requires detail::FloatScalarPair<A, B>                           \
  R sym(const A& a, const B& b) {                                                              \
    return R(ir::Binary::make(ir::BinaryOp::op, detail::float_operand(a), detail::float_operand(b))); \
  }
PTO_FLOAT_BINARY(operator+, Add, Float)
PTO_FLOAT_BINARY(operator-, Sub, Float)
PTO_FLOAT_BINARY(operator*, Mul, Float)
PTO_FLOAT_BINARY(operator/, Div, Float)
PTO_FLOAT_BINARY(operator<, LT, Bool)
PTO_FLOAT_BINARY(operator<=, LE, Bool)
PTO_FLOAT_BINARY(operator>, GT, Bool)
PTO_FLOAT_BINARY(operator>=, GE, Bool)
PTO_FLOAT_BINARY(operator==, EQ, Bool)
PTO_FLOAT_BINARY(operator!=, NE, Bool)
#undef PTO_FLOAT_BINARY
/// i64 -> f32, to nearest even (pl::Float(n) in effect).
inline Float to_float(const Int& n) { return Float(ir::Cast::make(DType::f32, n.expr())); }
/// f32 -> i64 toward zero, saturating at the i64 range, NaN to 0.
inline Int to_int(const Float& x) { return Int(ir::Cast::make(DType::i64, x.expr())); }
/// -x flips the sign (of zeros and NaNs too): x * -1, exact.
inline Float operator-(const Float& a) { return a * -1.0f; }
inline Int& operator+=(Int& a, const Int& b) { return a = a + b; }

inline Int min(const Int& a, const Int& b) { return Int(ir::Binary::make(ir::BinaryOp::Min, a.expr(), b.expr())); }
inline Int max(const Int& a, const Int& b) { return Int(ir::Binary::make(ir::BinaryOp::Max, a.expr(), b.expr())); }
/// max / min of pl::Floats: the tile operators' rule (a NaN operand gives the other; +0 above -0).
template <class A, class B> requires detail::FloatScalarPair<A, B>
Float min(const A& a, const B& b) { return Float(ir::Binary::make(ir::BinaryOp::Min, detail::float_operand(a), detail::float_operand(b))); }
template <class A, class B> requires detail::FloatScalarPair<A, B>
Float max(const A& a, const B& b) { return Float(ir::Binary::make(ir::BinaryOp::Max, detail::float_operand(a), detail::float_operand(b))); }
/// ceil(a / b) for a >= 0, b > 0.
inline Int ceil_div(const Int& a, const Int& b) { return (a + b - 1) / b; }

}  // namespace pto::lang
