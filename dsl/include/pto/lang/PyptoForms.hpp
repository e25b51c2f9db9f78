#pragma once
// PyPTO Pro's spellings, as thin forms over the language's own (the fused tile expression stays
// the primary form: `c = a * b + 1.0f` is one vector instruction; `pl::mul(t, a, b);
// pl::add(c, t, 1.0f)` is two, as in PyPTO Pro). Names and argument orders follow PyPTO Pro's
// SIMD-API documentation (hicann/pypto docs/zh/pypto_pro/api/SIMD-API); differences are listed
// in docs/porting-from-pypto-pro.md.
//
//   destination-passing vector ops   add/sub/mul/div/maximum/minimum(out, lhs, rhs_or_scalar),
//                                    and_/or_/xor_/shl/shr(out, lhs, rhs_or_scalar), not_(out, src)
//                                    abs/neg/relu/exp/log/sqrt/rsqrt/recip/tanh/sigmoid/erf/sin/cos(out, src)
//   broadcast ops                    expand_add/sub/mul/div/max/min(out, src, vec, dim)
//                                    (dim 0: vec is [rows, 1]; dim 1: vec is [1, cols])
//                                    row_expand_* (dim 0) / col_expand_* (dim 1)
//   reductions                       sum/max/min/maximum/minimum/argmax/argmin(out, src, tmp, dim)  (dim 0: per row -> [rows, 1], dim 1: per column -> [1, cols]),
//                                    row_sum/row_max/row_min(out, src, tmp)
//   partial ops                      partadd/partmax/partmin/partmul(out, src0, src1)
//   loads and stores by offsets      load(tile, tensor, {row, col}), store(tensor, tile, {row, col}),
//                                    load_tile / store_tile (offsets in tiles), the extent is the
//                                    tile's valid shape (its capacity until set_validshape)
#include <array>
#include <initializer_list>
#include <source_location>

#include "pto/lang/Ops.hpp"
#include "pto/lang/Tensor.hpp"
#include "pto/lang/TileExpr.hpp"

namespace pto::lang {

/// The valid rows / columns of a tile slot when the instruction that reads it runs: what the
/// last instruction that wrote the slot (or pl::set_validshape) left, or the tile's capacity for a
/// slot nothing has written yet.
template <Element T>
Int valid_rows(const Tile<T>& t) {
  return Int(ir::TileValid::make(t.ref(), 0));
}
template <Element T>
Int valid_cols(const Tile<T>& t) {
  return Int(ir::TileValid::make(t.ref(), 1));
}

/// 1 / x element-wise.
template <TileOperand A>
auto recip(const A& a) {
  static_assert(is_floating(dtype_of<elem_t<A>>), "pto: pl::recip needs a floating-point tile (float, half or bfloat16)");
  return 1.0 / a;
}
/// maximum / minimum of two operands element-wise (the same as max / min).
template <class A, class B>
auto maximum(const A& a, const B& b) {
  return max(a, b);
}
template <class A, class B>
auto minimum(const A& a, const B& b) {
  return min(a, b);
}

namespace detail {
template <Element T, class E>
void assign(const Tile<T>& out, const E& value, const std::source_location& loc) {
  static_assert(std::is_same_v<elem_t<E>, T>, "pto: the destination tile's element type differs from the result's; convert with pl::cast<T>");
  emit_vec_compute(out.expr_ref(), value.node, SourceLoc::from(loc));
}
void check_expand_operand(const TileShape& src, const TileShape& vec, int dim, const char* op, const std::source_location& loc);
void check_reduce_dim(int dim, const char* op, const std::source_location& loc);
/// {row, col} offsets for a tensor of `rank` (1-D: {0, offset}); a wrong count is a user error.
std::array<Int, 2> offsets_of(std::initializer_list<Int> offsets, int rank, const char* op, const std::source_location& loc);
}  // namespace detail

#define PTO_DEST_BINARY(name, expr_form)                                                                        \
  template <Element T, class R>                                                                                 \
  void name(const Tile<T>& out, const Tile<T>& lhs, const R& rhs, std::source_location loc = std::source_location::current()) { \
    detail::assign(out, expr_form(lhs, rhs), loc);                                                              \
  }
#define PTO_PLUS(a, b) ((a) + (b))
#define PTO_MINUS(a, b) ((a) - (b))
#define PTO_TIMES(a, b) ((a) * (b))
#define PTO_OVER(a, b) ((a) / (b))
PTO_DEST_BINARY(add, PTO_PLUS)
PTO_DEST_BINARY(sub, PTO_MINUS)
PTO_DEST_BINARY(mul, PTO_TIMES)
PTO_DEST_BINARY(div, PTO_OVER)
PTO_DEST_BINARY(maximum, max)
PTO_DEST_BINARY(minimum, min)
PTO_DEST_BINARY(and_, and_)
PTO_DEST_BINARY(or_, or_)
PTO_DEST_BINARY(xor_, xor_)
PTO_DEST_BINARY(shl, shl)
PTO_DEST_BINARY(shr, shr)
#undef PTO_DEST_BINARY

#define PTO_DEST_UNARY(name)                                                                                   \
  template <Element T, TileOperand A>                                                                          \
  void name(const Tile<T>& out, const A& src, std::source_location loc = std::source_location::current()) {    \
    detail::assign(out, name(src), loc);                                                                       \
  }
PTO_DEST_UNARY(abs)
PTO_DEST_UNARY(neg)
PTO_DEST_UNARY(relu)
PTO_DEST_UNARY(exp)
PTO_DEST_UNARY(log)
PTO_DEST_UNARY(sqrt)
PTO_DEST_UNARY(rsqrt)
PTO_DEST_UNARY(recip)
PTO_DEST_UNARY(tanh)
PTO_DEST_UNARY(sigmoid)
PTO_DEST_UNARY(erf)
PTO_DEST_UNARY(sin)
PTO_DEST_UNARY(cos)
PTO_DEST_UNARY(not_)
#undef PTO_DEST_UNARY

/// out = src op vec, with vec broadcast: dim 0, a [rows, 1] tile along each row; dim 1, a
/// [1, cols] tile down each column (PyPTO Pro's expand_* ops).
#define PTO_EXPAND(name, op_name, expr_form)                                                                   \
  template <Element T>                                                                                         \
  void name(const Tile<T>& out, const Tile<T>& src, const Tile<T>& vec, int dim = 0,                           \
            std::source_location loc = std::source_location::current()) {                                     \
    detail::check_expand_operand(src.shape(), vec.shape(), dim, op_name, loc);                    \
    detail::assign(out, expr_form(src, vec), loc);                                                             \
  }
PTO_EXPAND(expand_add, "expand_add", PTO_PLUS)
PTO_EXPAND(expand_sub, "expand_sub", PTO_MINUS)
PTO_EXPAND(expand_mul, "expand_mul", PTO_TIMES)
PTO_EXPAND(expand_div, "expand_div", PTO_OVER)
PTO_EXPAND(expand_max, "expand_max", max)
PTO_EXPAND(expand_min, "expand_min", min)
#undef PTO_PLUS
#undef PTO_MINUS
#undef PTO_TIMES
#undef PTO_OVER
#undef PTO_EXPAND

/// row_expand_* (a [rows, 1] operand, expand_* with dim 0) and col_expand_* (a [1, cols]
/// operand, dim 1), as PyPTO Pro's tile-vector tests spell them.
#define PTO_ROW_COL_EXPAND(op)                                                                                 \
  template <Element T>                                                                                         \
  void row_##op(const Tile<T>& out, const Tile<T>& src, const Tile<T>& vec,                                    \
                std::source_location loc = std::source_location::current()) {                                 \
    op(out, src, vec, 0, loc);                                                                                 \
  }                                                                                                            \
  template <Element T>                                                                                         \
  void col_##op(const Tile<T>& out, const Tile<T>& src, const Tile<T>& vec,                                    \
                std::source_location loc = std::source_location::current()) {                                 \
    op(out, src, vec, 1, loc);                                                                                 \
  }
PTO_ROW_COL_EXPAND(expand_add)
PTO_ROW_COL_EXPAND(expand_sub)
PTO_ROW_COL_EXPAND(expand_mul)
PTO_ROW_COL_EXPAND(expand_div)
PTO_ROW_COL_EXPAND(expand_max)
PTO_ROW_COL_EXPAND(expand_min)
#undef PTO_ROW_COL_EXPAND

/// row_sum / row_max / row_min(out, src, tmp): PyPTO Pro's three-operand form (tmp unused).
#define PTO_ROW_REDUCE_TMP(name)                                                                               \
  template <Element U, Element T>                                                                              \
  void name(const Tile<U>& out, const Tile<T>& src, const Tile<T>& tmp,                                        \
            std::source_location loc = std::source_location::current()) {                                     \
    (void)tmp;                                                                                                 \
    name(out, src, loc);                                                                                       \
  }
PTO_ROW_REDUCE_TMP(row_sum)
PTO_ROW_REDUCE_TMP(row_max)
PTO_ROW_REDUCE_TMP(row_min)
#undef PTO_ROW_REDUCE_TMP

/// Reductions: dim 0 reduces each row into a [rows, 1] `out` (row_sum / row_max / row_min /
/// row_argmax / row_argmin), dim 1 each column into a [1, cols] `out` (the col_* forms); `tmp` is
/// accepted for PyPTO Pro compatibility and not used.
#define PTO_REDUCE(name, row_form, col_form)                                                                   \
  template <Element U, Element T>                                                                              \
  void name(const Tile<U>& out, const Tile<T>& src, const Tile<T>& tmp, int dim = 0,                           \
            std::source_location loc = std::source_location::current()) {                                     \
    (void)tmp;                                                                                                 \
    detail::check_reduce_dim(dim, #name, loc);                                                                 \
    if (dim == 0) {                                                                                            \
      row_form(out, src, loc);                                                                                 \
    } else {                                                                                                   \
      col_form(out, src, loc);                                                                                 \
    }                                                                                                          \
  }
PTO_REDUCE(sum, row_sum, col_sum)
PTO_REDUCE(max, row_max, col_max)
PTO_REDUCE(min, row_min, col_min)
PTO_REDUCE(argmax, row_argmax, col_argmax)
PTO_REDUCE(argmin, row_argmin, col_argmin)
#undef PTO_REDUCE

/// maximum / minimum(out, src, tmp, dim): PyPTO Pro's reduction spelling of max / min (the
/// three-operand maximum / minimum above are element-wise; here `dim` is required).
template <Element U, Element T>
void maximum(const Tile<U>& out, const Tile<T>& src, const Tile<T>& tmp, int dim,
             std::source_location loc = std::source_location::current()) {
  max(out, src, tmp, dim, loc);
}
template <Element U, Element T>
void minimum(const Tile<U>& out, const Tile<T>& src, const Tile<T>& tmp, int dim,
             std::source_location loc = std::source_location::current()) {
  min(out, src, tmp, dim, loc);
}

/// PyPTO Pro's fused and composite vector ops, each one fused instruction here (PyPTO Pro emits
/// two for some, and clobbers `lhs` with the intermediate; here no operand but `out` changes).
/// `out` is first, as in PyPTO Pro, and takes part where PyPTO Pro says so.
template <Element T, TileOperand S, ScalarOperand A>
void axpy(const Tile<T>& out, const S& src, const A& alpha, std::source_location loc = std::source_location::current()) {
  detail::assign(out, src * alpha + out, loc);  // out = alpha * src + out
}
template <Element T, TileOperand L, TileOperand R>
void fused_mul_add(const Tile<T>& out, const L& lhs, const R& rhs, std::source_location loc = std::source_location::current()) {
  detail::assign(out, lhs * out + rhs, loc);  // out is the multiplier
}
template <Element T, TileOperand A, TileOperand B>
void fused_mul_add_relu(const Tile<T>& out, const A& a, const B& b, std::source_location loc = std::source_location::current()) {
  detail::assign(out, relu(out * a + b), loc);
}
template <Element T, TileOperand L, TileOperand R>
void mul_add_dst(const Tile<T>& out, const L& lhs, const R& rhs, std::source_location loc = std::source_location::current()) {
  detail::assign(out, lhs * rhs + out, loc);  // out is the addend
}
template <Element T, TileOperand L, TileOperand R>
void add_relu(const Tile<T>& out, const L& lhs, const R& rhs, std::source_location loc = std::source_location::current()) {
  detail::assign(out, relu(lhs + rhs), loc);
}
template <Element T, TileOperand L, TileOperand R>
void sub_relu(const Tile<T>& out, const L& lhs, const R& rhs, std::source_location loc = std::source_location::current()) {
  detail::assign(out, relu(lhs - rhs), loc);
}
template <Element T, TileOperand A, TileOperand B, TileOperand C>
void addc(const Tile<T>& out, const A& a, const B& b, const C& c, std::source_location loc = std::source_location::current()) {
  detail::assign(out, a + b + c, loc);
}
/// The *_cast forms: `out`'s element type is PyPTO Pro's target_type; the result is computed in
/// float and rounded once by `mode`, PyPTO Pro's default CAST_ROUND (nearest, ties away from zero).
template <Element U, TileOperand L, TileOperand R>
void add_relu_cast(const Tile<U>& out, const L& lhs, const R& rhs, RoundMode mode = RoundMode::CAST_ROUND,
                   std::source_location loc = std::source_location::current()) {
  detail::assign(out, cast<U>(relu(lhs + rhs), mode), loc);
}
template <Element U, TileOperand L, TileOperand R>
void sub_relu_cast(const Tile<U>& out, const L& lhs, const R& rhs, RoundMode mode = RoundMode::CAST_ROUND,
                   std::source_location loc = std::source_location::current()) {
  detail::assign(out, cast<U>(relu(lhs - rhs), mode), loc);
}
template <Element U, TileOperand L, TileOperand R>
void mul_cast(const Tile<U>& out, const L& lhs, const R& rhs, RoundMode mode = RoundMode::CAST_ROUND,
              std::source_location loc = std::source_location::current()) {
  detail::assign(out, cast<U>(lhs * rhs, mode), loc);
}
/// PyPTO Pro's cast(out, src, mode=CAST_ROUND): out = src converted to out's element type.
template <Element U, TileOperand A>
void cast(const Tile<U>& out, const A& src, RoundMode mode = RoundMode::CAST_ROUND,
          std::source_location loc = std::source_location::current()) {
  detail::assign(out, cast<U>(src, mode), loc);
}
/// out = scalar everywhere (PyPTO Pro's expands): a constant, or a runtime scalar (pl::Int into
/// any tile, converted as pl::cast converts; pl::Float into a floating-point tile).
template <Element T, ScalarOperand S>
void expands(const Tile<T>& out, const S& scalar, std::source_location loc = std::source_location::current()) {
  ir::Expr value = detail::scalar_expr<T>(scalar);
  if constexpr (std::is_same_v<S, Int>) {
    if constexpr (is_floating(dtype_of<T>)) value = ir::Cast::make(DType::f32, value);  // the integer's value, not its bits
  }
  detail::emit_vec_compute(out.expr_ref(), value, SourceLoc::from(loc));
}

namespace detail {
/// partadd/partmax/partmin/partmul: the operand whose valid extent fits in the other's is the
/// partial one; out = the full operand, combined with the partial one over its extent.
void emit_part(const char* op, ir::BinaryOp combine, const ir::TileRef& out, const TileShape& out_shape, const ir::Expr& read0,
               const ir::TileRef& src0, const TileShape& shape0, const ir::Expr& read1, const ir::TileRef& src1,
               const TileShape& shape1, const std::source_location& loc);
}  // namespace detail

/// PyPTO Pro's partial ops (partadd/partmax/partmin/partmul): src0 OP src1 where both are valid,
/// the full operand's value elsewhere. One of the two may have a smaller valid extent (which one
/// is decided when the instruction runs); out's valid extent becomes the full one's. `out` must be
/// a tile other than src0 and src1 (here the op is a copy and a combine over the partial extent).
#define PTO_PART_OP(name, op)                                                                                   \
  template <Element T>                                                                                          \
  void name(const Tile<T>& out, const Tile<T>& src0, const Tile<T>& src1,                                       \
            std::source_location loc = std::source_location::current()) {                                       \
    detail::emit_part(#name, ir::BinaryOp::op, out.ref(), out.shape(), src0.read(), src0.ref(), src0.shape(),    \
                      src1.read(), src1.ref(), src1.shape(), loc);                                              \
  }
PTO_PART_OP(partadd, Add)
PTO_PART_OP(partmax, Max)
PTO_PART_OP(partmin, Min)
PTO_PART_OP(partmul, Mul)
#undef PTO_PART_OP

/// GM -> tile at element offsets ({offset} for a 1-D tensor, {row, col} for a 2-D one); the
/// extent is the tile's valid shape (its capacity until pl::set_validshape declares a tail).
/// An N-D tensor takes one offset per dimension: the leading ones fix a 2-D matrix of its last
/// two dimensions, which the tile's rows and columns cover.
template <Element T>
void load(const Tile<T>& dst, const Tensor<T>& src, std::initializer_list<Int> offsets,
          std::source_location loc = std::source_location::current()) {
  const auto off = detail::offsets_of(offsets, src.rank(), "load", loc);
  if (src.rank() == 1) return load(dst, src.slice(off[1], valid_cols(dst)), loc);
  const Tensor<T> m = src.matrix_at(std::span(offsets.begin(), offsets.size() - 2), loc);
  load(dst, m.slice(off[0], valid_rows(dst), off[1], valid_cols(dst), loc), loc);
}
/// tile -> GM at element offsets; the extent is the tile's valid shape.
template <Element T, Element U>
void store(const Tensor<T>& dst, const Tile<U>& src, std::initializer_list<Int> offsets, StoreOptions options = {},
           std::source_location loc = std::source_location::current()) {
  const auto off = detail::offsets_of(offsets, dst.rank(), "store", loc);
  if (dst.rank() == 1) return store(dst.slice(off[1], valid_cols(src)), src, options, loc);
  const Tensor<T> m = dst.matrix_at(std::span(offsets.begin(), offsets.size() - 2), loc);
  store(m.slice(off[0], valid_rows(src), off[1], valid_cols(src), loc), src, options, loc);
}
/// load / store with offsets counted in tiles: tile (i, j) starts at (i * rows, j * cols) of the
/// tile's shape.
template <Element T>
void load_tile(const Tile<T>& dst, const Tensor<T>& src, std::initializer_list<Int> index,
               std::source_location loc = std::source_location::current()) {
  const auto at = detail::offsets_of(index, src.rank(), "load_tile", loc);
  load(dst, src, {at[0] * dst.rows(), at[1] * dst.cols()}, loc);
}
template <Element T, Element U>
void store_tile(const Tensor<T>& dst, const Tile<U>& src, std::initializer_list<Int> index, StoreOptions options = {},
                std::source_location loc = std::source_location::current()) {
  const auto at = detail::offsets_of(index, dst.rank(), "store_tile", loc);
  store(dst, src, {at[0] * src.rows(), at[1] * src.cols()}, options, loc);
}

}  // namespace pto::lang
