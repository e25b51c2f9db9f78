// Tracing of getval / setval and the vector-mask instructions (pto/lang/ElemAccess.hpp): the rules
// that hold at trace time. A runtime offset is checked when the instruction runs (insert_checks).
#include "pto/lang/ElemAccess.hpp"

namespace pto::lang::detail {

namespace {

ir::Instr elem_instr(const char* name, const ElemContainer& c, const Int& offset, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  if (c.tensor < 0) {
    PTO_USER_CHECK(c.shape.space == MemSpace::Vec, site)
        << name << " of a " << ir::mem_space_name(c.shape.space) << " tile: " << name << " reads and writes Vec (UB) tiles or GM tensors";
  }
  const int64_t count = c.shape.rows * c.shape.cols;
  if (const auto v = offset.constant(); v && count >= 0) {  // a dynamic tensor's bound is checked when the core runs
    PTO_USER_CHECK(*v >= 0 && *v < count, site) << name << ": element offset " << *v << " is outside the " << count << " elements of the "
                                                << (c.tensor >= 0 ? "tensor" : "tile");
  }
  return ctx.new_instr(name, Pipe::S, loc);
}

}  // namespace

ir::Expr emit_getval(const ElemContainer& c, const Int& offset, const std::source_location& loc) {
  const ir::Instr instr = elem_instr("getval", c, offset, loc);
  auto& ctx = TraceContext::get(loc);
  ir::Expr var = ctx.new_var("v" + std::to_string(ctx.kernel().num_vars), ir::VarKind::Mutable, -1, is_floating(c.dtype) ? DType::f32 : DType::i64);
  ctx.kernel().mutable_vars.push_back(var);
  ctx.emit(ir::ElemAccess::make(false, c.tile, c.tensor, offset.expr(), var, {}, instr));
  return var;
}

void emit_setval(const ElemContainer& c, const Int& offset, const ir::Expr& value, const std::source_location& loc) {
  const ir::Instr instr = elem_instr("setval", c, offset, loc);
  TraceContext::get(loc).emit(ir::ElemAccess::make(true, c.tile, c.tensor, offset.expr(), {}, value, instr));
}

void note_mask_instruction(const std::source_location& loc) { TraceContext::get(loc).note(loc); }

}  // namespace pto::lang::detail
