// Tracing of the vector routines (pto/lang/Rearrange.hpp): the rules that hold at trace time.
// What depends on valid extents and index values is checked when the routine runs.
#include "pto/lang/Rearrange.hpp"

#include <fmt/format.h>

#include "pto/ir/Printer.hpp"

namespace pto::lang::detail {

namespace {

bool same_tile(const RoutineOperand& a, const RoutineOperand& b) {
  return a.ref.group == b.ref.group && ir::to_string(a.ref.slot) == ir::to_string(b.ref.slot);
}

/// The operand PyPTO Pro's signature names at `i` (for messages).
const char* operand_role(ir::Routine r, size_t i, int writes) {
  using R = ir::Routine;
  if (static_cast<int>(i) < writes) return i == 0 ? "the destination" : "tmp";
  const size_t k = i - static_cast<size_t>(writes);
  switch (r) {
    case R::Gather:
    case R::Scatter:
    case R::Sort32: return k == 0 ? "src" : "idx";
    case R::GatherB: return k == 0 ? "src" : "offsets";
    default: return "src";
  }
}

}  // namespace

void emit_vec_routine(ir::Routine routine, const std::vector<RoutineOperand>& operands, int writes, std::array<int64_t, 2> params,
                      const std::source_location& loc) {
  using R = ir::Routine;
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const char* name = ir::routine_name(routine);
  const RoutineOperand& out = operands[0];
  for (size_t i = 0; i < operands.size(); ++i) {
    const auto& o = operands[i];
    PTO_USER_CHECK(o.shape.space == MemSpace::Vec, site) << name << ": " << operand_role(routine, i, writes) << " is a "
                                                          << ir::mem_space_name(o.shape.space) << " tile; " << name
                                                          << " works on Vec (UB) tiles";
  }
  const bool indexed = routine == R::Gather || routine == R::Scatter || routine == R::Sort32 || routine == R::GatherB;
  if (indexed) {  // the C++ signatures take int32 index tiles; a 32-bit element is what the routine reads
    const auto& idx = operands.back();
    PTO_INTERNAL_CHECK(idx.dtype == DType::i32) << name << " index operand";
  }
  switch (routine) {
    case R::Gather:
      PTO_USER_CHECK(params[0] > -(int64_t{1} << 31) && params[0] < (int64_t{1} << 31), site)
          << "gather: offset " << params[0] << " is outside the int32 range of an index";
      PTO_USER_CHECK(params[1] == 0, site) << "gather: cmp_mode " << params[1]
                                           << " is not supported (PyPTO Pro documents only 0, no comparison)";
      break;
    case R::GatherMask:
      PTO_USER_CHECK(params[0] >= 1 && params[0] <= 7, site)
          << "gathermask: pattern_mode is 1..7 (1/2 even/odd columns, 3..6 one column of every 4, 7 all), got " << params[0];
      break;
    case R::FillPad: {
      const auto mode = static_cast<FillPadMode>(params[0]);
      const auto& g = ctx.kernel().groups[static_cast<size_t>(out.ref.group)];
      PTO_USER_CHECK(g.pad != ir::TilePad::Null, site)
          << "fillpad writes the destination tile's pad value, and " << g.name
          << " has none: declare it with one, e.g. pl::make_tile<T>(pl::Vec, {rows, cols}, pl::TilePad::Zero)";
      params[1] = static_cast<int64_t>(g.pad);
      const auto& src = operands[1];
      const bool same = same_tile(out, src);
      if (mode == FillPadMode::INPLACE) {
        PTO_USER_CHECK(same, site) << "fillpad with FillPadMode::INPLACE fills one tile: pass the same tile as out and src";
      } else if (mode == FillPadMode::NORMAL) {
        PTO_USER_CHECK(!same, site) << "fillpad with FillPadMode::NORMAL writes another tile; to fill a tile in place use FillPadMode::INPLACE";
        PTO_USER_CHECK(out.shape.rows == src.shape.rows && out.shape.cols == src.shape.cols, site)
            << fmt::format("fillpad with FillPadMode::NORMAL needs out and src of one shape, got [{}, {}] and [{}, {}]; "
                           "FillPadMode::EXPAND pads into a larger tile", out.shape.rows, out.shape.cols, src.shape.rows, src.shape.cols);
      } else {
        PTO_USER_CHECK(!same && out.shape.rows >= src.shape.rows && out.shape.cols >= src.shape.cols, site)
            << fmt::format("fillpad with FillPadMode::EXPAND needs another tile at least src's shape, got [{}, {}] for src [{}, {}]",
                           out.shape.rows, out.shape.cols, src.shape.rows, src.shape.cols);
      }
      break;
    }
    case R::Sort32:
    case R::MrgSort:
    case R::MrgSort2:
      PTO_USER_CHECK(out.dtype == DType::f32 || out.dtype == DType::f16, site)
          << name << " sorts f32 or f16 tiles (records of 8 bytes), got " << dtype_name(out.dtype);

      if (routine == R::MrgSort) {
        const auto es = static_cast<int64_t>(dtype_size(out.dtype));
        PTO_USER_CHECK(params[0] > 0 && params[0] <= operands[1].shape.cols && params[0] * es % 8 == 0, site)
            << "mrgsort: block_len counts tile elements and must be a positive multiple of one 8-byte record (" << 8 / es
            << " elements of " << dtype_name(out.dtype) << ") and at most src's " << operands[1].shape.cols << " columns, got " << params[0];
      }
      break;
    default: break;
  }
  ctx.emit(ir::VecRoutine::make(routine, [&] {
    std::vector<ir::TileRef> refs;
    for (const auto& o : operands) refs.push_back(o.ref);
    return refs;
  }(), writes, params, ctx.new_instr(name, Pipe::V, loc)));
}

}  // namespace pto::lang::detail
