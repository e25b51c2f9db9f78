// Tracing of the cube instructions, sections and cross-core flags (pto/lang/Cube.hpp).
#include "pto/lang/Cube.hpp"

namespace pto::lang {
namespace detail {
namespace {

const char* space(MemSpace s) { return ir::mem_space_name(s); }

/// The pipe of a local copy from `src` to `dst`, or nullopt when the chip family has no such path.
std::optional<Pipe> move_pipe(MemSpace dst, MemSpace src) {
  if (src == MemSpace::Mat && (dst == MemSpace::Left || dst == MemSpace::Right)) return Pipe::MTE1;
  if (src == MemSpace::Acc && dst == MemSpace::Vec) return Pipe::FIX;
  if (src == MemSpace::Vec && dst == MemSpace::Mat) return Pipe::MTE3;
  return std::nullopt;
}

}  // namespace

void emit_move(const ir::TileRef& dst, const TileShape& dst_shape, const ir::TileRef& src, const TileShape& src_shape,
               bool transpose, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const auto pipe = move_pipe(dst_shape.space, src_shape.space);
  PTO_USER_CHECK(pipe.has_value(), site) << "move from " << space(src_shape.space) << " to " << space(dst_shape.space)
                                         << " is not a path of the AI Core; moves go Mat -> Left/Right (MTE1), "
                                            "Acc -> Vec (FIX) or Vec -> Mat (MTE3)";
  PTO_USER_CHECK(!transpose || *pipe == Pipe::MTE1, site) << "only moves from Mat into Left/Right can transpose";
  PTO_USER_CHECK(dst_shape.rank == src_shape.rank, site)
      << "move between a " << src_shape.rank << "-D and a " << dst_shape.rank << "-D tile; ranks must match";
  ctx.emit(ir::Move::make(dst, src, transpose, ctx.new_instr("move", *pipe, loc)));
}

void emit_matmul(const ir::TileRef& acc, const TileShape& acc_shape, const ir::TileRef& a, const TileShape& a_shape,
                 const ir::TileRef& b, const TileShape& b_shape, bool accumulate, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  PTO_USER_CHECK(acc_shape.space == MemSpace::Acc && a_shape.space == MemSpace::Left && b_shape.space == MemSpace::Right, site)
      << "matmul(acc, left, right) takes tiles in Acc, Left and Right; got " << space(acc_shape.space) << ", "
      << space(a_shape.space) << " and " << space(b_shape.space);
  PTO_USER_CHECK(acc_shape.rank == 2 && a_shape.rank == 2 && b_shape.rank == 2, site) << "matmul takes 2-D {rows, cols} tiles";
  PTO_USER_CHECK(a_shape.cols == b_shape.rows, site)
      << "matmul of a " << a_shape.rows << "x" << a_shape.cols << " Left tile by a " << b_shape.rows << "x" << b_shape.cols
      << " Right tile: the K dimensions (" << a_shape.cols << " and " << b_shape.rows << ") differ";
  PTO_USER_CHECK(acc_shape.rows >= a_shape.rows && acc_shape.cols >= b_shape.cols, site)
      << "matmul of " << a_shape.rows << "x" << b_shape.cols << " into a " << acc_shape.rows << "x" << acc_shape.cols
      << " Acc tile: the accumulator is too small";
  ctx.emit(ir::Matmul::make(acc, a, b, accumulate, ctx.new_instr("matmul", Pipe::M, loc)));
}

void emit_section(ir::CoreKind core, const std::function<void()>& body, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  const char* name = core == ir::CoreKind::AIC ? "section_cube" : "section_vector";
  PTO_USER_CHECK(!ctx.section().has_value(), ctx.site(SourceLoc::from(loc)))
      << name << " inside " << (*ctx.section() == ir::CoreKind::AIC ? "section_cube" : "section_vector")
      << ": sections do not nest";
  ctx.push_scope();
  ctx.set_section(core);
  struct Reset {
    TraceContext& c;
    ~Reset() { c.set_section(std::nullopt); }
  } reset{ctx};
  body();
  ir::Stmt traced = ctx.pop_scope();
  ctx.emit(ir::Section::make(core, traced, SourceLoc::from(loc)));
}

void emit_cross_core(ir::SyncOp op, Pipe pipe, const Int& event, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const char* name = ir::sync_op_name(op);
  if (auto e = event.constant()) {
    PTO_USER_CHECK(*e >= 0 && *e < 16, site) << name << " event id " << *e << " is out of range 0..15";
  }
  PTO_USER_CHECK(pipe != Pipe::ALL, site) << name << " needs one pipe, not ALL";
  PTO_USER_CHECK(ctx.section().has_value(), site)
      << name << " outside a section: cross-core flags go between section_cube and section_vector code";
  ctx.kernel().cross_core = true;
  ctx.emit(ir::Sync::make(op, pipe, pipe, event.expr(), ir::TileRef{}, ctx.new_instr(name, pipe, loc)));
}

}  // namespace detail

Int get_subblock_idx(std::source_location loc) { return Int(TraceContext::get(loc).core_var(ir::VarKind::SubblockIdx)); }
Int get_subblock_num(std::source_location loc) { return Int(TraceContext::get(loc).core_var(ir::VarKind::SubblockNum)); }

}  // namespace pto::lang
