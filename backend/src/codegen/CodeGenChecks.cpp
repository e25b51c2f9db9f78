#include "CodeGen.hpp"

namespace pto::backend::codegen {

void CodeGen::check(Value* ok, int instr, RuntimeCheck chk, int axis, Value* a, Value* bv, Value* cv) {
  BasicBlock* fail = BasicBlock::Create(c_, "fail", fn_);
  BasicBlock* cont = BasicBlock::Create(c_, "ok", fn_);
  b_.CreateCondBr(ok, cont, fail, llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(fail);
  auto* i32 = b_.getInt32Ty();
  auto* i64 = b_.getInt64Ty();
  rt_call(offsetof(RuntimeFunctions, fail), b_.getVoidTy(), {b_.getPtrTy(), i32, i32, i32, i64, i64, i64},
          {ctx_, b_.getInt32(instr), b_.getInt32(static_cast<int32_t>(chk)), b_.getInt32(axis), a, bv, cv ? cv : b_.getInt64(0)});
  b_.CreateRetVoid();
  b_.SetInsertPoint(cont);
}

void CodeGen::visit_node(const ir::Check* op) {
  check(scalar(op->cond), op->instr, op->check, op->axis, scalar(op->args[0]), scalar(op->args[1]), scalar(op->args[2]));
}

CodeGen::Extent CodeGen::extent(const std::array<ir::Expr, 2>& e) {
  PTO_INTERNAL_CHECK(e[0] && e[1]) << "a tile expression without its extent (insert_checks has not run)";
  return {scalar(e[0]), scalar(e[1])};
}

CodeGen::Region CodeGen::region(const ir::GMRegion& r) {
  Region out;
  for (int d = 0; d < 2; ++d) {
    out.off[d] = scalar(r.offset[d]);
    out.ext[d] = scalar(r.extent[d]);
    out.view[d] = scalar(r.view[d]);
    out.stride[d] = scalar(ir::region_stride(r, d));
  }
  out.base = scalar(ir::region_base(r));
  return out;
}

std::pair<Value*, Value*> CodeGen::gm_interval(const ir::GMRegion&, const Region& reg) {
  Value* lo = b_.CreateAdd(reg.base, b_.CreateAdd(b_.CreateMul(reg.off[0], reg.stride[0]), b_.CreateMul(reg.off[1], reg.stride[1])));
  Value* one = b_.getInt64(1);
  Value* last = b_.CreateAdd(b_.CreateMul(b_.CreateSub(reg.ext[0], one), reg.stride[0]), b_.CreateMul(b_.CreateSub(reg.ext[1], one), reg.stride[1]));
  Value* hi = b_.CreateAdd(b_.CreateAdd(lo, last), one);
  Value* empty = b_.CreateOr(b_.CreateICmpEQ(reg.ext[0], b_.getInt64(0)), b_.CreateICmpEQ(reg.ext[1], b_.getInt64(0)));
  return {lo, b_.CreateSelect(empty, lo, hi)};
}

Value* CodeGen::gm_address(const ir::GMRegion& r, const Region& reg, int64_t es) {
  Value* elem = b_.CreateAdd(reg.base, b_.CreateAdd(b_.CreateMul(reg.off[0], reg.stride[0]), b_.CreateMul(reg.off[1], reg.stride[1])));
  return b_.CreateInBoundsGEP(b_.getInt8Ty(), tensor_base_[r.tensor], b_.CreateMul(elem, b_.getInt64(es)));
}


}  // namespace pto::backend::codegen
