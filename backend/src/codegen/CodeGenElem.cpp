#include <bit>

#include "CodeGen.hpp"

namespace pto::backend::codegen {

/// getval / setval: the element's address (insert_checks: the offset is inside), then
/// the runtime's getval / setval, the functions the interpreter calls too.
void CodeGen::elem_access(const ir::ElemAccess* op) {
  auto* i64 = b_.getInt64Ty();
  auto* i32 = b_.getInt32Ty();
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
    rt_call(offsetof(RuntimeFunctions, setval), b_.getVoidTy(), {b_.getPtrTy(), i32, i64, i32},
            {elem, b_.getInt32(static_cast<int32_t>(dt)), value, b_.getInt32(is_float ? 1 : 0)});
  } else {
    b_.CreateStore(rt_call(offsetof(RuntimeFunctions, getval), i64, {b_.getPtrTy(), i32}, {elem, b_.getInt32(static_cast<int32_t>(dt))}),
                   var_slot_[op->var.as<ir::Var>()->id]);
  }
  if (op->tensor >= 0) {
    report(op, op->id, b_.getInt64(es), offset, b_.CreateAdd(offset, b_.getInt64(1)));
  } else {
    report(op, op->id, b_.getInt64(es));
  }
}

}  // namespace pto::backend::codegen
