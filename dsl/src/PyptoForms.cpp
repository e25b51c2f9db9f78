// Trace-time checks of PyPTO Pro's spellings (pto/lang/PyptoForms.hpp), and the partial ops.
#include "pto/lang/PyptoForms.hpp"

#include <algorithm>

#include "pto/lang/Control.hpp"
#include "pto/lang/Cube.hpp"

namespace pto::lang::detail {

void check_expand_operand(const TileShape& src, const TileShape& vec, int dim, const char* op, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  PTO_USER_CHECK(dim == 0 || dim == 1, site) << op << " with dim " << dim << ": dim is 0 (a [rows, 1] operand) or 1 (a [1, cols] one)";
  PTO_USER_CHECK(src.rank == 2 && vec.rank == 2, site) << op << " takes 2-D {rows, cols} tiles";
  if (dim == 0) {
    PTO_USER_CHECK(vec.cols == 1 && vec.rows == src.rows, site)
        << op << " with dim 0 broadcasts a [" << src.rows << ", 1] tile along each row of a [" << src.rows << ", " << src.cols
        << "] one; got a [" << vec.rows << ", " << vec.cols << "] tile";
  } else {
    PTO_USER_CHECK(vec.rows == 1 && vec.cols == src.cols, site)
        << op << " with dim 1 broadcasts a [1, " << src.cols << "] tile down each column of a [" << src.rows << ", " << src.cols
        << "] one; got a [" << vec.rows << ", " << vec.cols << "] tile";
  }
}

void check_reduce_dim(int dim, const char* op, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(dim == 0 || dim == 1, ctx.site(SourceLoc::from(loc)))
      << op << " with dim " << dim << ": dim is 0 (each row into a [rows, 1] tile) or 1 (each column into a [1, cols] tile)";
}

std::array<Int, 2> offsets_of(std::initializer_list<Int> offsets, int rank, const char* op, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(static_cast<int>(offsets.size()) == rank, ctx.site(SourceLoc::from(loc)))
      << op << " with " << offsets.size() << " offsets on a " << rank << "-D tensor: give one offset per dimension";
  const Int* o = offsets.end() - std::min(rank, 2);  // the last two: an N-D tensor's leading ones fix its matrix
  return rank == 1 ? std::array<Int, 2>{Int(0), o[0]} : std::array<Int, 2>{o[0], o[1]};
}

namespace {
/// The same slot for certain: one group, and the same slot expression (or the same constant slot).
bool same_slot(const ir::TileRef& a, const ir::TileRef& b) {
  if (a.group != b.group) return false;
  if (a.slot.same_as(b.slot)) return true;
  const auto* x = a.slot.as<ir::IntImm>();
  const auto* y = b.slot.as<ir::IntImm>();
  return x && y && x->value == y->value;
}
}  // namespace

void emit_part(const char* op, ir::BinaryOp combine, const ir::TileRef& out, const TileShape& out_shape, const ir::Expr& read0,
               const ir::TileRef& src0, const TileShape& shape0, const ir::Expr& read1, const ir::TileRef& src1,
               const TileShape& shape1, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  auto same = [](const TileShape& a, const TileShape& b) { return a.rows == b.rows && a.cols == b.cols && a.rank == b.rank; };
  PTO_USER_CHECK(out_shape.space == MemSpace::Vec && shape0.space == MemSpace::Vec && shape1.space == MemSpace::Vec, site)
      << op << " takes Vec tiles";
  PTO_USER_CHECK(same(out_shape, shape0) && same(out_shape, shape1), site)
      << op << " takes out, src0 and src1 of one shape; got [" << out_shape.rows << ", " << out_shape.cols << "], [" << shape0.rows
      << ", " << shape0.cols << "] and [" << shape1.rows << ", " << shape1.cols << "]";
  PTO_USER_CHECK(!same_slot(out, src0) && !same_slot(out, src1), site)
      << op << "(out, src0, src1) with out the same tile as an operand: out is written in two steps (the full operand, then "
      << "the partial one combined in), so give out a tile of its own";
  const Int r0(ir::TileValid::make(src0, 0)), c0(ir::TileValid::make(src0, 1));
  const Int r1(ir::TileValid::make(src1, 0)), c1(ir::TileValid::make(src1, 1));
  const SourceLoc at = SourceLoc::from(loc);
  const ir::Expr out_read = ir::TileRead::make(out, read0->type.dtype, out_shape.rank == 2 && out_shape.cols == 1);
  auto run = [&](const ir::Expr& full, const ir::Expr& part, const Int& rows, const Int& cols) {
    emit_vec_compute(out, full, at);
    // The partial operand leads (it is read first), so the combine runs over its valid extent.
    emit_vec_compute(out, ir::Binary::make(combine, part, out_read), at);
    emit_set_valid(out, out_shape, rows, cols, loc);
  };
  // src1 fits in src0: src1 is the partial one (also when both are equal); otherwise src0 is, and
  // an src1 that does not cover it stops the combine with operand_smaller.
  if_(r1 <= r0 && c1 <= c0, [&] { run(read0, read1, r0, c0); }, [&] { run(read1, read0, r1, c1); }, loc);
}

}  // namespace pto::lang::detail
