#include "CodeGen.hpp"

namespace pto::backend::codegen {

Value* CodeGen::call_debug(const ir::Debug* op, Value* args, Value* data, Value* rows, Value* cols, Value* pitch) {
  auto* ty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt32Ty(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty(),
                                                       b_.getInt64Ty(), b_.getInt64Ty()}, false);
  Value* hook = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kDebug), "debug_hook");
  return b_.CreateCall(ty, hook, {ctx_, b_.getInt32(op->id), args, data, rows, cols, pitch});
}

void CodeGen::stop_if(Value* r, const char* name) {
  BasicBlock* stop = BasicBlock::Create(c_, std::string(name) + ".stop", fn_);
  BasicBlock* cont = BasicBlock::Create(c_, std::string(name) + ".ok", fn_);
  b_.CreateCondBr(b_.CreateICmpEQ(r, b_.getInt32(0)), cont, stop, llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(stop);
  b_.CreateRetVoid();
  b_.SetInsertPoint(cont);
}

void CodeGen::debug(const ir::Debug* op) {
  Value* null = llvm::ConstantPointerNull::get(b_.getPtrTy());
  Value* zero = b_.getInt64(0);
  auto args = [&]() -> Value* {
    if (op->args.empty()) return null;
    llvm::AllocaInst* a = entry_alloca(llvm::ArrayType::get(b_.getInt64Ty(), op->args.size()));
    for (size_t i = 0; i < op->args.size(); ++i) {
      Value* v = scalar(op->args[i]);
      if (v->getType() != b_.getInt64Ty()) v = b_.CreateZExt(v, b_.getInt64Ty());
      b_.CreateStore(v, b_.CreateConstInBoundsGEP2_64(a->getAllocatedType(), a, 0, i));
    }
    return a;
  };
  switch (op->op) {
    case ir::DebugOp::Printf:
      call_debug(op, args(), null, zero, zero, zero);
      break;
    case ir::DebugOp::Assert: {
      BasicBlock* fail = BasicBlock::Create(c_, "assert.fail", fn_);
      BasicBlock* cont = BasicBlock::Create(c_, "assert.ok", fn_);
      b_.CreateCondBr(scalar(op->cond), cont, fail, llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1));
      b_.SetInsertPoint(fail);
      stop_if(call_debug(op, args(), null, b_.getInt64(1), zero, zero), "assert");
      b_.CreateBr(cont);
      b_.SetInsertPoint(cont);
      break;
    }
    case ir::DebugOp::Trap:
      call_debug(op, null, null, zero, zero, zero);
      b_.CreateRetVoid();
      b_.SetInsertPoint(BasicBlock::Create(c_, "after.trap", fn_));
      return;
    case ir::DebugOp::Dump: {
      if (op->region.tensor >= 0) {  // a GM region (insert_checks: inside the tensor)
        const Region reg = region(op->region);
        const int64_t es = static_cast<int64_t>(dtype_size(k_.tensors[op->region.tensor].dtype));
        call_debug(op, null, gm_address(op->region, reg, es), reg.ext[0], reg.ext[1], reg.stride[0]);
        break;
      }
      const auto& g = group(op->tile);
      const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
      Value* r0 = op->offset[0] ? scalar(op->offset[0]) : zero;
      Value* c0 = op->offset[1] ? scalar(op->offset[1]) : zero;
      Value* rows = op->extent[0] ? scalar(op->extent[0]) : valid(op->tile, 0);
      Value* cols = op->extent[1] ? scalar(op->extent[1]) : valid(op->tile, 1);
      // The window must lie inside the tile (negative corners and extents included).
      const int64_t cap[2] = {g.rows, g.cols};
      Value* off[2] = {r0, c0};
      Value* ext[2] = {rows, cols};
      for (int d = 0; d < 2; ++d) {
        Value* ok = b_.CreateAnd(b_.CreateAnd(b_.CreateICmpSGE(off[d], zero), b_.CreateICmpSGE(ext[d], zero)),
                                 b_.CreateICmpSLE(b_.CreateAdd(off[d], ext[d]), b_.getInt64(cap[d])));
        check(ok, op->id, RuntimeCheck::region_over_tile, d, b_.CreateAdd(off[d], ext[d]), b_.getInt64(cap[d]));
      }
      Value* first = b_.CreateInBoundsGEP(b_.getInt8Ty(), tile_base(op->tile),
                                          b_.CreateMul(b_.CreateAdd(b_.CreateMul(r0, b_.getInt64(g.cols)), c0), b_.getInt64(es)));
      call_debug(op, null, first, rows, cols, b_.getInt64(g.cols));
      break;
    }
  }
  report(op, op->id, b_.getInt64(1));
}

}  // namespace pto::backend::codegen
