// Transcendental functions of tile expressions as inline LLVM IR: MathKernels (math/MathKernels.hpp)
// instantiated on IR values, so the loop vectoriser makes them SIMD code and the results are the
// interpreter's (pto::math, ScalarMath.cpp) bit for bit. Only basic operations without fast-math
// flags are emitted, and llvm.fma where the algorithm asks for a fused multiply-add: nothing else
// may be contracted into an FMA or reassociated.
#include "CodeGen.hpp"
#include "../math/MathKernels.hpp"

namespace pto::backend::codegen {
namespace {

struct IrOps {
  using F = Value*;
  using D = Value*;
  using I = Value*;
  using B = Value*;
  llvm::IRBuilder<>& b;

  F f(double v) { return llvm::ConstantFP::get(b.getFloatTy(), static_cast<float>(v)); }
  D d(double v) { return llvm::ConstantFP::get(b.getDoubleTy(), v); }
  I i(int32_t v) { return b.getInt32(static_cast<uint32_t>(v)); }
  Value* add(Value* x, Value* y) { return b.CreateFAdd(x, y); }
  Value* sub(Value* x, Value* y) { return b.CreateFSub(x, y); }
  Value* mul(Value* x, Value* y) { return b.CreateFMul(x, y); }
  Value* div(Value* x, Value* y) { return b.CreateFDiv(x, y); }
  /// x * y + z rounded once (llvm.fma: one instruction where the host has FMA, a correctly
  /// rounded libm call where it has not; never the unfused pair).
  Value* fma(Value* x, Value* y, Value* z) { return b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, z}); }
  F i2f(I v) { return b.CreateSIToFP(v, b.getFloatTy()); }
  I f2i(F v) { return b.CreateFPToSI(v, b.getInt32Ty()); }
  D f2d(F v) { return b.CreateFPExt(v, b.getDoubleTy()); }
  F d2f(D v) { return b.CreateFPTrunc(v, b.getFloatTy()); }
  I d2i(D v) { return b.CreateFPToSI(v, b.getInt32Ty()); }
  I bits(F v) { return b.CreateBitCast(v, b.getInt32Ty()); }
  F from_bits(I v) { return b.CreateBitCast(v, b.getFloatTy()); }
  I iadd(I x, I y) { return b.CreateAdd(x, y); }
  I isub(I x, I y) { return b.CreateSub(x, y); }
  I iand(I x, I y) { return b.CreateAnd(x, y); }
  I ior(I x, I y) { return b.CreateOr(x, y); }
  I shl(I x, int n) { return b.CreateShl(x, n); }
  I sra(I x, int n) { return b.CreateAShr(x, n); }
  B flt(Value* x, Value* y) { return b.CreateFCmpOLT(x, y); }
  B fle(Value* x, Value* y) { return b.CreateFCmpOLE(x, y); }
  B feq(Value* x, Value* y) { return b.CreateFCmpOEQ(x, y); }
  B ieq(I x, I y) { return b.CreateICmpEQ(x, y); }
  B isnan(F v) { return b.CreateFCmpUNO(v, v); }
  B band(B x, B y) { return b.CreateAnd(x, y); }
  B bor(B x, B y) { return b.CreateOr(x, y); }
  B bnot(B x) { return b.CreateNot(x); }
  Value* sel(B c, Value* x, Value* y) { return b.CreateSelect(c, x, y); }
};

}  // namespace

Value* CodeGen::math(ir::UnaryOp op, Value* a) {
  math_emitted_ = true;
  IrOps ops{b_};
  math::MathKernels<IrOps> k{ops};
  switch (op) {
    case ir::UnaryOp::Exp: return k.exp(a);
    case ir::UnaryOp::Log: return k.log(a);
    case ir::UnaryOp::Tanh: return k.tanh(a);
    case ir::UnaryOp::Sigmoid: return k.sigmoid(a);
    case ir::UnaryOp::Erf: return k.erf(a);
    case ir::UnaryOp::Sin: return k.sin(a);
    case ir::UnaryOp::Cos: return k.cos(a);
    default: break;
  }
  PTO_INTERNAL_CHECK(false) << "not a transcendental function: " << ir::unary_op_name(op);
  return nullptr;
}

Value* CodeGen::math_pow(Value* x, Value* y) {
  math_emitted_ = true;
  IrOps ops{b_};
  return math::MathKernels<IrOps>{ops}.pow(x, y);
}

}  // namespace pto::backend::codegen
