#pragma once
// Data movement and reductions: each call emits one AI Core instruction.
//   load   GM -> Vec              (MTE2)  sets the tile's valid extent to the region's extent
//   store  Vec -> GM              (MTE3)  writes the region from the tile's valid part
//          ({.atomic = AtomicType::AtomicAdd}: adds to GM atomically)
//   row_sum / row_max / row_min   (V)     reduce each row of a tile expression into column 0
#include <source_location>

#include "pto/lang/Tensor.hpp"
#include "pto/lang/TileExpr.hpp"

namespace pto::lang {

/// How a store writes GM (PyPTO Pro's `atomic=` argument): AtomicNone overwrites, AtomicAdd adds
/// each element to what GM holds, atomically (f32, f16, bf16, i32 tensors), so several blocks
/// can accumulate into one region without a race. The region must hold the initial value (zero).
enum class AtomicType { AtomicNone, AtomicAdd };
/// PyPTO Pro's relu_pre_mode: NormalRelu writes max(x, 0) (x > 0 ? x : 0) of each element, before
/// the conversion to the tensor's dtype.
enum class ReluPreMode { NoRelu, NormalRelu };
/// PyPTO Pro's store(scale=...), per-tensor quantisation: each element (after relu_pre_mode) is
/// multiplied in float by the scale, then converted to the tensor's dtype. A trace-time number or
/// a runtime pl::Float; none by default. (PyPTO Pro's per-channel scale tile is not supported.)
class StoreScale {
 public:
  StoreScale() = default;
  StoreScale(double value) : expr_(ir::FloatImm::make(value)) {}  // NOLINT: {.scale = 0.5}
  StoreScale(const Float& value) : expr_(value.expr()) {}         // NOLINT: {.scale = alpha}
  const ir::Expr& expr() const { return expr_; }

 private:
  ir::Expr expr_;
};
/// PyPTO Pro's store(phase=...): the fixpipe's unit-flag handshake of a multi-step matmul
/// accumulation. Accepted for porting; it changes no result and the model charges it nothing.
enum class STPhase { Unspecified, Partial, Final };

struct StoreOptions {
  AtomicType atomic = AtomicType::AtomicNone;
  ReluPreMode relu_pre_mode = ReluPreMode::NoRelu;
  StoreScale scale{};
  STPhase phase = STPhase::Unspecified;
};

namespace detail {
void emit_load(const ir::TileRef& dst, const TileShape& shape, DType dtype, const ir::GMRegion& src, int src_rank,
               const std::source_location& loc);
void emit_store(const ir::GMRegion& dst, int dst_rank, const ir::TileRef& src, const TileShape& shape, DType dtype,
                const std::source_location& loc, const StoreOptions& options = {});
void emit_row_reduce(ir::ReduceOp op, const ir::TileRef& dst, const TileShape& dst_shape, DType dst_dtype,
                     const ir::Expr& value, const std::source_location& loc, int axis = 0);
}  // namespace detail

template <Element T>
void load(const Tile<T>& dst, const Slice<T>& src, std::source_location loc = std::source_location::current()) {
  detail::emit_load(dst.ref(), dst.shape(), dtype_of<T>, src.region, src.rank, loc);
}

template <Element T>
void store(const Slice<T>& dst, const Tile<T>& src, std::source_location loc = std::source_location::current()) {
  detail::emit_store(dst.region, dst.rank, src.ref(), src.shape(), dtype_of<T>, loc);
}
template <Element T>
void store(const Slice<T>& dst, const Tile<T>& src, StoreOptions options, std::source_location loc = std::source_location::current()) {
  detail::emit_store(dst.region, dst.rank, src.ref(), src.shape(), dtype_of<T>, loc,
                     options);
}

/// row_sum/row_max/row_min: each row into a {rows, 1} tile (the sum in a fixed order of 8
/// lanes, docs/semantics.md); col_sum/col_max/col_min: each column into a {1, cols} tile (the
/// rows combined in order from the first).
#define PTO_ROW_REDUCE(name, op, axis)                                                                    \
  template <Element U, TileOperand A>                                                                     \
  void name(const Tile<U>& dst, const A& src, std::source_location loc = std::source_location::current()) { \
    static_assert(std::is_same_v<U, elem_t<A>> || std::is_same_v<U, float>,                              \
                  "pto: a reduction writes the source's element type, or float");                        \
    detail::emit_row_reduce(ir::ReduceOp::op, dst.ref(), dst.shape(), \
                            dtype_of<U>, detail::operand_expr(src), loc, axis);                            \
  }
PTO_ROW_REDUCE(row_sum, Sum, 0)
PTO_ROW_REDUCE(row_max, Max, 0)
PTO_ROW_REDUCE(row_min, Min, 0)
PTO_ROW_REDUCE(col_sum, Sum, 1)
PTO_ROW_REDUCE(col_max, Max, 1)
PTO_ROW_REDUCE(col_min, Min, 1)
#undef PTO_ROW_REDUCE

/// row_argmax/row_argmin: per row, the column index of the first greatest / least element, into
/// an int32 {rows, 1} tile; col_argmax/col_argmin: per column, the row index, into {1, cols}.
/// NaN is never greatest or least (skipped); an all-NaN or empty extent gives 0.
#define PTO_ARG_REDUCE(name, op, axis)                                                                    \
  template <Element U, TileOperand A>                                                                     \
  void name(const Tile<U>& dst, const A& src, std::source_location loc = std::source_location::current()) { \
    static_assert(std::is_same_v<U, int32_t>, "pto: argmax/argmin write int32 indices: the destination is a Tile<int32_t>"); \
    detail::emit_row_reduce(ir::ReduceOp::op, dst.ref(), dst.shape(), DType::i32, detail::operand_expr(src), loc, axis); \
  }
PTO_ARG_REDUCE(row_argmax, ArgMax, 0)
PTO_ARG_REDUCE(row_argmin, ArgMin, 0)
PTO_ARG_REDUCE(col_argmax, ArgMax, 1)
PTO_ARG_REDUCE(col_argmin, ArgMin, 1)
#undef PTO_ARG_REDUCE

}  // namespace pto::lang
