#include <bit>

#include "CodeGen.hpp"

namespace pto::backend::codegen {

/// getval / setval: the element's address (insert_checks: the offset is inside), then
/// pto_rt_getval / pto_rt_setval, the functions the interpreter calls too.
void CodeGen::elem_access(const ir::ElemAccess* op) {
  auto* i64 = b_.getInt64Ty();
  auto* i32 = b_.getInt32Ty();
  auto runtime_fn = [&](const char* name, llvm::FunctionType* type) {
    llvm::FunctionCallee f = m_.getOrInsertFunction(name, type);
    if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) fn->setDoesNotThrow();
    return f;
  };
  const DType dt = op->tensor >= 0 ? k_.tensors[static_cast<size_t>(op->tensor)].dtype : group(op->tile).dtype;
  const auto es = static_cast<int64_t>(dtype_size(dt));
  Value* offset = scalar(op->offset);
  Value* base = op->tensor >= 0 ? tensor_base_[op->tensor] : tile_base(op->tile);
  Value* elem = b_.CreateInBoundsGEP(b_.getInt8Ty(), base, b_.CreateMul(offset, b_.getInt64(es)));
  if (op->write) {
    const bool is_float = op->value->type.dtype == DType::f32;
    Value* value = nullptr;
    if (const auto* f = op->value.as<ir::FloatImm>()) {
      value = b_.getInt64(std::bit_cast<int32_t>(static_cast<float>(f->value)));
    } else {
      value = scalar(op->value);  // an i64, or an f32 Var's slot (the float's bits)
      if (value->getType()->isIntegerTy(1)) value = b_.CreateZExt(value, i64);
    }
    auto fn = runtime_fn("pto_rt_setval", llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), i32, i64, i32}, false));
    b_.CreateCall(fn, {elem, b_.getInt32(static_cast<int32_t>(dt)), value, b_.getInt32(is_float ? 1 : 0)});
  } else {
    auto fn = runtime_fn("pto_rt_getval", llvm::FunctionType::get(i64, {b_.getPtrTy(), i32}, false));
    b_.CreateStore(b_.CreateCall(fn, {elem, b_.getInt32(static_cast<int32_t>(dt))}), var_slot_[op->var.as<ir::Var>()->id]);
  }
  if (op->tensor >= 0) {
    report(op, op->id, b_.getInt64(es), offset, b_.CreateAdd(offset, b_.getInt64(1)));
  } else {
    report(op, op->id, b_.getInt64(es));
  }
}

}  // namespace pto::backend::codegen
