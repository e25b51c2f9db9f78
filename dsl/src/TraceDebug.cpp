// Tracing of the debugging aids (pto/lang/Debug.hpp).
#include "pto/lang/Debug.hpp"

#include "pto/support/DebugFormat.hpp"

namespace pto::lang::detail {

void emit_debug(ir::DebugOp op, const Format& format, std::vector<ir::Expr> args, ir::Expr cond, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const char* name = ir::debug_op_name(op);
  std::string error;
  const auto placeholders = count_debug_placeholders(format.text, &error);
  PTO_USER_CHECK(placeholders.has_value(), site) << name << " format \"" << format.text << "\": " << error;
  PTO_USER_CHECK(*placeholders == static_cast<int>(args.size()), site)
      << name << " format \"" << format.text << "\" has " << *placeholders << " placeholders but " << args.size() << " arguments";
  ctx.emit(ir::Debug::make(op, format.text, std::move(args), std::move(cond), ir::TileRef{}, {}, {}, ctx.new_instr(name, Pipe::S, loc)));
}

void emit_dump(const ir::TileRef& tile, std::array<ir::Expr, 2> offset, std::array<ir::Expr, 2> extent,
               const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.emit(ir::Debug::make(ir::DebugOp::Dump, "", {}, ir::Expr(), tile, std::move(offset), std::move(extent),
                           ctx.new_instr("dump_data", Pipe::S, loc)));
}

}  // namespace pto::lang::detail
