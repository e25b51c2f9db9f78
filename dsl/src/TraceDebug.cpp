// Tracing of the debugging aids (pto/lang/Debug.hpp).
#include "pto/lang/Debug.hpp"

#include <bit>

#include "pto/support/DebugFormat.hpp"

namespace pto::lang::detail {

ir::Expr float_bits(float value) { return ir::IntImm::make(std::bit_cast<uint32_t>(value)); }

void emit_debug(ir::DebugOp op, const Format& format, const std::vector<DebugArg>& args, ir::Expr cond, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const char* name = ir::debug_op_name(op);
  std::vector<DebugArgKind> kinds;
  std::vector<ir::Expr> values;
  for (const auto& a : args) {
    kinds.push_back(a.kind);
    values.push_back(a.value);
  }
  std::string error;
  const auto normal = normalize_debug_format(format.text, kinds, &error);
  PTO_USER_CHECK(normal.has_value(), site) << name << " format \"" << format.text << "\"" << error;
  ctx.emit(ir::Debug::make(op, *normal, std::move(values), std::move(cond), ir::TileRef{}, {}, {}, ctx.new_instr(name, Pipe::S, loc)));
}

void emit_dump(const ir::TileRef& tile, std::array<ir::Expr, 2> offset, std::array<ir::Expr, 2> extent,
               const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.emit(ir::Debug::make(ir::DebugOp::Dump, "", {}, ir::Expr(), tile, std::move(offset), std::move(extent),
                           ctx.new_instr("dump_data", Pipe::S, loc)));
}

void emit_dump_gm(const ir::GMRegion& region, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.emit(ir::Debug::make(ir::DebugOp::Dump, "", {}, ir::Expr(), ir::TileRef{}, {}, {}, ctx.new_instr("dump_data", Pipe::S, loc), region));
}

}  // namespace pto::lang::detail
