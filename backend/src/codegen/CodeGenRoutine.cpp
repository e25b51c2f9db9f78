#include "CodeGen.hpp"

namespace pto::backend::codegen {

/// A vector routine: the operands as RoutineTile records, then the runtime's vec_routine (the function
/// the interpreter calls too); a negative result means it reported a failure and the core stops.
void CodeGen::vec_routine(const ir::VecRoutine* op) {
  auto* i64 = b_.getInt64Ty();
  auto* i32 = b_.getInt32Ty();
  const auto n = static_cast<int64_t>(op->operands.size());
  llvm::AllocaInst* tiles = entry_alloca(llvm::ArrayType::get(b_.getInt8Ty(), sizeof(RoutineTile) * static_cast<size_t>(n)), "routine");
  tiles->setAlignment(llvm::Align(alignof(RoutineTile)));
  for (int64_t i = 0; i < n; ++i) {
    const auto& t = op->operands[static_cast<size_t>(i)];
    const auto& g = group(t);
    auto field = [&](size_t offset) { return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), tiles, i * sizeof(RoutineTile) + offset); };
    b_.CreateStore(tile_base(t), field(offsetof(RoutineTile, data)));
    b_.CreateStore(valid_ptr(t, 0), field(offsetof(RoutineTile, valid)));
    b_.CreateStore(b_.getInt64(g.rows), field(offsetof(RoutineTile, rows)));
    b_.CreateStore(b_.getInt64(g.cols), field(offsetof(RoutineTile, cols)));
    b_.CreateStore(b_.getInt32(static_cast<int32_t>(g.dtype)), field(offsetof(RoutineTile, dtype)));
    b_.CreateStore(b_.getInt32(0), field(offsetof(RoutineTile, spare)));
  }
  Value* done = rt_call(offsetof(RuntimeFunctions, vec_routine), i64, {b_.getPtrTy(), i32, i32, b_.getPtrTy(), i32, i64, i64}, {ctx_, b_.getInt32(op->id), b_.getInt32(static_cast<int32_t>(op->routine)), tiles,
                                            b_.getInt32(static_cast<int32_t>(n)), b_.getInt64(op->params[0]), b_.getInt64(op->params[1])});
  stop_if(b_.CreateZExt(b_.CreateICmpSLT(done, b_.getInt64(0)), b_.getInt32Ty()), "routine");
  report(op, op->id, done);
}

}  // namespace pto::backend::codegen
