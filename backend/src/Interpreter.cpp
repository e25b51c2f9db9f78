// The reference interpreter (Interpreter.hpp): statements, scalars, data movement, the cube and
// the hooks, each step mirroring the code CodeGenLLVM.cpp emits for it — the same runtime checks
// in the same order with the same operands, the same valid extents, the same hook calls.
#include "pto/backend/Interpreter.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

#include "InterpreterImpl.hpp"
#include "pto/ir/FloatSemantics.hpp"
#include "pto/ir/IntSemantics.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/support/Error.hpp"

namespace pto::backend {
namespace interp {

/// One statement of the prepared program.
struct Op {
  const ir::StmtNode* node = nullptr;
  std::vector<int> children;    // Seq: its body; For/Section: {body}; IfThenElse: {then, else} (-1: none)
  int expr = -1;                // VecCompute / RowReduce: index into Program::exprs
  std::vector<ir::Expr> slots;  // the slot of each tile access, in ir::tile_accesses order
  int64_t loop_cost = 0;        // For: ir::loop_iteration_cost(body)
};

struct Program {
  const ir::Kernel* k = nullptr;
  bool instrument = false;
  int64_t align[6] = {};              // gm_move_alignment per space
  std::vector<int64_t> valid_base;    // per group: index of slot 0's rows in Frame::valid
  size_t valid_size = 0;
  std::vector<int64_t> valid_start;   // Frame::valid at the start: 0, or a placed tile's shape (CodeGen)
  size_t slots_size = 1;
  std::vector<Op> ops;
  std::vector<CompiledExpr> exprs;
  int root = -1;

  int build(const ir::Stmt& s) {
    if (!s) return -1;
    Op op;
    op.node = s.get();
    for (const auto& a : ir::tile_accesses(s.get())) op.slots.push_back(a.tile.slot);
    slots_size = std::max(slots_size, op.slots.size());
    switch (s->kind) {
      case ir::NodeKind::Seq:
        for (const auto& b : s.as<ir::Seq>()->body) op.children.push_back(build(b));
        break;
      case ir::NodeKind::For:
        op.children.push_back(build(s.as<ir::For>()->body));
        op.loop_cost = ir::loop_iteration_cost(s.as<ir::For>()->body);
        break;
      case ir::NodeKind::IfThenElse:
        op.children.push_back(build(s.as<ir::IfThenElse>()->then_case));
        op.children.push_back(build(s.as<ir::IfThenElse>()->else_case));
        break;
      case ir::NodeKind::Section:
        op.children.push_back(build(s.as<ir::Section>()->body));
        break;
      case ir::NodeKind::VecCompute:
        exprs.push_back(compile_tile_expr(s.as<ir::VecCompute>()->value, *k));
        op.expr = static_cast<int>(exprs.size()) - 1;
        break;
      case ir::NodeKind::RowReduce:
        exprs.push_back(compile_tile_expr(s.as<ir::RowReduce>()->value, *k));
        op.expr = static_cast<int>(exprs.size()) - 1;
        break;
      default:
        break;
    }
    ops.push_back(std::move(op));
    return static_cast<int>(ops.size()) - 1;
  }
};

int64_t eval_scalar(const ir::ExprNode* e, const Frame& f) {
  switch (e->kind) {
    case ir::NodeKind::IntImm: {
      const auto* op = static_cast<const ir::IntImm*>(e);
      return op->type.dtype == DType::boolean ? (op->value != 0 ? 1 : 0) : op->value;
    }
    case ir::NodeKind::Var: {
      const auto* op = static_cast<const ir::Var*>(e);
      switch (op->var_kind) {
        case ir::VarKind::BlockIdx: return f.block_idx;
        case ir::VarKind::BlockNum: return f.block_num;
        case ir::VarKind::SubblockIdx: return f.subblock_idx;
        case ir::VarKind::SubblockNum: return f.subblock_num;
        default: return f.vars[static_cast<size_t>(op->id)];
      }
    }
    case ir::NodeKind::Cast: {  // i64 <-> f32 (CodeGen::scalar)
      const auto* op = static_cast<const ir::Cast*>(e);
      const int64_t v = eval_scalar(op->a.get(), f);
      if (op->type.dtype == DType::f32) return std::bit_cast<uint32_t>(static_cast<float>(v));
      return ir::f32_to_i64(std::bit_cast<float>(static_cast<uint32_t>(v)));
    }
    case ir::NodeKind::FloatImm:  // an f32 scalar: its bits (CodeGen::scalar)
      return std::bit_cast<uint32_t>(static_cast<float>(static_cast<const ir::FloatImm*>(e)->value));
    case ir::NodeKind::Binary: {
      const auto* op = static_cast<const ir::Binary*>(e);
      if (op->a->type.dtype == DType::f32) {  // CodeGen::float_scalar
        auto as_float = [&](const ir::Expr& x) { return std::bit_cast<float>(static_cast<uint32_t>(eval_scalar(x.get(), f))); };
        return ir::float_binary_bits(op->op, as_float(op->a), as_float(op->b));
      }
      return ir::int_binary<int64_t>(op->op, eval_scalar(op->a.get(), f), eval_scalar(op->b.get(), f));
    }
    case ir::NodeKind::TileValid: {
      // CodeGen::scalar: a slot never written or declared (0 x 0) reads as its capacity.
      const auto* op = static_cast<const ir::TileValid*>(e);
      const auto& g = f.kernel->groups[static_cast<size_t>(op->tile.group)];
      const size_t at = static_cast<size_t>(f.valid_base[op->tile.group] + eval_scalar(op->tile.slot.get(), f) * 2);
      const int64_t rows = f.valid[at], cols = f.valid[at + 1];
      if (rows == 0 && cols == 0 && !op->stored) return op->axis == 0 ? g.rows : g.cols;
      return op->axis == 0 ? rows : cols;
    }
    default:
      break;
  }
  PTO_INTERNAL_CHECK(false) << "unexpected scalar expression";
  return 0;
}

namespace {

struct Region {
  int64_t off[2];
  int64_t ext[2];
  int64_t base;       // elements from the tensor's first element to the view's origin (ir::GMRegion)
  int64_t pitch;      // elements from one row of the view to the next
  int64_t col_step;   // elements from one column to the next (1 unless the view is permuted)
  bool unit_columns;  // the column stride is the constant 1 (CodeGen::Region::unit_columns): the cost of a run
};

int64_t wadd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wsub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wmul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

/// Runs the program on one core. Every statement returns false when the core must stop (a
/// failed check, a deadlock answer of the cross hook, a trap): the generated code's `ret`.
class Runner {
 public:
  Runner(const Program& p, Frame& f) : p_(p), k_(*p.k), f_(f) {}

  bool stmt(int index) {
    if (index < 0) return true;
    const Op& op = p_.ops[static_cast<size_t>(index)];
    const ir::StmtNode* s = op.node;
    switch (s->kind) {
      case ir::NodeKind::Seq:
        for (int c : op.children) {
          if (!stmt(c)) return false;
          if (exit_ != Exit::none) return true;  // a break/continue unwinds to its loop
        }
        return true;
      case ir::NodeKind::LoopExit:
        exit_ = static_cast<const ir::LoopExit*>(s)->brk ? Exit::brk : Exit::cont;
        return true;
      case ir::NodeKind::For: return for_loop(op, static_cast<const ir::For*>(s));
      case ir::NodeKind::IfThenElse:
        return stmt(eval(static_cast<const ir::IfThenElse*>(s)->cond) != 0 ? op.children[0] : op.children[1]);
      case ir::NodeKind::Assign: {
        const auto* a = static_cast<const ir::Assign*>(s);
        f_.vars[static_cast<size_t>(a->var.as<ir::Var>()->id)] = eval(a->value);
        return true;
      }
      case ir::NodeKind::Load: return load(op, static_cast<const ir::Load*>(s));
      case ir::NodeKind::Store: return store(op, static_cast<const ir::Store*>(s));
      case ir::NodeKind::VecCompute: return vec_compute(op, static_cast<const ir::VecCompute*>(s));
      case ir::NodeKind::RowReduce: return row_reduce(op, static_cast<const ir::RowReduce*>(s));
      case ir::NodeKind::VecRoutine: return vec_routine(op, static_cast<const ir::VecRoutine*>(s));
      case ir::NodeKind::Move: return move(op, static_cast<const ir::Move*>(s));
      case ir::NodeKind::Matmul: return matmul(op, static_cast<const ir::Matmul*>(s));
      case ir::NodeKind::SetValid: return set_valid_shape(op, static_cast<const ir::SetValid*>(s));
      case ir::NodeKind::ElemAccess: return elem_access(op, static_cast<const ir::ElemAccess*>(s));
      case ir::NodeKind::Section:
        if (f_.core_kind == static_cast<int64_t>(static_cast<const ir::Section*>(s)->core)) return stmt(op.children[0]);
        return true;
      case ir::NodeKind::Sync: return sync(static_cast<const ir::Sync*>(s));
      case ir::NodeKind::Debug: return debug(op, static_cast<const ir::Debug*>(s));
      case ir::NodeKind::Check: {
        const auto* c = static_cast<const ir::Check*>(s);
        return check(eval(c->cond) != 0, c->instr, c->check, c->axis, eval(c->args[0]), eval(c->args[1]), eval(c->args[2]));
      }
      default: break;
    }
    PTO_INTERNAL_CHECK(false) << "unexpected statement";
    return false;
  }

 private:
  int64_t eval(const ir::Expr& e) const { return eval_scalar(e.get(), f_); }
  /// An f32 scalar: a trace-time constant, or a runtime pl::Float (its slot holds the float's bits).
  float eval_float(const ir::Expr& e) const {
    if (const auto* c = e.as<ir::FloatImm>()) return static_cast<float>(c->value);
    return std::bit_cast<float>(static_cast<uint32_t>(eval(e)));
  }

  /// Continues when `ok`; otherwise reports `check` (the generated code's `check`).
  bool check(bool ok, int instr, RuntimeCheck chk, int axis, int64_t a, int64_t b, int64_t c = 0) {
    if (ok) return true;
    pto_rt_fail(f_.ctx, instr, static_cast<int32_t>(chk), axis, a, b, c);
    return false;
  }

  // ---------------------------------------------------------------------------- tiles
  const ir::TileGroup& group(const ir::TileRef& t) const { return k_.groups[static_cast<size_t>(t.group)]; }
  int64_t slot(const ir::TileRef& t) const {
    const int64_t s = eval(t.slot);
    PTO_INTERNAL_CHECK(s >= 0 && s < group(t).depth) << "slot " << s << " of tile group " << group(t).name << " (depth "
                                                     << group(t).depth << ") is out of range";
    return s;
  }
  uint8_t* tile_base(const ir::TileRef& t) const { return tile_base_in(f_.arena[static_cast<size_t>(group(t).space)], t); }
  /// The tile's slot in `arena`: this core's memory of its space, or a peer core's (cross-core moves).
  /// A view (TileWindow) starts at its window's first element, with the tile's row pitch.
  uint8_t* tile_base_in(uint8_t* arena, const ir::TileRef& t) const {
    const auto& g = group(t);
    uint8_t* base = arena + g.offset + slot(t) * g.slot_bytes;
    if (t.window) base += (eval(t.window->offset[0]) * g.cols + eval(t.window->offset[1])) * static_cast<int64_t>(dtype_size(g.dtype));
    return base;
  }
  int64_t& valid(const ir::TileRef& t, int axis) const {
    return f_.valid[static_cast<size_t>(p_.valid_base[static_cast<size_t>(t.group)] + slot(t) * 2 + axis)];
  }
  void set_valid(const ir::TileRef& t, int64_t rows, int64_t cols) const {
    valid(t, 0) = rows;
    valid(t, 1) = cols;
  }

  /// The exec hook of instrumented code (CodeGen::report).
  void report(const Op& op, int instr, int64_t amount, int64_t gm_lo = 0, int64_t gm_hi = 0) {
    if (!p_.instrument) return;
    for (size_t i = 0; i < op.slots.size(); ++i) f_.slots[i] = eval(op.slots[i]);
    f_.exec(f_.model, instr, amount, f_.slots.data(), gm_lo, gm_hi);
  }

  // ---------------------------------------------------------------------------- control flow
  bool for_loop(const Op& op, const ir::For* s) {
    const int64_t begin = eval(s->begin), end = eval(s->end), step = eval(s->step);
    if (!check(step != 0, s->instr, RuntimeCheck::range_step, 0, step, 0)) return false;
    int64_t& var = f_.vars[static_cast<size_t>(s->var.as<ir::Var>()->id)];
    var = begin;
    while (step > 0 ? var < end : var > end) {  // CodeGen::for_loop: Python's range
      // Each iteration is charged to the core's instruction budget (read and written in ctx).
      const int64_t left = wsub(f_.ctx->budget, op.loop_cost);
      f_.ctx->budget = left;
      if (!check(left >= 0, s->instr, RuntimeCheck::instruction_budget, 0, 0, 0)) return false;
      if (!stmt(op.children[0])) return false;
      const Exit e = std::exchange(exit_, Exit::none);
      if (e == Exit::brk) break;
      var = wadd(var, step);
    }
    return true;
  }
  /// A pending pl::break_ / pl::continue_: statements unwind until their loop takes it.
  enum class Exit { none, brk, cont };
  Exit exit_ = Exit::none;

  bool sync(const ir::Sync* s) {
    if (ir::meets_other_cores(s->op)) {
      const int64_t event = eval(s->event);
      return f_.ctx->cross(f_.ctx, s->id, static_cast<int32_t>(s->op), event) == 0;
    }
    if (!p_.instrument) return true;
    const int64_t sl = s->tile.group >= 0 ? eval(s->tile.slot) : -1;
    f_.sync(f_.model, s->id, eval(s->event), sl);
    return true;
  }

  // ---------------------------------------------------------------------------- data movement
  /// A GM region's offsets and extents (insert_checks has checked them).
  Region region(const ir::GMRegion& r) const {
    Region out;
    for (int d = 0; d < 2; ++d) {
      out.off[d] = eval(r.offset[d]);
      out.ext[d] = eval(r.extent[d]);
    }
    out.base = eval(ir::region_base(r));
    out.pitch = eval(ir::region_stride(r, 0));
    out.col_step = eval(ir::region_stride(r, 1));
    out.unit_columns = ir::int_constant(ir::region_stride(r, 1)) == 1;
    return out;
  }

  /// The element (r, c) of the region's view, from the tensor's first element.
  static int64_t element(const Region& reg, int64_t r, int64_t c) { return wadd(reg.base, wadd(wmul(r, reg.pitch), wmul(c, reg.col_step))); }

  /// [lo, hi) of the GM elements a region touches, flattened (CodeGen::gm_interval).
  static std::pair<int64_t, int64_t> gm_interval(const ir::GMRegion&, const Region& reg) {
    const int64_t lo = element(reg, reg.off[0], reg.off[1]);
    const int64_t hi = wadd(wadd(lo, wadd(wmul(wsub(reg.ext[0], 1), reg.pitch), wmul(wsub(reg.ext[1], 1), reg.col_step))), 1);
    const bool empty = reg.ext[0] == 0 || reg.ext[1] == 0;
    return {lo, empty ? lo : hi};
  }

  uint8_t* gm_address(const ir::GMRegion& r, const Region& reg, int64_t es) const {
    return static_cast<uint8_t*>(f_.tensors[r.tensor]) + element(reg, reg.off[0], reg.off[1]) * es;
  }

  /// Copies the region's rows x cols elements between GM at `gm` and a tile (pitch `tile_cols`).
  static void copy_region(uint8_t* gm, const Region& reg, uint8_t* tile, int64_t tile_cols, int64_t es, bool to_tile) {
    for (int64_t r = 0; r < reg.ext[0]; ++r) {
      for (int64_t c = 0; c < reg.ext[1]; c += reg.col_step == 1 ? reg.ext[1] : 1) {  // a run per row, or element by element
        const int64_t n = reg.col_step == 1 ? reg.ext[1] : 1;
        uint8_t* g = gm + (r * reg.pitch + c * reg.col_step) * es;
        uint8_t* t = tile + (r * tile_cols + c) * es;
        std::memcpy(to_tile ? t : g, to_tile ? g : t, static_cast<size_t>(n * es));
      }
    }
  }

  bool load(const Op& op, const ir::Load* s) {
    const auto& g = group(s->dst);
    const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
    const Region reg = region(s->src);
    copy_region(gm_address(s->src, reg, es), reg, tile_base(s->dst), g.cols, es, true);
    set_valid(s->dst, reg.ext[0], reg.ext[1]);
    if (p_.instrument) {
      auto [lo, hi] = gm_interval(s->src, reg);
      report(op, s->id, wmul(wmul(reg.ext[0], reg.ext[1]), moved_bytes(1, es, reg.unit_columns)), lo, hi);
    }
    return true;
  }

  bool store(const Op& op, const ir::Store* s) {
    const auto& g = group(s->src);
    const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
    const Region reg = region(s->dst);
    const DType to = k_.tensors[static_cast<size_t>(s->dst.tensor)].dtype;
    const int64_t tes = static_cast<int64_t>(dtype_size(to));
    const uint8_t* tile = tile_base(s->src);
    const float scale = s->scale ? eval_float(s->scale) : 1.0f;
    const float* scaled = s->scale ? &scale : nullptr;
    if (s->atomic_add) {  // CodeGen::store: the same runtime function
      pto_rt_atomic_add_rows(gm_address(s->dst, reg, tes), reg.pitch, static_cast<int32_t>(to), tile, g.cols,
                             static_cast<int32_t>(g.dtype), reg.ext[0], reg.ext[1], s->relu ? 1 : 0, s->scale ? 1 : 0, scale);
    } else if (to == g.dtype && !s->relu && !s->scale) {
      copy_region(gm_address(s->dst, reg, es), reg, const_cast<uint8_t*>(tile), g.cols, es, false);
    } else {  // FIX's conversion on the way out of Acc, or relu_pre_mode (CodeGen::convert_rows)
      uint8_t* gm = gm_address(s->dst, reg, tes);
      for (int64_t r = 0; r < reg.ext[0]; ++r) {
        for (int64_t c = 0; c < reg.ext[1]; ++c) {
          narrow(store_value(tile + (r * g.cols + c) * es, g.dtype, to, s->relu, scaled), to, gm + (r * reg.pitch + c * reg.col_step) * tes);
        }
      }
    }
    if (p_.instrument) {
      auto [lo, hi] = gm_interval(s->dst, reg);
      report(op, s->id, wmul(wmul(reg.ext[0], reg.ext[1]), moved_bytes(1, tes, reg.unit_columns)), lo, hi);
    }
    return true;
  }

  // ---------------------------------------------------------------------------- vector
  /// Scratch buffers and leaf bases for evaluating `x` over rows of `n` elements.
  Val* prepare(const CompiledExpr& x, int64_t n) {
    const size_t need = x.nodes.size() * static_cast<size_t>(std::max<int64_t>(n, 1));
    if (f_.scratch.size() < need) f_.scratch.resize(need);
    f_.leaf_base.resize(x.leaves.size());
    f_.leaf_row.resize(x.leaves.size());
    for (size_t l = 0; l < x.leaves.size(); ++l) f_.leaf_base[l] = tile_base(x.leaves[l].read->tile);
    fill_scalars(x, f_, f_.scratch.data(), n);
    return f_.scratch.data();
  }
  void set_leaf_rows(const CompiledExpr& x, int64_t r) {
    for (size_t l = 0; l < x.leaves.size(); ++l) {
      const LeafInfo& leaf = x.leaves[l];
      const auto& g = k_.groups[static_cast<size_t>(leaf.group)];
      f_.leaf_row[l] = leaf.read->col_broadcast ? f_.leaf_base[l]
                                          : f_.leaf_base[l] + r * g.cols * static_cast<int64_t>(dtype_size(leaf.read->type.dtype));
    }
  }

  bool vec_compute(const Op& op, const ir::VecCompute* s) {
    const CompiledExpr& x = p_.exprs[static_cast<size_t>(op.expr)];
    const auto& dg = group(s->dst);
    const int64_t rows = eval(s->extent[0]), cols = eval(s->extent[1]);  // checked by insert_checks
    PTO_INTERNAL_CHECK(compute_cls(dg.dtype) == x.cls) << "a " << dtype_name(x.dtype) << " value written to a "
                                                       << dtype_name(dg.dtype) << " tile";
    Val* scratch = prepare(x, cols);
    uint8_t* dst = tile_base(s->dst);
    const int64_t des = static_cast<int64_t>(dtype_size(dg.dtype));
    for (int64_t r = 0; r < rows; ++r) {
      set_leaf_rows(x, r);
      const Val* v = eval_row(x, f_, scratch, cols);
      uint8_t* drow = dst + r * dg.cols * des;
      for (int64_t c = 0; c < cols; ++c) narrow(v[c], dg.dtype, drow + c * des);
    }
    if (!s->dst.window) set_valid(s->dst, rows, cols);  // writing a view leaves the tile's valid extent
    report(op, s->id, wmul(rows, cols));
    return true;
  }

  /// argmax / argmin (docs/semantics.md): the first index of a greater (less) number; a NaN best
  /// so far is replaced by the first number, so NaNs are skipped and an all-NaN run gives 0.
  struct ArgBest {
    Val best{};
    int32_t index = 0;
    void step(Cls cls, bool want_max, Val v, int64_t i) {
      bool take = false;
      if (cls == Cls::F) {
        take = std::isnan(best.f) ? !std::isnan(v.f) : (want_max ? v.f > best.f : v.f < best.f);
      } else {
        take = i == 0 || (want_max ? v.i > best.i : v.i < best.i);
      }
      if (take) best = v, index = static_cast<int32_t>(i);
    }
  };
  static ArgBest arg_start(Cls cls) {
    ArgBest a;
    if (cls == Cls::F) a.best.f = std::numeric_limits<float>::quiet_NaN();
    return a;
  }

  bool arg_reduce(const Op& op, const ir::RowReduce* s) {
    const CompiledExpr& x = p_.exprs[static_cast<size_t>(op.expr)];
    const auto& dg = group(s->dst);
    const int64_t rows = eval(s->extent[0]), cols = eval(s->extent[1]);  // checked by insert_checks
    Val* scratch = prepare(x, cols);
    auto* dst = reinterpret_cast<int32_t*>(tile_base(s->dst));
    const bool want_max = s->op == ir::ReduceOp::ArgMax;
    if (s->axis == 1) {
      arg_acc_.assign(static_cast<size_t>(cols), arg_start(x.cls));
      for (int64_t r = 0; r < rows; ++r) {
        set_leaf_rows(x, r);
        const Val* v = eval_row(x, f_, scratch, cols);
        for (int64_t c = 0; c < cols; ++c) arg_acc_[c].step(x.cls, want_max, v[c], r);
      }
      for (int64_t c = 0; c < cols; ++c) dst[c] = arg_acc_[c].index;
      set_valid(s->dst, 1, cols);
    } else {
      for (int64_t r = 0; r < rows; ++r) {
        set_leaf_rows(x, r);
        ArgBest a = arg_start(x.cls);
        if (cols > 0) {
          const Val* v = eval_row(x, f_, scratch, cols);
          for (int64_t c = 0; c < cols; ++c) a.step(x.cls, want_max, v[c], c);
        }
        dst[r * dg.cols] = a.index;
      }
      set_valid(s->dst, rows, 1);
    }
    report(op, s->id, wmul(rows, cols));
    return true;
  }

  bool row_reduce(const Op& op, const ir::RowReduce* s) {
    if (ir::is_arg_reduce(s->op)) return arg_reduce(op, s);
    const CompiledExpr& x = p_.exprs[static_cast<size_t>(op.expr)];
    const auto& dg = group(s->dst);
    const int64_t rows = eval(s->extent[0]), cols = eval(s->extent[1]);  // checked by insert_checks
    Val* scratch = prepare(x, cols);
    uint8_t* dst = tile_base(s->dst);
    const int64_t des = static_cast<int64_t>(dtype_size(dg.dtype));
    if (s->axis == 1) {  // each column, the rows in order from the first
      col_acc_.assign(static_cast<size_t>(cols), reduce_init(x.cls, s->op));
      for (int64_t r = 0; r < rows; ++r) {
        set_leaf_rows(x, r);
        const Val* v = eval_row(x, f_, scratch, cols);
        for (int64_t c = 0; c < cols; ++c) col_acc_[c] = reduce_step(x.cls, s->op, col_acc_[c], v[c]);
      }
      for (int64_t c = 0; c < cols; ++c) narrow(convert(col_acc_[c], x.dtype, dg.dtype), dg.dtype, dst + c * des);
      set_valid(s->dst, 1, cols);
      report(op, s->id, wmul(rows, cols));
      return true;
    }
    for (int64_t r = 0; r < rows; ++r) {
      set_leaf_rows(x, r);
      Val acc = reduce_init(x.cls, s->op);
      if (cols > 0) {
        const Val* v = eval_row(x, f_, scratch, cols);
        if (x.cls == Cls::F && s->op == ir::ReduceOp::Sum) {
          acc.f = float_row_sum(v, cols);
        } else {
          for (int64_t c = 0; c < cols; ++c) acc = reduce_step(x.cls, s->op, acc, v[c]);
        }
      }
      // The destination is the source's dtype or float (a wider accumulator).
      narrow(convert(acc, x.dtype, dg.dtype), dg.dtype, dst + r * dg.cols * des);
    }
    set_valid(s->dst, rows, 1);
    report(op, s->id, wmul(rows, cols));
    return true;
  }

  // ---------------------------------------------------------------------------- cube
  bool move(const Op& op, const ir::Move* s) {
    if (s->attrs.cross_core) return group(s->src).space == ir::MemSpace::Acc ? move_acc_to_vec(op, s) : move_vec_to_mat(op, s);
    const auto& sg = group(s->src);
    const auto& dg = group(s->dst);
    const int64_t es = static_cast<int64_t>(dtype_size(sg.dtype));
    const bool transpose = s->attrs.transpose;
    const int64_t rows = eval(s->attrs.extent[0]), cols = eval(s->attrs.extent[1]);  // insert_checks: checked, cut to a window
    const uint8_t* src = tile_base(s->src);
    if (s->attrs.window) src += (eval(s->attrs.offset[0]) * sg.cols + eval(s->attrs.offset[1])) * es;
    const int64_t out_rows = transpose ? cols : rows;
    const int64_t out_cols = transpose ? rows : cols;
    uint8_t* dst = tile_base(s->dst);
    if (!transpose) {
      copy_tile_rows(dst, dg.cols, src, sg.cols, rows, cols, es);
    } else {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) std::memcpy(dst + (c * dg.cols + r) * es, src + (r * sg.cols + c) * es, static_cast<size_t>(es));
      }
    }
    set_valid(s->dst, out_rows, out_cols);
    report(op, s->id, wmul(wmul(rows, cols), es));
    return true;
  }

  static void copy_tile_rows(uint8_t* dst, int64_t dst_pitch, const uint8_t* src, int64_t src_pitch, int64_t rows, int64_t cols,
                             int64_t es) {
    for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * dst_pitch * es, src + r * src_pitch * es, static_cast<size_t>(cols * es));
  }

  /// CodeGen::move_acc_to_vec: each receiving AIV's part, converted, at row 0, column 0 of its slot.
  bool move_acc_to_vec(const Op& op, const ir::Move* s) {
    const auto& sg = group(s->src);
    const auto& dg = group(s->dst);
    const int64_t rows = valid(s->src, 0), cols = valid(s->src, 1);
    const int64_t ses = static_cast<int64_t>(dtype_size(sg.dtype)), des = static_cast<int64_t>(dtype_size(dg.dtype));
    for (int v = 0; v < 2; ++v) {  // each receiving AIV's part (insert_checks: the split and that it fits)
      const auto& part = s->attrs.parts[v];
      if (!part[0]) continue;
      const int64_t r0 = eval(part[0]), prows = eval(part[1]), c0 = eval(part[2]), pcols = eval(part[3]);
      const uint8_t* src = tile_base(s->src) + (r0 * sg.cols + c0) * ses;
      uint8_t* dst = tile_base_in(f_.ctx->peer[v], s->dst);
      for (int64_t r = 0; r < prows; ++r) {
        for (int64_t c = 0; c < pcols; ++c) {
          narrow(convert(widen(src + (r * sg.cols + c) * ses, sg.dtype), sg.dtype, dg.dtype), dg.dtype, dst + (r * dg.cols + c) * des);
        }
      }
    }
    report(op, s->id, wmul(wmul(rows, cols), des));
    return true;
  }

  /// CodeGen::move_vec_to_mat: the source's valid region at `offset` in the AIC's slot.
  bool move_vec_to_mat(const Op& op, const ir::Move* s) {
    const auto& sg = group(s->src);
    const auto& dg = group(s->dst);
    const int64_t es = static_cast<int64_t>(dtype_size(sg.dtype));
    const int64_t ext[2] = {valid(s->src, 0), valid(s->src, 1)};
    const int64_t off[2] = {eval(s->attrs.offset[0]), eval(s->attrs.offset[1])};  // checked by insert_checks
    copy_tile_rows(tile_base_in(f_.ctx->peer[0], s->dst) + (off[0] * dg.cols + off[1]) * es, dg.cols, tile_base(s->src), sg.cols,
                   ext[0], ext[1], es);
    const int64_t lo = wadd(wmul(off[0], dg.cols), off[1]);
    const int64_t hi = wadd(wadd(wmul(wsub(wadd(off[0], ext[0]), 1), dg.cols), off[1]), ext[1]);
    report(op, s->id, wmul(wmul(ext[0], ext[1]), es), lo, ext[0] == 0 || ext[1] == 0 ? lo : hi);
    return true;
  }

  /// CodeGen::set_valid_shape.
  bool set_valid_shape(const Op& op, const ir::SetValid* s) {
    set_valid(s->tile, eval(s->rows), eval(s->cols));  // checked by insert_checks
    report(op, s->id, 1);
    return true;
  }

  /// CodeGen::elem_access: the same runtime functions (insert_checks: the offset is inside).
  bool elem_access(const Op& op, const ir::ElemAccess* s) {
    const int64_t offset = eval(s->offset);
    const DType dt = s->tensor >= 0 ? k_.tensors[static_cast<size_t>(s->tensor)].dtype : group(s->tile).dtype;
    const int64_t es = static_cast<int64_t>(dtype_size(dt));
    uint8_t* elem = (s->tensor >= 0 ? static_cast<uint8_t*>(f_.tensors[s->tensor]) : tile_base(s->tile)) + offset * es;
    if (s->write) {
      const bool is_float = s->value->type.dtype == DType::f32;
      pto_rt_setval(elem, static_cast<int32_t>(dt), is_float ? std::bit_cast<int32_t>(eval_float(s->value)) : eval(s->value), is_float ? 1 : 0);
    } else {
      f_.vars[static_cast<size_t>(s->var.as<ir::Var>()->id)] = pto_rt_getval(elem, static_cast<int32_t>(dt));
    }
    if (s->tensor >= 0) {
      report(op, s->id, es, offset, offset + 1);
    } else {
      report(op, s->id, es);
    }
    return true;
  }

  /// CodeGen::vec_routine: the same runtime function.
  bool vec_routine(const Op& op, const ir::VecRoutine* s) {
    std::array<RoutineTile, kMaxRoutineOperands> tiles{};
    PTO_INTERNAL_CHECK(s->operands.size() <= tiles.size()) << "a vector routine with " << s->operands.size() << " operands";
    for (size_t i = 0; i < s->operands.size(); ++i) {
      const auto& t = s->operands[i];
      const auto& g = group(t);
      tiles[i] = {tile_base(t), &valid(t, 0), g.rows, g.cols, static_cast<int32_t>(g.dtype), 0};
    }
    const int64_t done = pto_rt_vec_routine(f_.ctx, s->id, static_cast<int32_t>(s->routine), tiles.data(),
                                            static_cast<int32_t>(s->operands.size()), s->params[0], s->params[1]);
    if (done < 0) return false;
    report(op, s->id, done);
    return true;
  }

  bool matmul(const Op& op, const ir::Matmul* s) {
    const auto& ag = group(s->a);
    const auto& bg = group(s->b);
    const auto& cg = group(s->dst);
    const int64_t m = valid(s->a, 0), kk = valid(s->a, 1), n = valid(s->b, 1);  // checked by insert_checks
    const bool biased = s->bias.group >= 0;  // CodeGen::matmul: the same runtime functions
    if (biased) pto_rt_matmul_bias_start(tile_base(s->dst), tile_base(s->bias), m, n, cg.cols);
    pto_rt_matmul(tile_base(s->dst), tile_base(s->a), tile_base(s->b), m, n, kk, ag.cols, bg.cols, cg.cols,
                  static_cast<int32_t>(ag.dtype), s->accumulate || biased ? 1 : 0);
    set_valid(s->dst, m, n);
    report(op, s->id, wmul(wmul(m, n), kk), m, n);  // KernelABI: a matmul reports m and n in gm_lo, gm_hi
    return true;
  }

  // ---------------------------------------------------------------------------- debugging aids
  int32_t call_debug(const ir::Debug* s, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch) {
    return f_.ctx->debug(f_.ctx, s->id, args, data, rows, cols, pitch);
  }

  bool debug(const Op& op, const ir::Debug* s) {
    std::vector<int64_t> args;
    auto eval_args = [&]() -> const int64_t* {
      if (s->args.empty()) return nullptr;
      args.clear();
      for (const auto& a : s->args) args.push_back(eval(a));  // booleans zero-extended: 0 or 1
      return args.data();
    };
    switch (s->op) {
      case ir::DebugOp::Printf:
        call_debug(s, eval_args(), nullptr, 0, 0, 0);
        break;
      case ir::DebugOp::Assert:
        if (eval(s->cond) == 0) {
          if (call_debug(s, eval_args(), nullptr, 1, 0, 0) != 0) return false;
        }
        break;
      case ir::DebugOp::Trap:
        call_debug(s, nullptr, nullptr, 0, 0, 0);
        return false;
      case ir::DebugOp::Dump: {
        if (s->region.tensor >= 0) {  // a GM region (insert_checks: inside the tensor); CodeGen::debug
          const Region reg = region(s->region);
          const int64_t es = static_cast<int64_t>(dtype_size(k_.tensors[static_cast<size_t>(s->region.tensor)].dtype));
          call_debug(s, nullptr, gm_address(s->region, reg, es), reg.ext[0], reg.ext[1], reg.pitch);
          break;
        }
        const auto& g = group(s->tile);
        const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
        const int64_t r0 = s->offset[0] ? eval(s->offset[0]) : 0;
        const int64_t c0 = s->offset[1] ? eval(s->offset[1]) : 0;
        const int64_t rows = s->extent[0] ? eval(s->extent[0]) : valid(s->tile, 0);
        const int64_t cols = s->extent[1] ? eval(s->extent[1]) : valid(s->tile, 1);
        const int64_t cap[2] = {g.rows, g.cols};
        const int64_t off[2] = {r0, c0};
        const int64_t ext[2] = {rows, cols};
        for (int d = 0; d < 2; ++d) {
          const bool ok = off[d] >= 0 && ext[d] >= 0 && wadd(off[d], ext[d]) <= cap[d];
          if (!check(ok, s->id, RuntimeCheck::region_over_tile, d, wadd(off[d], ext[d]), cap[d])) return false;
        }
        const uint8_t* first = tile_base(s->tile) + wmul(wadd(wmul(r0, g.cols), c0), es);
        call_debug(s, nullptr, first, rows, cols, g.cols);
        break;
      }
    }
    report(op, s->id, 1);
    return true;
  }

  const Program& p_;
  const ir::Kernel& k_;
  Frame& f_;
  std::vector<Val> col_acc_;      // a column reduction's accumulators
  std::vector<ArgBest> arg_acc_;  // a column argmax / argmin's best so far
};

}  // namespace
}  // namespace interp

InterpretedKernel::InterpretedKernel(ir::Kernel kernel, const ChipProfile& chip, bool instrument)
    : kernel_(std::move(kernel)), instrument_(instrument) {
  auto p = std::make_unique<interp::Program>();
  p->k = &kernel_;
  p->instrument = instrument;
  for (size_t s = 1; s < 6; ++s) p->align[s] = gm_move_alignment(chip, static_cast<ir::MemSpace>(s));
  for (const auto& g : kernel_.groups) {
    PTO_INTERNAL_CHECK(g.offset >= 0) << "tile group " << g.name << " has no memory: interpret a lowered kernel";
    p->valid_base.push_back(static_cast<int64_t>(p->valid_size));
    p->valid_size += static_cast<size_t>(2 * g.depth);
    for (int i = 0; i < 2 * g.depth; ++i) p->valid_start.push_back(g.addrs.empty() ? 0 : (i % 2 == 0 ? g.rows : g.cols));
  }
  for (const auto& info : kernel_.instrs) p->slots_size = std::max(p->slots_size, info.tiles.size());
  p->root = p->build(kernel_.body);
  program_ = std::move(p);
}

InterpretedKernel::~InterpretedKernel() = default;

void InterpretedKernel::run(CoreContext* ctx) const {
  const interp::Program& p = *program_;
  interp::Frame f;
  f.ctx = ctx;
  // What the generated code loads once on entry.
  f.tensors = ctx->tensors;
  for (size_t s = 1; s < 6; ++s) f.arena[s] = ctx->arena[s];
  f.block_idx = ctx->block_idx;
  f.block_num = ctx->block_num;
  f.core_kind = ctx->core_kind;
  f.subblock_idx = ctx->subblock_idx;
  f.subblock_num = ctx->subblock_num;
  if (p.instrument) {
    f.model = ctx->model;
    f.exec = ctx->exec;
    f.sync = ctx->sync;
  }
  f.vars.assign(static_cast<size_t>(kernel_.num_vars), 0);  // mutable variables start at 0
  for (const auto& s : kernel_.scalars) {
    const auto* var = s.var.as<ir::Var>();
    f.vars[static_cast<size_t>(var->id)] = ctx->scalars[var->param_index];
  }
  f.valid.assign(p.valid_start.begin(), p.valid_start.end());
  f.valid_base = p.valid_base.data();
  f.kernel = p.k;
  f.slots.assign(p.slots_size, 0);
  interp::Runner(p, f).stmt(p.root);
}

}  // namespace pto::backend

extern "C" void pto_interpret(pto::CoreContext* ctx) {
  static_cast<const pto::backend::InterpretedKernel*>(ctx->program)->run(ctx);
}
