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
               const MoveOptions& options, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const auto pipe = move_pipe(dst_shape.space, src_shape.space);
  PTO_USER_CHECK(pipe.has_value(), site) << "move from " << space(src_shape.space) << " to " << space(dst_shape.space)
                                         << " is not a path of the AI Core; moves go Mat -> Left/Right (MTE1), "
                                            "Acc -> Vec (FIX) or Vec -> Mat (MTE3)";
  PTO_USER_CHECK(!options.transpose || *pipe == Pipe::MTE1, site) << "only moves from Mat into Left/Right can transpose";
  PTO_USER_CHECK(dst_shape.rank == src_shape.rank, site)
      << "move between a " << src_shape.rank << "-D and a " << dst_shape.rank << "-D tile; ranks must match";
  const bool acc_to_vec = src_shape.space == MemSpace::Acc, vec_to_mat = src_shape.space == MemSpace::Vec;
  PTO_USER_CHECK(acc_to_vec || options.acc_to_vec_mode == AccToVecMode::SingleModeVec0, site)
      << "acc_to_vec_mode " << ir::acc_to_vec_name(options.acc_to_vec_mode) << " on a move from " << space(src_shape.space)
      << ": the mode chooses the AIVs that receive an Acc -> Vec move";
  const auto off_row = options.offset.row.constant(), off_col = options.offset.col.constant();
  PTO_USER_CHECK(vec_to_mat || (off_row == 0 && off_col == 0), site)
      << "a move offset on a move from " << space(src_shape.space) << ": only Vec -> Mat moves take an offset (where the "
      << "AIV's rows land in the AIC's tile)";
  for (const auto& [what, off, cap] : {std::tuple{"row", off_row, dst_shape.rows}, std::tuple{"column", off_col, dst_shape.cols}}) {
    PTO_USER_CHECK(!off || (*off >= 0 && *off < cap), site)
        << "move " << what << " offset " << *off << " is outside the destination tile's " << cap << " " << what << "s";
  }
  const DType from = ctx.kernel().groups[src.group].dtype, to = ctx.kernel().groups[dst.group].dtype;
  PTO_USER_CHECK(from == to || acc_to_vec, site)
      << "move from a " << dtype_name(from) << " tile to a " << dtype_name(to) << " tile: only Acc -> Vec converts";
  PTO_USER_CHECK(!acc_to_vec || from == DType::f32 || (from == DType::i32 && to == DType::i32), site)
      << "Acc -> Vec moves float accumulators (to float, half or bfloat16) or int32 ones (to int32), not " << dtype_name(from)
      << " to " << dtype_name(to);
  ir::MoveAttrs attrs;
  attrs.transpose = options.transpose;
  attrs.cross_core = acc_to_vec || vec_to_mat;
  attrs.split = options.acc_to_vec_mode;
  if (vec_to_mat) attrs.offset = {options.offset.row.expr(), options.offset.col.expr()};
  ctx.emit(ir::Move::make(dst, src, std::move(attrs), ctx.new_instr("move", *pipe, loc)));
}

void emit_extract(const ir::TileRef& dst, const TileShape& dst_shape, const ir::TileRef& src, const TileShape& src_shape,
                  const Int& row, const Int& col, bool transpose, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  PTO_USER_CHECK(src_shape.space == MemSpace::Mat && (dst_shape.space == MemSpace::Left || dst_shape.space == MemSpace::Right), site)
      << "extract from " << space(src_shape.space) << " to " << space(dst_shape.space)
      << ": extract takes a window of a Mat (L1) tile into a Left or Right (L0) tile";
  PTO_USER_CHECK(dst_shape.rank == 2 && src_shape.rank == 2, site) << "extract takes 2-D {rows, cols} tiles";
  for (const auto& [what, off, cap] : {std::tuple{"row", row.constant(), src_shape.rows}, std::tuple{"column", col.constant(), src_shape.cols}}) {
    PTO_USER_CHECK(!off || (*off >= 0 && *off < cap), site)
        << "extract " << what << " offset " << *off << " is outside the source tile's " << cap << " " << what << "s";
  }
  ir::MoveAttrs attrs;
  attrs.transpose = transpose;
  attrs.window = true;
  attrs.offset = {row.expr(), col.expr()};
  ctx.emit(ir::Move::make(dst, src, std::move(attrs), ctx.new_instr("extract", Pipe::MTE1, loc)));
}

void emit_set_valid(const ir::TileRef& tile, const TileShape& shape, const Int& rows, const Int& cols, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  for (const auto& [what, v, cap] : {std::tuple{"rows", rows.constant(), shape.rows}, std::tuple{"columns", cols.constant(), shape.cols}}) {
    PTO_USER_CHECK(!v || (*v >= 0 && *v <= cap), site)
        << "set_validshape of " << *v << " " << what << " on a tile of " << cap << " " << what;
  }
  ctx.emit(ir::SetValid::make(tile, rows.expr(), cols.expr(), ctx.new_instr("set_validshape", Pipe::S, loc)));
}

void emit_matmul(const ir::TileRef& acc, const TileShape& acc_shape, const ir::TileRef& a, const TileShape& a_shape,
                 const ir::TileRef& b, const TileShape& b_shape, bool accumulate, const std::source_location& loc,
                 const ir::TileRef& bias, const TileShape* bias_shape) {
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
  if (bias_shape) {
    PTO_USER_CHECK(bias_shape->space == MemSpace::Mat && bias_shape->rank == 2 && bias_shape->rows == 1 && bias_shape->cols >= b_shape.cols, site)
        << "matmul bias: a [1, " << b_shape.cols << "] (or wider) Mat tile, got a " << bias_shape->rows << "x" << bias_shape->cols << " "
        << space(bias_shape->space) << " tile";
  }
  ctx.emit(ir::Matmul::make(acc, a, b, accumulate, ctx.new_instr(bias_shape ? "matmul_bias" : "matmul", Pipe::M, loc), bias));
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

void sync_all(std::source_location loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const auto section = ctx.section();
  const ir::SyncAllScope scope = !section ? ir::SyncAllScope::All
                                 : *section == ir::CoreKind::AIV ? ir::SyncAllScope::AIV : ir::SyncAllScope::AIC;
  ir::SyncAllScope& kernel_scope = ctx.kernel().sync_all;
  PTO_USER_CHECK(kernel_scope == ir::SyncAllScope::None || kernel_scope == scope, site)
      << "sync_all meets " << ir::sync_all_scope_name(scope) << " here but " << ir::sync_all_scope_name(kernel_scope)
      << " at an earlier call: one kernel's sync_all calls must all be in section_vector, all in section_cube or all outside sections";
  kernel_scope = scope;
  ctx.emit(ir::Sync::make(ir::SyncOp::SyncAll, Pipe::ALL, Pipe::ALL, ir::IntImm::make(0), ir::TileRef{},
                          ctx.new_instr("sync_all", Pipe::ALL, loc)));
}

Int get_subblock_idx(std::source_location loc) { return Int(TraceContext::get(loc).core_var(ir::VarKind::SubblockIdx)); }
Int get_subblock_num(std::source_location loc) { return Int(TraceContext::get(loc).core_var(ir::VarKind::SubblockNum)); }

}  // namespace pto::lang
