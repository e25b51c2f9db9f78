// insert_checks: the runtime checks of every instruction's operands (GM transfers, tile
// expressions, moves, matmul, set_validshape), the extents of tile expressions and local moves,
// and the parts of an accumulator each AIV receives, as explicit IR (Halide's AddImageChecks does
// the same for its buffers). The JIT and the interpreter then implement ir::Check and run each
// instruction over the extent the IR gives: the rules below are written once.
// docs/semantics.md states them for users.
#include <algorithm>
#include <unordered_set>
#include <vector>

#include "pto/backend/Passes.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

using ir::BinaryOp;
using ir::Expr;
using ir::Stmt;

Expr i64(int64_t v) { return ir::IntImm::make(v, DType::i64); }
Expr op(BinaryOp o, Expr a, Expr b) { return ir::Binary::make(o, std::move(a), std::move(b)); }
/// The valid extent of a tile operand along `axis` as stored; a view's is its extent.
Expr stored(const ir::TileRef& t, int axis) {
  return t.window ? i64(t.window->extent[static_cast<size_t>(axis)]) : ir::TileValid::make(t, axis, /*stored=*/true);
}

/// The tile reads of an expression in evaluation order (a read used twice appears twice).
std::vector<const ir::TileRead*> tile_reads(const Expr& e) {
  struct Collect : ir::Visitor {
    std::vector<const ir::TileRead*> out;
    void visit_node(const ir::TileRead* r) override { out.push_back(r); }
  } c;
  c.visit(e);
  return std::move(c.out);
}

/// Marks the given reads as broadcast down each column.
class MarkColumnBroadcast : public ir::Mutator {
 public:
  explicit MarkColumnBroadcast(const std::unordered_set<const ir::TileRead*>& reads) : reads_(reads) {}

 protected:
  Expr mutate_node(const ir::TileRead* r, const Expr& self) override {
    if (!reads_.count(r)) return self;
    return ir::TileRead::make(r->tile, r->type.dtype, r->row_broadcast, /*col_broadcast=*/true);
  }

 private:
  const std::unordered_set<const ir::TileRead*>& reads_;
};

class InsertChecks : public ir::Mutator {
 public:
  InsertChecks(const ir::Kernel& k, const ChipProfile& chip) : k_(k), chip_(chip) {}

 protected:
  /// dump_data of a GM region: inside the tensor.
  Stmt mutate_node(const ir::Debug* d, const Stmt& self) override {
    if (d->region.tensor < 0) return self;
    std::vector<Stmt> out;
    bounds_checks(d->region, d->id, out);
    out.push_back(self);
    return ir::Seq::make(std::move(out));
  }

  Stmt mutate_node(const ir::Load* l, const Stmt& self) override {
    std::vector<Stmt> out;
    region_checks(l->src, l->dst, l->id, out);
    out.push_back(self);
    return ir::Seq::make(std::move(out));
  }

  Stmt mutate_node(const ir::Store* s, const Stmt& self) override {
    std::vector<Stmt> out;
    region_checks(s->dst, s->src, s->id, out);
    for (int d = 0; d < 2; ++d) {
      check(op(BinaryOp::LE, s->dst.extent[d], stored(s->src, d)), RuntimeCheck::store_beyond_valid, s->id, d,
            {s->dst.extent[d], stored(s->src, d), i64(0)}, out);
    }
    out.push_back(self);
    return ir::Seq::make(std::move(out));
  }

  Stmt mutate_node(const ir::VecCompute* v, const Stmt&) override {
    std::vector<Stmt> out;
    window_checks(v->dst, v->id, out);
    Extent e = extent(v->value, v->dst, v->id, out);
    fits(v->dst, e.size, v->id, kBoth, out);
    overlap_checks(v->value, v->dst, e.size[0], v->id, out);
    out.push_back(ir::VecCompute::make(v->dst, e.value, *v, e.size));
    return ir::Seq::make(std::move(out));
  }

  Stmt mutate_node(const ir::RowReduce* r, const Stmt&) override {
    std::vector<Stmt> out;
    Extent e = extent(r->value, r->dst, r->id, out);
    // Into one column (per row) only the rows must fit, into one row (per column) only the columns.
    fits(r->dst, e.size, r->id, r->axis == 1 ? kCols : kRows, out);
    out.push_back(ir::RowReduce::make(r->op, r->dst, e.value, *r, e.size, r->axis));
    return ir::Seq::make(std::move(out));
  }

  Stmt mutate_node(const ir::Move* m, const Stmt& self) override {
    if (!m->attrs.cross_core) return local_move(m);
    return k_.groups[m->src.group].space == ir::MemSpace::Acc ? acc_to_vec(m) : vec_to_mat(m, self);
  }

  /// pl::set_validshape: a non-negative extent within the tile.
  Stmt mutate_node(const ir::SetValid* v, const Stmt& self) override {
    const auto& g = k_.groups[v->tile.group];
    const int64_t cap[2] = {g.rows, g.cols};
    const Expr ext[2] = {v->rows, v->cols};
    std::vector<Stmt> out;
    for (int d = 0; d < 2; ++d) {
      check(op(BinaryOp::GE, ext[d], i64(0)), RuntimeCheck::region_negative, v->id, d, {ext[d], i64(0), i64(0)}, out);
      check(op(BinaryOp::LE, ext[d], i64(cap[d])), RuntimeCheck::region_over_tile, v->id, d, {ext[d], i64(cap[d]), i64(0)}, out);
    }
    out.push_back(self);
    return ir::Seq::make(std::move(out));
  }

  /// getval / setval: the element offset inside the tile (axis 2) or the tensor (axis 3).
  Stmt mutate_node(const ir::ElemAccess* a, const Stmt& self) override {
    Expr count = i64(a->tensor >= 0 ? 1 : k_.groups[a->tile.group].elems());
    if (a->tensor >= 0) {
      const auto& t = k_.tensors[a->tensor];
      for (int d = 0; d < t.rank; ++d) count = op(BinaryOp::Mul, count, ir::tensor_extent(t, d));
    }
    std::vector<Stmt> out;
    Expr inside = op(BinaryOp::And, op(BinaryOp::GE, a->offset, i64(0)), op(BinaryOp::LT, a->offset, count));
    check(inside, RuntimeCheck::index_out_of_range, a->id, a->tensor >= 0 ? 3 : 2, {a->offset, i64(0), count}, out);
    out.push_back(self);
    return ir::Seq::make(std::move(out));
  }

  /// Matmul: K agrees, the result fits, and an accumulating matmul's accumulator covers it.
  Stmt mutate_node(const ir::Matmul* mm, const Stmt& self) override {
    std::vector<Stmt> out;
    const Expr m = stored(mm->a, 0), ka = stored(mm->a, 1), kb = stored(mm->b, 0), n = stored(mm->b, 1);
    check(op(BinaryOp::EQ, ka, kb), RuntimeCheck::matmul_k_mismatch, mm->id, 1, {ka, kb, i64(0)}, out);
    fits(mm->dst, {m, n}, mm->id, kBoth, out);
    if (mm->accumulate) {
      check(op(BinaryOp::GE, stored(mm->dst, 0), m), RuntimeCheck::operand_smaller, mm->id, 0, {m, stored(mm->dst, 0), i64(0)}, out);
      check(op(BinaryOp::GE, stored(mm->dst, 1), n), RuntimeCheck::operand_smaller, mm->id, 1, {n, stored(mm->dst, 1), i64(0)}, out);
    }
    if (mm->bias.group >= 0) {  // the bias row covers the n columns
      check(op(BinaryOp::GE, stored(mm->bias, 0), i64(1)), RuntimeCheck::operand_smaller, mm->id, 0, {i64(1), stored(mm->bias, 0), i64(0)}, out);
      check(op(BinaryOp::GE, stored(mm->bias, 1), n), RuntimeCheck::operand_smaller, mm->id, 1, {n, stored(mm->bias, 1), i64(0)}, out);
    }
    out.push_back(self);
    return ir::Seq::make(std::move(out));
  }

 private:
  /// Mat -> Left/Right (optionally transposed, optionally a window): the extent copied, and that
  /// the result fits.
  Stmt local_move(const ir::Move* m) const {
    const auto& dg = k_.groups[m->dst.group];
    const bool transpose = m->attrs.transpose;
    std::vector<Stmt> out;
    ir::MoveAttrs attrs = m->attrs;
    std::array<Expr, 2> ext = {stored(m->src, 0), stored(m->src, 1)};
    if (attrs.window) {  // pl::extract: from the offset, as much as the destination holds, cut to the source's valid extent
      const int64_t holds[2] = {transpose ? dg.cols : dg.rows, transpose ? dg.rows : dg.cols};
      for (int d = 0; d < 2; ++d) {
        const Expr& off = attrs.offset[d];
        check(op(BinaryOp::GE, off, i64(0)), RuntimeCheck::offset_negative, m->id, d, {off, i64(0), i64(0)}, out);
        check(op(BinaryOp::LE, off, ext[d]), RuntimeCheck::window_past_valid, m->id, d, {off, ext[d], i64(0)}, out);
        ext[d] = op(BinaryOp::Min, op(BinaryOp::Sub, ext[d], off), i64(holds[d]));
      }
    }
    fits(m->dst, transpose ? std::array<Expr, 2>{ext[1], ext[0]} : ext, m->id, kBoth, out);
    attrs.extent = ext;
    out.push_back(ir::Move::make(m->dst, m->src, std::move(attrs), *m));
    return ir::Seq::make(std::move(out));
  }

  /// Vec -> Mat: the source's valid region lands at a non-negative offset inside the AIC's tile.
  Stmt vec_to_mat(const ir::Move* m, const Stmt& self) const {
    const auto& dg = k_.groups[m->dst.group];
    const int64_t cap[2] = {dg.rows, dg.cols};
    std::vector<Stmt> out;
    for (int d = 0; d < 2; ++d) {
      const Expr& off = m->attrs.offset[d];
      const Expr end = op(BinaryOp::Add, off, stored(m->src, d));
      check(op(BinaryOp::GE, off, i64(0)), RuntimeCheck::offset_negative, m->id, d, {off, i64(0), i64(0)}, out);
      check(op(BinaryOp::LE, end, i64(cap[d])), RuntimeCheck::result_over_tile, m->id, d, {end, i64(cap[d]), i64(0)}, out);
    }
    out.push_back(self);
    return ir::Seq::make(std::move(out));
  }

  /// Acc -> Vec: each receiving AIV's part of the accumulator (PyPTO Pro's AccToVecMode), and
  /// that each part fits the Vec tile.
  Stmt acc_to_vec(const ir::Move* m) const {
    const Expr rows = stored(m->src, 0), cols = stored(m->src, 1), zero = i64(0);
    ir::MoveAttrs attrs = m->attrs;
    auto& parts = attrs.parts;
    switch (attrs.split) {
      case ir::AccToVec::SingleModeVec0: parts[0] = {zero, rows, zero, cols}; break;
      case ir::AccToVec::SingleModeVec1: parts[1] = {zero, rows, zero, cols}; break;
      case ir::AccToVec::DualModeSplitM: {  // the first AIV gets the upper half of the rows (rounded up)
        const Expr h = op(BinaryOp::Div, op(BinaryOp::Add, rows, i64(1)), i64(2));
        parts[0] = {zero, h, zero, cols};
        parts[1] = {h, op(BinaryOp::Sub, rows, h), zero, cols};
        break;
      }
      case ir::AccToVec::DualModeSplitN: {  // the first AIV gets the left half of the columns, in 16-column fractals
        const Expr half = op(BinaryOp::Min, cols, op(BinaryOp::Mul, op(BinaryOp::Div, op(BinaryOp::Add, cols, i64(31)), i64(32)), i64(16)));
        parts[0] = {zero, rows, zero, half};
        parts[1] = {zero, rows, half, op(BinaryOp::Sub, cols, half)};
        break;
      }
    }
    std::vector<Stmt> out;
    for (const auto& part : parts) {
      if (part[0]) fits(m->dst, {part[1], part[3]}, m->id, kBoth, out);
    }
    out.push_back(ir::Move::make(m->dst, m->src, std::move(attrs), *m));
    return ir::Seq::make(std::move(out));
  }

  /// Adds Check(cond) unless `cond` folded to true at trace time.
  static void check(Expr cond, RuntimeCheck c, int instr, int axis, std::array<Expr, 3> args, std::vector<Stmt>& out) {
    if (const auto* imm = cond.as<ir::IntImm>(); imm && imm->value != 0) return;
    out.push_back(ir::Check::make(std::move(cond), c, instr, axis, std::move(args)));
  }

  /// A GM region moved to or from tile `t`: non-negative extents, inside the tensor's view, not
  /// over the tile's capacity, then its column offset aligned for the transfer's path.
  void region_checks(const ir::GMRegion& r, const ir::TileRef& t, int instr, std::vector<Stmt>& out) const {
    const auto& g = k_.groups[t.group];
    const int64_t cap[2] = {g.rows, g.cols};
    bounds_checks(r, instr, out);
    for (int d = 0; d < 2; ++d) {
      check(op(BinaryOp::LE, r.extent[d], i64(cap[d])), RuntimeCheck::region_over_tile, instr, d, {r.extent[d], i64(cap[d]), i64(0)}, out);
    }
    const int64_t align = gm_move_alignment(chip_, g.space);
    if (align == 1) return;
    const Expr byte_off = op(BinaryOp::Mul, r.offset[1], i64(static_cast<int64_t>(dtype_size(g.dtype))));
    check(op(BinaryOp::EQ, op(BinaryOp::Mod, byte_off, i64(align)), i64(0)), RuntimeCheck::region_misaligned, instr, 1,
          {byte_off, i64(align), i64(0)}, out);
  }

  /// A pl::make_tensor view's region: strides >= 0, and every element it reaches inside the tensor
  /// (after the extents are checked non-negative: an empty region reaches nothing).
  void storage_checks(const ir::GMRegion& r, int instr, std::vector<Stmt>& out) const {
    const Expr s[2] = {ir::region_stride(r, 0), ir::region_stride(r, 1)};
    for (int d = 0; d < 2; ++d) check(op(BinaryOp::GE, s[d], i64(0)), RuntimeCheck::negative_stride, instr, d, {s[d], i64(0), i64(0)}, out);
    const Expr lo = op(BinaryOp::Add, ir::region_base(r), op(BinaryOp::Add, op(BinaryOp::Mul, r.offset[0], s[0]), op(BinaryOp::Mul, r.offset[1], s[1])));
    const Expr last = op(BinaryOp::Add, op(BinaryOp::Mul, op(BinaryOp::Sub, r.extent[0], i64(1)), s[0]),
                         op(BinaryOp::Mul, op(BinaryOp::Sub, r.extent[1], i64(1)), s[1]));
    const Expr hi = op(BinaryOp::Add, op(BinaryOp::Add, lo, last), i64(1));
    const Expr empty = op(BinaryOp::Or, op(BinaryOp::LE, r.extent[0], i64(0)), op(BinaryOp::LE, r.extent[1], i64(0)));
    const Expr inside = op(BinaryOp::And, op(BinaryOp::GE, lo, i64(0)), op(BinaryOp::LE, hi, r.storage));
    check(op(BinaryOp::Or, empty, inside), RuntimeCheck::view_outside_storage, instr, 0, {lo, hi, r.storage}, out);
  }

  /// A GM region: the indices its view fixed inside their dimensions, non-negative extents, inside the view.
  void bounds_checks(const ir::GMRegion& r, int instr, std::vector<Stmt>& out) const {
    for (const auto& f : r.fixed) {
      check(op(BinaryOp::And, op(BinaryOp::GE, f.index, i64(0)), op(BinaryOp::LT, f.index, f.extent)), RuntimeCheck::dim_index_out_of_range,
            instr, f.dim, {f.index, f.extent, i64(0)}, out);
    }
    if (r.storage) storage_checks(r, instr, out);
    for (int d = 0; d < 2; ++d) {
      const Expr& off = r.offset[d];
      const Expr& ext = r.extent[d];
      check(op(BinaryOp::GE, ext, i64(0)), RuntimeCheck::region_negative, instr, d, {ext, i64(0), i64(0)}, out);
      check(op(BinaryOp::And, op(BinaryOp::GE, off, i64(0)), op(BinaryOp::LE, op(BinaryOp::Add, off, ext), r.view[d])),
            RuntimeCheck::region_out_of_bounds, instr, d, {off, ext, r.view[d]}, out);
    }
  }

  struct Extent {
    std::array<Expr, 2> size;  // rows, cols
    Expr value;                // the expression, its one-row operands marked col_broadcast
  };

  /// The extent of a tile expression (docs/semantics.md): its lead operand is the first read that
  /// is neither a row broadcast nor one row of a 2-D tile, else the first that is not a row
  /// broadcast; next to a multi-row lead, one-row operands broadcast down each column. Every other
  /// operand's valid extent must cover the lead's.
  Extent extent(const Expr& value, const ir::TileRef& dst, int instr, std::vector<Stmt>& out) const {
    const std::vector<const ir::TileRead*> reads = tile_reads(value);
    for (auto* r : reads) window_checks(r->tile, instr, out);
    auto one_row = [&](const ir::TileRead* r) {
      const auto& g = k_.groups[r->tile.group];
      return g.rank == 2 && (r->tile.window ? r->tile.window->extent[0] : g.rows) == 1;
    };
    const ir::TileRead* lead = nullptr;
    for (auto* r : reads) if (!r->row_broadcast && !one_row(r)) { lead = r; break; }
    if (!lead) for (auto* r : reads) if (!r->row_broadcast) { lead = r; break; }
    // Only columns: the first of more than one row leads, and {1, 1} operands broadcast down it.
    if (!lead) for (auto* r : reads) if (!one_row(r)) { lead = r; break; }
    std::unordered_set<const ir::TileRead*> down_columns;
    if (lead && !one_row(lead)) {
      for (auto* r : reads) if (r != lead && one_row(r)) down_columns.insert(r);
    }
    Extent e;
    if (lead) {
      e.size = {stored(lead->tile, 0), stored(lead->tile, 1)};
    } else if (!reads.empty()) {
      e.size = {stored(reads[0]->tile, 0), i64(1)};
    } else {  // a fill: the whole destination (slot or view)
      const auto& g = k_.groups[dst.group];
      e.size = dst.window ? std::array<Expr, 2>{i64(dst.window->extent[0]), i64(dst.window->extent[1])}
                          : std::array<Expr, 2>{i64(g.rows), i64(g.cols)};
    }
    for (auto* r : reads) {
      if (r == lead) continue;
      if (!down_columns.count(r)) {
        check(op(BinaryOp::GE, stored(r->tile, 0), e.size[0]), RuntimeCheck::operand_smaller, instr, 0,
              {e.size[0], stored(r->tile, 0), i64(0)}, out);
      }
      if (!r->row_broadcast) {
        check(op(BinaryOp::GE, stored(r->tile, 1), e.size[1]), RuntimeCheck::operand_smaller, instr, 1,
              {e.size[1], stored(r->tile, 1), i64(0)}, out);
      }
    }
    e.value = down_columns.empty() ? value : MarkColumnBroadcast(down_columns).mutate(value);
    return e;
  }

  /// A static upper bound of an extent: a constant, or the capacity of the tile whose valid extent
  /// it is (no instruction sets a valid extent beyond its tile); -1 when unknown.
  int64_t upper_bound(const Expr& e) const {
    if (const auto* imm = e.as<ir::IntImm>()) return imm->value;
    if (const auto* b = e.as<ir::Binary>(); b && b->op == BinaryOp::Min) {
      const int64_t x = upper_bound(b->a), y = upper_bound(b->b);
      return x < 0 ? y : (y < 0 ? x : std::min(x, y));
    }
    if (const auto* v = e.as<ir::TileValid>()) {
      const auto& g = k_.groups[v->tile.group];
      return v->axis == 0 ? g.rows : g.cols;
    }
    return -1;
  }

  /// A view lies inside its tile: 0 <= offset and offset + extent <= capacity on both axes (the
  /// tracer checked constant offsets already).
  void window_checks(const ir::TileRef& t, int instr, std::vector<Stmt>& out) const {
    if (!t.window) return;
    const auto& g = k_.groups[t.group];
    const int64_t cap[2] = {g.rows, g.cols};
    for (size_t d = 0; d < 2; ++d) {
      const Expr& off = t.window->offset[d];
      if (off.as<ir::IntImm>()) continue;
      const int64_t ext = t.window->extent[d];
      check(op(BinaryOp::And, op(BinaryOp::GE, off, i64(0)), op(BinaryOp::LE, op(BinaryOp::Add, off, i64(ext)), i64(cap[d]))),
            RuntimeCheck::view_out_of_tile, instr, static_cast<int>(d), {off, i64(ext), i64(cap[d])}, out);
    }
  }

  /// A view written by a tile expression must not partly overlap a view of the same slot that it
  /// reads in the same row with other columns: the elements would depend on the order they are
  /// computed in (and on the SIMD width). Reads of the written elements themselves, reads of other
  /// rows (rows run in order) and {rows, 1} operands (read once per row, first) are defined.
  void overlap_checks(const Expr& value, const ir::TileRef& dst, const Expr& rows, int instr, std::vector<Stmt>& out) const {
    const auto& g = k_.groups[dst.group];
    auto off = [](const ir::TileRef& t, size_t d) { return t.window ? t.window->offset[d] : i64(0); };
    auto cols = [&](const ir::TileRef& t) { return i64(t.window ? t.window->extent[1] : g.cols); };
    for (const ir::TileRead* r : tile_reads(value)) {
      if (r->tile.group != dst.group || r->row_broadcast || (!r->tile.window && !dst.window)) continue;
      const bool one_row = g.rank == 2 && (r->tile.window ? r->tile.window->extent[0] : g.rows) == 1;
      const Expr ra = off(r->tile, 0), rd = off(dst, 0), ca = off(r->tile, 1), cd = off(dst, 1);
      // Fine when: another slot, the same columns, no row in common (a one-row operand is read by
      // every row of the expression, any other by the same row only), or no column in common.
      const Expr other_rows = one_row ? op(BinaryOp::Or, op(BinaryOp::LT, ra, rd), op(BinaryOp::GE, ra, op(BinaryOp::Add, rd, rows)))
                                      : op(BinaryOp::NE, ra, rd);
      const Expr other_cols = op(BinaryOp::Or, op(BinaryOp::GE, ca, op(BinaryOp::Add, cd, cols(dst))),
                                 op(BinaryOp::GE, cd, op(BinaryOp::Add, ca, cols(r->tile))));
      const Expr fine = op(BinaryOp::Or, op(BinaryOp::Or, op(BinaryOp::NE, r->tile.slot, dst.slot), op(BinaryOp::EQ, ca, cd)),
                           op(BinaryOp::Or, other_rows, other_cols));
      check(fine, RuntimeCheck::view_overlap, instr, 1, {ca, cd, ra}, out);
    }
  }

  /// The axes of `size` named by `axes` (kRows, kCols or both) fit tile `t` (left out where that
  /// holds statically).
  static constexpr int kRows = 1, kCols = 2, kBoth = kRows | kCols;
  void fits(const ir::TileRef& t, const std::array<Expr, 2>& size, int instr, int axes, std::vector<Stmt>& out) const {
    const auto& g = k_.groups[t.group];
    const int64_t cap[2] = {t.window ? t.window->extent[0] : g.rows, t.window ? t.window->extent[1] : g.cols};
    for (int d = 0; d < 2; ++d) {
      if (!(axes & (1 << d))) continue;
      const int64_t bound = upper_bound(size[d]);
      if (bound >= 0 && bound <= cap[d]) continue;
      check(op(BinaryOp::LE, size[d], i64(cap[d])), RuntimeCheck::result_over_tile, instr, d, {size[d], i64(cap[d]), i64(0)}, out);
    }
  }

  const ir::Kernel& k_;
  const ChipProfile& chip_;
};

}  // namespace

void insert_checks(ir::Kernel& k, const ChipProfile& chip) { k.body = InsertChecks(k, chip).mutate(k.body); }

}  // namespace pto::backend
