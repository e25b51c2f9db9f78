#pragma once
// pl::vector_function: PyPTO Pro's @pl.vector_function (Ascend C's __simd_vf__ functions on
// RegTensors and MaskRegs) in this language. Inside the function, vf.load(tile) brings a tile into
// a register; registers are tile expressions (`+ - * /`, pl::exp, pl::cast, comparisons that
// make masks, pl::select); vf.store(tile, register[, mask]) writes one back, vf.row_sum(...) and
// the other reductions reduce one. A register used by several stores or reductions is computed
// once. The whole function is one launch on the vector unit: the timing model charges one start
// and drain (`vector.vf_head_cycles`, chip profile) and each distinct operation's per-repeat cost,
// where the same steps as separate tile instructions pay every instruction's head and recompute
// what they share — the seed's advice (many fine-grained vector steps: use a Vector Function)
// shows in simulated time.
//
// Rules (a pto::UserError names the line otherwise): only vf operations inside (no other
// instruction, loop or tile assignment; move them out); a tile the function stores is not also
// loaded by it (registers carry values between steps; tiles are compared by tile group); no
// vector function inside another.
//
//   pl::vector_function([&](pl::VectorFunction& vf) {
//     auto x = vf.load(xt);
//     auto u = x * (1.0f + 0.044715f * x * x);
//     auto g = 0.5f * x * (1.0f + pl::tanh(0.7978845608f * u));
//     vf.store(yt, g);
//     vf.row_max(mt, g);
//   });
#include <set>
#include <source_location>

#include "pto/lang/Ops.hpp"
#include "pto/lang/Tile.hpp"
#include "pto/lang/TileExpr.hpp"

namespace pto::lang {

namespace detail {
/// Checks the load / store rule for tile group `group` (a load after a store of it, or a store
/// after a load) at `loc`.
void vf_check_tile(int group, bool store, const std::set<int>& loaded, const std::set<int>& stored, const std::source_location& loc);
}  // namespace detail

class VectorFunction {
 public:
  /// A register holding the tile's elements (its valid extent, or a view's window).
  template <Element T>
  TExpr<T> load(const Tile<T>& t, std::source_location loc = std::source_location::current()) {
    detail::vf_check_tile(t.expr_ref().group, false, loaded_, stored_, loc);
    loaded_.insert(t.expr_ref().group);
    return TExpr<T>{t.read()};
  }

  /// t = value (a tile, or a view of one).
  template <Element T, class V>
  void store(const Tile<T>& t, const V& value, std::source_location loc = std::source_location::current()) {
    detail::vf_check_tile(t.expr_ref().group, true, loaded_, stored_, loc);
    stored_.insert(t.expr_ref().group);
    Emitting on(loc);
    detail::emit_vec_compute(t.expr_ref(), value_expr<T>(value, loc), SourceLoc::from(loc));
    on.mark();
  }

  /// t = mask ? value : t (a masked store: elements where the mask is false keep their value).
  template <Element T, class V>
  void store(const Tile<T>& t, const V& value, const Mask& mask, std::source_location loc = std::source_location::current()) {
    detail::vf_check_tile(t.expr_ref().group, true, loaded_, stored_, loc);
    stored_.insert(t.expr_ref().group);
    Emitting on(loc);
    detail::emit_vec_compute(t.expr_ref(), ::pto::lang::select(mask, TExpr<T>{value_expr<T>(value, loc)}, t).node, SourceLoc::from(loc));
    on.mark();
  }

#define PTO_VF_REDUCE(name)                                                                                  \
  template <Element U, class A>                                                                            \
  void name(const Tile<U>& dst, const A& value, std::source_location loc = std::source_location::current()) { \
    detail::vf_check_tile(dst.expr_ref().group, true, loaded_, stored_, loc);                               \
    stored_.insert(dst.expr_ref().group);                                                                   \
    Emitting on(loc);                                                                                       \
    ::pto::lang::name(dst, value, loc);                                                                     \
    on.mark();                                                                                              \
  }
  PTO_VF_REDUCE(row_sum)
  PTO_VF_REDUCE(row_max)
  PTO_VF_REDUCE(row_min)
  PTO_VF_REDUCE(col_sum)
  PTO_VF_REDUCE(col_max)
  PTO_VF_REDUCE(col_min)
#undef PTO_VF_REDUCE

 private:
  /// Lets one vf operation emit its instruction, then marks it as the function's.
  struct Emitting {
    TraceContext& ctx;
    int first;
    explicit Emitting(const std::source_location& loc) : ctx(TraceContext::get(loc)), first(static_cast<int>(ctx.kernel().instrs.size())) {
      ctx.note(loc);
      ctx.set_vf_op(true);
    }
    ~Emitting() { ctx.set_vf_op(false); }
    void mark() {
      for (int id = first; id < static_cast<int>(ctx.kernel().instrs.size()); ++id) ctx.mark_vf_instr(id);
    }
  };
  /// A stored value: a register (tile expression), a tile, or a scalar that fills.
  template <Element T, class V>
  static ir::Expr value_expr(const V& v, const std::source_location& loc) {
    if constexpr (detail::tile_operand<V>::value) {
      static_assert(std::is_same_v<typename detail::tile_operand<V>::elem, T>,
                    "pto: vf.store of a value of another element type; convert it with pl::cast<T>");
      return detail::operand_expr(v);
    } else {
      return TileValue<T>(v, loc).expr;
    }
  }

  std::set<int> loaded_, stored_;
};

/// Runs `body(vf)` as one vector function (see above).
template <class F>
void vector_function(F&& body, std::source_location loc = std::source_location::current()) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  ctx.begin_vector_function();
  struct End {
    TraceContext& c;
    ~End() { c.end_vector_function(); }
  } end{ctx};
  VectorFunction vf;
  body(vf);
}

}  // namespace pto::lang
