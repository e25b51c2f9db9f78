#include "CodeGen.hpp"

namespace pto::backend::codegen {

using ir::RoundMode;

/// Round to nearest even into `to`'s bits (i16 / i32) from the wide value `w`.
Value* CodeGen::rne_bits(Value* w, DType to) {
  switch (to) {
    case DType::f16: return b_.CreateBitCast(b_.CreateFPTrunc(w, b_.getHalfTy()), b_.getInt16Ty());
    case DType::bf16: return float_to_bf16_bits(w);
    default: return b_.CreateBitCast(b_.CreateFPTrunc(w, b_.getFloatTy()), b_.getInt32Ty());  // f32 from double
  }
}

/// `to`'s bits -> the wide type (float for f16 / bf16, double for f32), exactly.
Value* CodeGen::bits_to_wide(Value* bits, DType to) {
  switch (to) {
    case DType::f16: return b_.CreateFPExt(b_.CreateBitCast(bits, b_.getHalfTy()), b_.getFloatTy());
    case DType::bf16: return widen(bits, DType::bf16);
    default: return b_.CreateFPExt(b_.CreateBitCast(bits, b_.getFloatTy()), b_.getDoubleTy());
  }
}

/// rounding::narrow: nearest even, then one step in the last place where the mode asks.
Value* CodeGen::narrow_mode(Value* w, DType to, RoundMode mode) {
  Value* r = rne_bits(w, to);
  llvm::Type* bt = r->getType();
  const unsigned nbits = bt->getIntegerBitWidth();
  Value* sign_bit = llvm::ConstantInt::get(bt, llvm::APInt::getSignMask(nbits));
  Value* one = llvm::ConstantInt::get(bt, 1);
  Value* zero = llvm::ConstantInt::get(bt, 0);
  Value* back = bits_to_wide(r, to);
  Value* negative = b_.CreateICmpNE(b_.CreateAnd(r, sign_bit), zero);
  Value* mag_zero = b_.CreateICmpEQ(b_.CreateAnd(r, b_.CreateNot(sign_bit)), zero);
  Value* inc = b_.CreateAdd(r, one), *dec = b_.CreateSub(r, one);
  Value* up = b_.CreateSelect(negative, b_.CreateSelect(mag_zero, one, dec), inc);
  Value* down = b_.CreateSelect(negative, inc, b_.CreateSelect(mag_zero, b_.CreateOr(sign_bit, one), dec));
  Value* tz = b_.CreateSelect(mag_zero, r, dec);
  auto fabs = [&](Value* x) { return intrinsic(llvm::Intrinsic::fabs, x); };
  Value* adjusted = r;
  switch (mode) {
    case RoundMode::CAST_FLOOR: adjusted = b_.CreateSelect(b_.CreateFCmpOGT(back, w), down, r); break;
    case RoundMode::CAST_CEIL: adjusted = b_.CreateSelect(b_.CreateFCmpOLT(back, w), up, r); break;
    case RoundMode::CAST_TRUNC: adjusted = b_.CreateSelect(b_.CreateFCmpOGT(fabs(back), fabs(w)), tz, r); break;
    case RoundMode::CAST_ODD:
      adjusted = b_.CreateOr(b_.CreateSelect(b_.CreateFCmpOGT(fabs(back), fabs(w)), tz, r), one);
      break;
    case RoundMode::CAST_ROUND: {
      Value* other = b_.CreateSelect(b_.CreateFCmpOGT(back, w), down, up);
      Value* o = bits_to_wide(other, to);
      Value* tie = b_.CreateFCmpOEQ(b_.CreateFSub(w, back), b_.CreateFSub(o, w));
      Value* away = b_.CreateFCmpOGT(fabs(o), fabs(back));
      adjusted = b_.CreateSelect(b_.CreateAnd(tie, away), other, r);
      break;
    }
    default: break;
  }
  Value* keep = b_.CreateOr(b_.CreateFCmpUNO(w, w), b_.CreateFCmpOEQ(back, w));  // NaN, or exact
  return b_.CreateSelect(keep, r, adjusted);
}

Value* CodeGen::round_integral(Value* f, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_RINT: return intrinsic(llvm::Intrinsic::roundeven, f);
    case RoundMode::CAST_ROUND: return intrinsic(llvm::Intrinsic::round, f);
    case RoundMode::CAST_FLOOR: return intrinsic(llvm::Intrinsic::floor, f);
    case RoundMode::CAST_CEIL: return intrinsic(llvm::Intrinsic::ceil, f);
    default: return intrinsic(llvm::Intrinsic::trunc, f);
  }
}

/// interp::convert_mode, step for step.
Value* CodeGen::convert_mode(Value* v, DType from, DType to, RoundMode mode) {
  if (mode == RoundMode::Default || from == DType::boolean) return convert(v, from, to);
  const bool ffrom = is_floating(from), fto = is_floating(to);
  if (ffrom && fto) {
    if (from == to) return round_integral(v, mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_ODD ? RoundMode::CAST_RINT : mode);
    if (to == DType::f32) return v;
    const bool odd = mode == RoundMode::CAST_ODD && from == DType::f32 && to == DType::f16;
    const RoundMode m = mode == RoundMode::CAST_NONE || (mode == RoundMode::CAST_ODD && !odd) ? RoundMode::CAST_RINT : mode;
    return bits_to_wide(narrow_mode(v, to, m), to);
  }
  if (ffrom) return convert(round_integral(v, mode), DType::f32, to);
  if (fto) {
    const RoundMode m = mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_ODD ? RoundMode::CAST_RINT : mode;
    Value* w = b_.CreateSIToFP(v, b_.getDoubleTy());
    if (to == DType::f32) return b_.CreateBitCast(narrow_mode(w, DType::f32, m), b_.getFloatTy());
    const bool directed = m == RoundMode::CAST_FLOOR || m == RoundMode::CAST_CEIL || m == RoundMode::CAST_TRUNC;
    Value* f = b_.CreateBitCast(narrow_mode(w, DType::f32, directed ? m : RoundMode::CAST_ODD), b_.getFloatTy());
    return bits_to_wide(narrow_mode(f, to, m), to);
  }
  return convert(v, from, to);
}

}  // namespace pto::backend::codegen
