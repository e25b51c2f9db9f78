#include <algorithm>
#include <bit>
#include <optional>

#include "CodeGen.hpp"
#include "../StmtScan.hpp"

namespace pto::backend::codegen {

Value* CodeGen::scalar(const ir::Expr& e) {
  if (const auto* op = e.as<ir::FloatImm>()) {  // an f32 scalar: its bits in an i64, as a pl::Float's slot holds them
    return b_.getInt64(std::bit_cast<uint32_t>(static_cast<float>(op->value)));
  }
  if (const auto* op = e.as<ir::Binary>(); op && op->a->type.dtype == DType::f32) return float_scalar(op);
  if (const auto* op = e.as<ir::Cast>()) {  // i64 <-> f32 (FloatSemantics.hpp)
    Value* v = scalar(op->a);
    if (op->type.dtype == DType::f32) return b_.CreateZExt(b_.CreateBitCast(b_.CreateSIToFP(v, b_.getFloatTy()), b_.getInt32Ty()), b_.getInt64Ty());
    Value* f = b_.CreateBitCast(b_.CreateTrunc(v, b_.getInt32Ty()), b_.getFloatTy());
    return b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b_.getInt64Ty(), b_.getFloatTy()}, {f});
  }
  if (const auto* op = e.as<ir::IntImm>()) {
    return op->type.dtype == DType::boolean ? b_.getInt1(op->value != 0) : static_cast<Value*>(b_.getInt64(op->value));
  }
  if (const auto* op = e.as<ir::Var>()) {
    if (op->var_kind == ir::VarKind::BlockIdx) return block_idx_;
    if (op->var_kind == ir::VarKind::BlockNum) return block_num_;
    if (op->var_kind == ir::VarKind::SubblockIdx) return subblock_idx_;
    if (op->var_kind == ir::VarKind::SubblockNum) return subblock_num_;
    PTO_INTERNAL_CHECK(var_slot_[op->id]) << "variable " << op->name << " used before definition";
    return b_.CreateLoad(b_.getInt64Ty(), var_slot_[op->id], op->name);
  }
  if (const auto* op = e.as<ir::TileValid>()) {
    Value* v = valid(op->tile, op->axis);
    if (op->stored) return v;  // as stored: 0 x 0 for a slot never written
    const auto& g = group(op->tile);
    Value* other = valid(op->tile, 1 - op->axis);
    Value* unset = b_.CreateAnd(b_.CreateICmpEQ(v, b_.getInt64(0)), b_.CreateICmpEQ(other, b_.getInt64(0)));
    return b_.CreateSelect(unset, b_.getInt64(op->axis == 0 ? g.rows : g.cols), v);
  }
  if (const auto* op = e.as<ir::Binary>()) {
    Value* a = scalar(op->a);
    Value* c = scalar(op->b);
    switch (op->op) {
      case ir::BinaryOp::Add: return b_.CreateAdd(a, c);
      case ir::BinaryOp::Sub: return b_.CreateSub(a, c);
      case ir::BinaryOp::Mul: return b_.CreateMul(a, c);
      case ir::BinaryOp::Div: case ir::BinaryOp::Mod: {
        // x / 0 = 0, x % 0 = 0, INT64_MIN / -1 = INT64_MIN (wraps): defined results, never a trap.
        Value* zero = b_.CreateICmpEQ(c, b_.getInt64(0));
        Value* minus1 = b_.CreateICmpEQ(c, b_.getInt64(-1));
        Value* safe = b_.CreateSelect(b_.CreateOr(zero, minus1), b_.getInt64(1), c);
        Value* r = op->op == ir::BinaryOp::Div ? b_.CreateSDiv(a, safe) : b_.CreateSRem(a, safe);
        Value* by_minus1 = op->op == ir::BinaryOp::Div ? b_.CreateSub(b_.getInt64(0), a) : b_.getInt64(0);
        r = b_.CreateSelect(minus1, by_minus1, r);
        return b_.CreateSelect(zero, b_.getInt64(0), r);
      }
      case ir::BinaryOp::Min: case ir::BinaryOp::Max:
      case ir::BinaryOp::LT: case ir::BinaryOp::LE: case ir::BinaryOp::GT: case ir::BinaryOp::GE: case ir::BinaryOp::EQ:
      case ir::BinaryOp::NE:
        return int_order(op->op, a, c);
      case ir::BinaryOp::And: return b_.CreateAnd(a, c);
      case ir::BinaryOp::Or: return b_.CreateOr(a, c);
      case ir::BinaryOp::Xor: return b_.CreateXor(a, c);
      case ir::BinaryOp::Shl: case ir::BinaryOp::Shr: return int_shift(op->op, a, c);
      case ir::BinaryOp::Pow: break;  // tile expressions only
    }
  }
  PTO_INTERNAL_CHECK(false) << "unexpected scalar expression";
  return nullptr;
}

Value* CodeGen::widen(Value* v, DType t) {
  switch (t) {
    case DType::f16: return b_.CreateFPExt(v, b_.getFloatTy());
    case DType::bf16: return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
    case DType::i8: return b_.CreateSExt(v, b_.getInt32Ty());
    default: return v;
  }
}

Value* CodeGen::float_to_bf16_bits(Value* f) {
  Value* x = b_.CreateBitCast(f, b_.getInt32Ty());
  Value* lsb = b_.CreateAnd(b_.CreateLShr(x, 16), 1);
  Value* rounded = b_.CreateLShr(b_.CreateAdd(x, b_.CreateAdd(lsb, b_.getInt32(0x7fff))), 16);
  Value* nan = b_.CreateOr(b_.CreateLShr(x, 16), b_.getInt32(0x40));
  Value* is_nan = b_.CreateFCmpUNO(f, f);
  return b_.CreateTrunc(b_.CreateSelect(is_nan, nan, rounded), b_.getInt16Ty());
}

Value* CodeGen::narrow(Value* v, DType t) {
  switch (t) {
    case DType::f16: return b_.CreateFPTrunc(v, b_.getHalfTy());
    case DType::bf16: return float_to_bf16_bits(v);
    case DType::i8: return b_.CreateTrunc(v, b_.getInt8Ty());
    default: return v;
  }
}

Value* CodeGen::broadcast_scalar(const ir::Expr& e, llvm::Type* to) {
  if (const auto* f = e.as<ir::FloatImm>()) {
    return to->isFloatTy() ? static_cast<Value*>(llvm::ConstantFP::get(to, f->value))
                           : b_.getInt32(static_cast<int32_t>(f->value));
  }
  if (const auto* i = e.as<ir::IntImm>(); i && i->type.dtype == DType::i32) {
    return to->isFloatTy() ? static_cast<Value*>(llvm::ConstantFP::get(to, static_cast<double>(i->value))) : b_.getInt32(static_cast<int32_t>(i->value));
  }
  if (e->type.dtype == DType::f32) {  // a runtime float parameter (pl::Float): its slot holds the float's bits
    PTO_INTERNAL_CHECK(to->isFloatTy()) << "a runtime float scalar in an integer tile expression";
    return b_.CreateBitCast(b_.CreateTrunc(scalar(e), b_.getInt32Ty()), b_.getFloatTy());
  }
  Value* v = scalar(e);  // i64, or i1 for a boolean (0 or 1)
  if (v->getType()->isIntegerTy(1)) return to->isFloatTy() ? b_.CreateUIToFP(v, to) : b_.CreateZExt(v, to);
  return to->isFloatTy() ? b_.CreateSIToFP(v, to) : b_.CreateTrunc(v, to);
}

Value* CodeGen::element(const ir::Expr& e, Value* col, const LeafRows& rows, llvm::Type* ctx_type) {
  if (!e->type.tile) return broadcast_scalar(e, ctx_type);
  if (const auto* op = e.as<ir::TileRead>()) {
    llvm::Type* st = storage_type(op->type.dtype);
    if (op->row_broadcast) return rows.at(op);  // loaded once per row (leaf_rows)
    return widen(b_.CreateLoad(st, b_.CreateInBoundsGEP(st, rows.at(op), col)), op->type.dtype);
  }
  if (const auto* op = e.as<ir::Binary>()) {
    const ir::Expr& tile_side = op->a->type.tile ? op->a : op->b;
    llvm::Type* ct = compute_type(tile_side->type.dtype);
    Value* a = element(op->a, col, rows, ct);
    Value* c = element(op->b, col, rows, ct);
    return binary(op->op, a, c, ct->isFloatTy());
  }
  if (const auto* op = e.as<ir::Unary>()) {
    llvm::Type* ct = compute_type(op->type.dtype);
    return unary(op->op, element(op->a, col, rows, ct), ct->isFloatTy());
  }
  if (const auto* op = e.as<ir::Cast>()) {
    llvm::Type* from_t = compute_type(op->a->type.dtype);
    return convert_mode(element(op->a, col, rows, from_t), op->a->type.dtype, op->type.dtype, op->mode);
  }
  if (const auto* op = e.as<ir::Select>()) {
    llvm::Type* ct = compute_type(op->type.dtype);
    Value* cond = element(op->cond, col, rows, b_.getInt1Ty());
    return b_.CreateSelect(cond, element(op->a, col, rows, ct), element(op->b, col, rows, ct));
  }
  PTO_INTERNAL_CHECK(false) << "unexpected tile expression";
  return nullptr;
}

Value* CodeGen::intrinsic(llvm::Intrinsic::ID id, Value* a, Value* c) {
  if (c) return b_.CreateBinaryIntrinsic(id, a, c);
  return b_.CreateUnaryIntrinsic(id, a);
}

Value* CodeGen::float_scalar(const ir::Binary* op) {
  auto as_float = [&](const ir::Expr& x) { return b_.CreateBitCast(b_.CreateTrunc(scalar(x), b_.getInt32Ty()), b_.getFloatTy()); };
  Value* r = binary(op->op, as_float(op->a), as_float(op->b), /*fp=*/true);  // FloatSemantics.hpp: the same operations
  if (ir::is_comparison(op->op)) return r;
  return b_.CreateZExt(b_.CreateBitCast(r, b_.getInt32Ty()), b_.getInt64Ty());
}

Value* CodeGen::float_max_min(Value* a, Value* c, bool max) {
  llvm::Type* bits = b_.getIntNTy(a->getType()->getScalarSizeInBits());
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(a->getType())) bits = llvm::VectorType::get(bits, vt->getElementCount());
  Value* tie = max ? b_.CreateAnd(b_.CreateBitCast(a, bits), b_.CreateBitCast(c, bits))
                   : b_.CreateOr(b_.CreateBitCast(a, bits), b_.CreateBitCast(c, bits));
  Value* r = b_.CreateSelect(max ? b_.CreateFCmpOGT(a, c) : b_.CreateFCmpOLT(a, c), a, c);
  r = b_.CreateSelect(b_.CreateFCmpOEQ(a, c), b_.CreateBitCast(tie, a->getType()), r);
  return b_.CreateSelect(b_.CreateFCmpUNO(c, c), a, r);
}

Value* CodeGen::int_shift(ir::BinaryOp op, Value* a, Value* c) {
  Value* width = llvm::ConstantInt::get(c->getType(), c->getType()->getScalarSizeInBits());
  Value* in_range = b_.CreateICmpULT(c, width);
  if (op == ir::BinaryOp::Shl) return b_.CreateSelect(in_range, b_.CreateShl(a, c), llvm::ConstantInt::get(a->getType(), 0));
  Value* last = b_.CreateSub(width, llvm::ConstantInt::get(c->getType(), 1));
  return b_.CreateAShr(a, b_.CreateSelect(in_range, c, last));
}

Value* CodeGen::int_order(ir::BinaryOp op, Value* a, Value* c) {
  const bool u = a->getType()->isIntegerTy(1);
  using P = llvm::CmpInst::Predicate;
  switch (op) {
    case ir::BinaryOp::Max: return b_.CreateSelect(b_.CreateICmp(u ? P::ICMP_UGT : P::ICMP_SGT, a, c), a, c);
    case ir::BinaryOp::Min: return b_.CreateSelect(b_.CreateICmp(u ? P::ICMP_ULT : P::ICMP_SLT, a, c), a, c);
    case ir::BinaryOp::LT: return b_.CreateICmp(u ? P::ICMP_ULT : P::ICMP_SLT, a, c);
    case ir::BinaryOp::LE: return b_.CreateICmp(u ? P::ICMP_ULE : P::ICMP_SLE, a, c);
    case ir::BinaryOp::GT: return b_.CreateICmp(u ? P::ICMP_UGT : P::ICMP_SGT, a, c);
    case ir::BinaryOp::GE: return b_.CreateICmp(u ? P::ICMP_UGE : P::ICMP_SGE, a, c);
    case ir::BinaryOp::EQ: return b_.CreateICmpEQ(a, c);
    case ir::BinaryOp::NE: return b_.CreateICmpNE(a, c);
    default: break;
  }
  PTO_INTERNAL_CHECK(false) << "not an ordering operator: " << ir::binary_op_name(op);
  return nullptr;
}

Value* CodeGen::binary(ir::BinaryOp op, Value* a, Value* c, bool fp) {
  using ir::BinaryOp;
  if (fp) {
    switch (op) {
      case BinaryOp::Add: return b_.CreateFAdd(a, c);
      case BinaryOp::Sub: return b_.CreateFSub(a, c);
      case BinaryOp::Mul: return b_.CreateFMul(a, c);
      case BinaryOp::Div: return b_.CreateFDiv(a, c);
      case BinaryOp::Pow: return math_pow(a, c);
      case BinaryOp::Max: return float_max_min(a, c, true);
      case BinaryOp::Min: return float_max_min(a, c, false);
      case BinaryOp::LT: return b_.CreateFCmpOLT(a, c);
      case BinaryOp::LE: return b_.CreateFCmpOLE(a, c);
      case BinaryOp::GT: return b_.CreateFCmpOGT(a, c);
      case BinaryOp::GE: return b_.CreateFCmpOGE(a, c);
      case BinaryOp::EQ: return b_.CreateFCmpOEQ(a, c);
      case BinaryOp::NE: return b_.CreateFCmpUNE(a, c);
      default: break;
    }
  } else {
    switch (op) {
      case BinaryOp::Add: return b_.CreateAdd(a, c);
      case BinaryOp::Sub: return b_.CreateSub(a, c);
      case BinaryOp::Mul: return b_.CreateMul(a, c);
      case BinaryOp::Div: {
        // x / 0 = 0 and INT_MIN / -1 = INT_MIN: defined results instead of a trap.
        Value* zero = b_.CreateICmpEQ(c, llvm::ConstantInt::get(c->getType(), 0));
        Value* minus1 = b_.CreateICmpEQ(c, llvm::ConstantInt::get(c->getType(), -1, true));
        Value* safe = b_.CreateSelect(b_.CreateOr(zero, minus1), llvm::ConstantInt::get(c->getType(), 1), c);
        Value* q = b_.CreateSDiv(a, safe);
        q = b_.CreateSelect(minus1, b_.CreateSub(llvm::ConstantInt::get(a->getType(), 0), a), q);
        return b_.CreateSelect(zero, llvm::ConstantInt::get(a->getType(), 0), q);
      }
      case BinaryOp::Max: case BinaryOp::Min:
      case BinaryOp::LT: case BinaryOp::LE: case BinaryOp::GT: case BinaryOp::GE: case BinaryOp::EQ: case BinaryOp::NE:
        return int_order(op, a, c);
      case BinaryOp::And: return b_.CreateAnd(a, c);
      case BinaryOp::Or: return b_.CreateOr(a, c);
      case BinaryOp::Xor: return b_.CreateXor(a, c);
      case BinaryOp::Shl: case BinaryOp::Shr: return int_shift(op, a, c);
      default: break;
    }
  }
  PTO_INTERNAL_CHECK(false) << "unsupported tile operator " << ir::binary_op_name(op);
  return nullptr;
}

Value* CodeGen::unary(ir::UnaryOp op, Value* a, bool fp) {
  using ir::UnaryOp;
  switch (op) {
    case UnaryOp::Neg: return fp ? b_.CreateFNeg(a) : b_.CreateSub(b_.getInt32(0), a);
    case UnaryOp::Not: return b_.CreateNot(a);
    case UnaryOp::Abs: return fp ? intrinsic(llvm::Intrinsic::fabs, a) : b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, b_.getFalse());
    case UnaryOp::Relu: {  // x > 0 ? x : +0 (NaN and -0 give +0)
      Value* zero = fp ? llvm::ConstantFP::get(a->getType(), 0.0) : static_cast<Value*>(b_.getInt32(0));
      return b_.CreateSelect(fp ? b_.CreateFCmpOGT(a, zero) : b_.CreateICmpSGT(a, zero), a, zero);
    }
    case UnaryOp::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, a);
    case UnaryOp::Rsqrt: return b_.CreateFDiv(llvm::ConstantFP::get(a->getType(), 1.0), intrinsic(llvm::Intrinsic::sqrt, a));
    case UnaryOp::Exp: case UnaryOp::Log: case UnaryOp::Tanh: case UnaryOp::Sigmoid: case UnaryOp::Erf:
    case UnaryOp::Sin: case UnaryOp::Cos:
      return math(op, a);
  }
  return nullptr;
}

Value* CodeGen::convert(Value* v, DType from, DType to) {
  if (from == to) return v;
  const bool ffrom = is_floating(from), fto = is_floating(to);
  if (ffrom && fto) {
    if (to == DType::f16) return b_.CreateFPExt(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getFloatTy());
    if (to == DType::bf16) return widen(float_to_bf16_bits(v), DType::bf16);
    return v;
  }
  if (ffrom && !fto) {
    llvm::Type* it = to == DType::i8 ? b_.getInt8Ty() : b_.getInt32Ty();
    Value* r = b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {it, b_.getFloatTy()}, {v});
    return to == DType::i8 ? b_.CreateSExt(r, b_.getInt32Ty()) : r;
  }
  if (!ffrom && fto) {  // a boolean is 0 or 1
    return convert(from == DType::boolean ? b_.CreateUIToFP(v, b_.getFloatTy()) : b_.CreateSIToFP(v, b_.getFloatTy()), DType::f32, to);
  }
  if (from == DType::boolean) return b_.CreateZExt(v, b_.getInt32Ty());
  if (to == DType::i8) return intrinsic(llvm::Intrinsic::smax, intrinsic(llvm::Intrinsic::smin, v, b_.getInt32(127)), b_.getInt32(-128));
  return v;
}

CodeGen::LeafRows CodeGen::leaf_bases(const std::vector<const ir::TileRead*>& leaves) {
  LeafRows bases;
  for (auto* l : leaves) {
    const GMRows* gm = elided_read(l);
    bases[l] = gm ? gm->base : tile_base(l->tile);
  }
  return bases;
}

CodeGen::LeafRows CodeGen::leaf_rows(const LeafRows& bases, Value* r) {
  LeafRows rows;
  for (auto& [l, base] : bases) {
    const auto& g = group(l->tile);
    llvm::Type* st = storage_type(l->type.dtype);
    // A {1, cols} operand: the same row for every row.
    const GMRows* gm = elided_read(l);
    Value* pitch = gm ? gm->pitch : b_.getInt64(g.cols);
    Value* row = l->col_broadcast ? base : b_.CreateInBoundsGEP(st, base, b_.CreateMul(r, pitch));
    // A {rows, 1} operand: one value per row, read before the row is computed — as the
    // interpreter does, and so the column loop has no load the vectoriser must prove unaliased.
    rows[l] = l->row_broadcast ? widen(b_.CreateLoad(st, row), l->type.dtype) : row;
  }
  return rows;
}

const CodeGen::GMRows* CodeGen::elided_read(const ir::TileRead* l) const {
  const auto owner = inlining_.owner.find(l);  // an inlined expression's read is its instruction's (TileInlining.hpp)
  const auto gm = elision_.reads.find({owner != inlining_.owner.end() ? owner->second : expr_stmt_, l});
  return gm == elision_.reads.end() ? nullptr : &elided_.at(gm->second);
}

CodeGen::TileExprLoop CodeGen::tile_expr_loop(const ir::StmtNode* s, const ir::Expr& value, const ir::TileRef& dst,
                                              const std::array<ir::Expr, 2>& ext) {
  expr_stmt_ = s;
  return {extent(ext), leaf_bases(ir::tile_reads(value)), tile_base(dst), storage_type(group(dst).dtype), compute_type(value->type.dtype)};
}

int CodeGen::math_interleave(int64_t cols) {
  // A transcendental's polynomial is one long chain of dependent operations per vector: a loop of
  // them is bound by latency, not by the vector units, unless several vectors are in flight. Up to
  // 8 side by side, and at least two whole interleaved iterations in a row of `cols` at 16 lanes
  // (measured on softmax 4096x1024 f32, 2 host threads: 1.66-1.68 ms at 1, 1.44-1.50 at 8; flash
  // attention's 128-column tiles: no change at 4, a few percent slower at 8).
  int n = 1;
  while (n < 8 && 2 * 16 * (2 * n) <= cols) n *= 2;
  return n;
}

void CodeGen::vec_compute(const ir::VecCompute* op) {
  if (forwarding_.computes.count(op)) return expr_done(op, extent(op->extent));  // its store computes it, into GM (StoreForwarding.hpp)
  const auto loop = tile_expr_loop(op, value_of(op), op->dst, op->extent);
  expr_rows(op, loop, b_.getInt64(0), loop.ext.rows);
  expr_done(op, loop.ext);
}

void CodeGen::compute_rows(const ir::VecCompute* op, const TileExprLoop& loop, Value* dst, Value* pitch, Value* first, Value* count,
                           Value* streamed) {
  const auto& dg = group(op->dst);
  const int64_t es = static_cast<int64_t>(dtype_size(dg.dtype));
  if (64 % es != 0 || static_cast<int64_t>(loop.dst_type->getPrimitiveSizeInBits()) != 8 * es) streamed = nullptr;  // no whole lines
  counted_loop(count, [&](Value* i) {
    Value* r = b_.CreateAdd(first, i);
    auto rows = leaf_rows(loop.bases, r);
    Value* drow = b_.CreateInBoundsGEP(loop.dst_type, dst, b_.CreateMul(r, pitch));
    auto element_at = [&](Value* col) { return narrow(element(value_of(op), col, rows, loop.compute), dg.dtype); };
    // Columns [from, from + n) stored one element at a time (the loop vectoriser widens them).
    auto plain_columns = [&](Value* from, Value* n) {
      math_emitted_ = false;
      llvm::BranchInst* latch = counted_loop(n, [&](Value* j) {
        Value* col = b_.CreateAdd(from, j);
        b_.CreateStore(element_at(col), b_.CreateInBoundsGEP(loop.dst_type, drow, col));
      }, "c");
      if (math_emitted_) set_interleave(latch, math_interleave(dg.cols));
    };
    if (!streamed) return plain_columns(b_.getInt64(0), loop.ext.cols);
    // A streamed row: the columns up to its first 64-byte boundary, whole lines of kLine elements
    // each computed into a line buffer and stored from the registers with one non-temporal store
    // (the buffer is promoted away), then the rest; an unstreamed row is all "head".
    const int64_t kLine = 64 / es;
    Value* addr = b_.CreatePtrToInt(drow, b_.getInt64Ty());
    Value* on = b_.CreateAnd(streamed, b_.CreateICmpEQ(b_.CreateURem(addr, b_.getInt64(es)), b_.getInt64(0)));
    Value* to_line = b_.CreateUDiv(b_.CreateAnd(b_.CreateSub(b_.getInt64(64), b_.CreateAnd(addr, b_.getInt64(63))), b_.getInt64(63)),
                                   b_.getInt64(es));
    Value* head = b_.CreateSelect(on, b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, to_line, loop.ext.cols), loop.ext.cols);
    Value* lines = b_.CreateSDiv(b_.CreateSub(loop.ext.cols, head), b_.getInt64(kLine));
    Value* tail = b_.CreateAdd(head, b_.CreateMul(lines, b_.getInt64(kLine)));
    // The head and the tail: one plain loop over two pieces (the expression is emitted once for both).
    counted_loop(b_.CreateSelect(on, b_.getInt64(2), b_.getInt64(1)), [&](Value* piece) {
      Value* second = b_.CreateICmpEQ(piece, b_.getInt64(1));
      plain_columns(b_.CreateSelect(second, tail, b_.getInt64(0)), b_.CreateSelect(second, b_.CreateSub(loop.ext.cols, tail), head));
    }, "piece");
    auto* line_type = llvm::FixedVectorType::get(loop.dst_type, static_cast<unsigned>(kLine));
    llvm::AllocaInst* line = entry_alloca(line_type, "line");
    line->setAlignment(llvm::Align(64));
    counted_loop(lines, [&](Value* k) {
      Value* from = b_.CreateAdd(head, b_.CreateMul(k, b_.getInt64(kLine)));
      llvm::BranchInst* latch = counted_loop(b_.getInt64(kLine), [&](Value* j) {
        b_.CreateStore(element_at(b_.CreateAdd(from, j)), b_.CreateInBoundsGEP(loop.dst_type, line, j));
      }, "lc");
      set_vectorize_width(latch, static_cast<int>(kLine));
      auto* nt = b_.CreateAlignedStore(b_.CreateAlignedLoad(line_type, line, llvm::Align(64)),
                                       b_.CreateInBoundsGEP(loop.dst_type, drow, from), llvm::Align(64));
      nt->setMetadata(llvm::LLVMContext::MD_nontemporal, llvm::MDNode::get(c_, {llvm::ConstantAsMetadata::get(b_.getInt32(1))}));
    }, "line");
  }, "r");
}

void CodeGen::expr_rows(const ir::StmtNode* s, const TileExprLoop& loop, Value* first, Value* count) {
  expr_stmt_ = s;  // its elided reads (elided_read)
  if (s->kind == ir::NodeKind::VecCompute) {
    const auto* v = static_cast<const ir::VecCompute*>(s);
    return compute_rows(v, loop, loop.dst, b_.getInt64(group(v->dst).cols), first, count);
  }
  reduce_rows(static_cast<const ir::RowReduce*>(s), loop, first, count);
}

void CodeGen::expr_done(const ir::StmtNode* s, const Extent& ext) {
  if (s->kind == ir::NodeKind::VecCompute) {
    const auto* v = static_cast<const ir::VecCompute*>(s);
    if (!v->dst.window) set_valid(v->dst, ext.rows, ext.cols);  // writing a view leaves the tile's valid extent
    return report(v, v->id, b_.CreateMul(ext.rows, ext.cols));
  }
  const auto* r = static_cast<const ir::RowReduce*>(s);  // along rows: one value a row
  set_valid(r->dst, ext.rows, b_.getInt64(1));
  report(r, r->id, b_.CreateMul(ext.rows, ext.cols));
}

void CodeGen::fused_run(const std::vector<ir::Stmt>& flat, size_t first, const RowFusion::Run& run) {
  // Program order first: checks, syncs, valid extents and model reports (RowFusion.hpp).
  std::vector<TileExprLoop> loops;
  std::optional<ForwardedStore> store;  // the run's forwarded store, if it ends with one
  for (size_t i = first; i < first + run.length; ++i) {
    const ir::StmtNode* s = flat[i].get();
    if (s == run.store) {
      std::vector<GMRead> reads;  // what the run reads in place, which the store must not write before the run is done
      for (size_t j = 0; j < loops.size(); ++j) {
        expr_stmt_ = run.fused[j];
        for (const auto& [leaf, base] : loops[j].bases) {
          if (const GMRows* gm = elided_read(leaf)) {
            reads.push_back({base, gm->pitch, loops[j].ext.rows, loops[j].ext.cols, static_cast<int64_t>(dtype_size(leaf->type.dtype))});
          }
        }
      }
      const Region reg = region(run.store->dst);
      store.emplace(forwarded_store_begin(run.store, forwarding_.stores.at(run.store), reg,
                                          static_cast<int64_t>(dtype_size(group(run.store->src).dtype)), reads));
      store_report(run.store, reg);
    } else if (std::find(run.fused.begin(), run.fused.end(), s) == run.fused.end()) {
      stmt(flat[i]);  // a check, a sync, or the store's expression (its valid extent and report)
    } else {
      loops.push_back(tile_expr_loop(s, value_of(s), stmt_scan::expr_dst(s), stmt_scan::expr_extent(s)));
      expr_done(s, loops.back().ext);
    }
  }
  // Then the rows, a block of them through every instruction in turn, each instruction taking
  // the rows of the block that lie in its own extent: row r of each depends only on row r of what
  // the others write (RowFusion.hpp), whatever their row counts.
  std::vector<Value*> counts;  // per instruction (the store last), its rows
  for (const auto& loop : loops) counts.push_back(loop.ext.rows);
  if (store) counts.push_back(store->loop.ext.rows);
  Value* rows = counts[0];
  for (Value* n : counts) rows = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, rows, n);
  constexpr int64_t kBlock = 4;  // rows a block: a float sum advances four rows side by side (reduce_rows)
  Value* blocks = b_.CreateUDiv(b_.CreateAdd(rows, b_.getInt64(kBlock - 1)), b_.getInt64(kBlock));
  counted_loop(blocks, [&](Value* q) {
    Value* from = b_.CreateMul(q, b_.getInt64(kBlock));
    auto in_block = [&](Value* n) {  // rows [from, from + kBlock) of [0, n)
      Value* left = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b_.CreateSub(n, from), b_.getInt64(0));
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, left, b_.getInt64(kBlock));
    };
    for (size_t j = 0; j < loops.size(); ++j) {
      if (!inlining_.inlined.count(run.fused[j])) expr_rows(run.fused[j], loops[j], from, in_block(counts[j]));  // else computed where read
    }
    if (store) forwarded_store_rows(*store, from, in_block(counts.back()));
  }, "fb");
  if (store) forwarded_store_end(*store);
}

std::vector<Value*> CodeGen::float_row_lanes(const ir::Expr& value, Value* cols, std::span<const LeafRows> rows,
                                             llvm::Type* ct, Value* init,
                                             const std::function<Value*(Value*, Value*)>& combine, bool order_free) {
  constexpr unsigned kLanes = 8;
  // The lanes are one vector per row. The columns of full lane groups are computed a chunk at a
  // time into a small row buffer (an element-wise loop the loop vectoriser handles like any tile
  // expression), then combined into the lanes one vector load at a time. An order-free combine
  // (max, min) runs 64 lanes (four independent chains of AVX-512 vectors, eight of AVX2; 32 lanes
  // made row_max a fifth of softmax's element time), folded into 8 at the end. A sum's 8 lanes are
  // one chain of dependent additions per row; the rows given together (up to 4) advance side by
  // side, so their chains overlap.
  const unsigned width = order_free ? 8 * kLanes : kLanes;
  constexpr int64_t kChunk = 256;  // columns per chunk: a multiple of every width
  const size_t n_rows = rows.size();
  // A plain read of a tile (or GM row) stored as `ct` is combined from the row itself: no copy.
  const auto* in_place = value.as<ir::TileRead>();
  if (in_place && (in_place->row_broadcast || storage_type(in_place->type.dtype) != ct)) in_place = nullptr;
  auto* vt = llvm::FixedVectorType::get(ct, width);
  std::vector<llvm::AllocaInst*> lanes(n_rows), chunk(n_rows);
  for (size_t j = 0; j < n_rows; ++j) {
    lanes[j] = entry_alloca(vt);  // promoted to a register by mem2reg
    if (!in_place) {
      chunk[j] = entry_alloca(llvm::ArrayType::get(ct, kChunk), "row.chunk");
      chunk[j]->setAlignment(llvm::Align(64));
    }
    b_.CreateStore(b_.CreateVectorSplat(width, init), lanes[j]);
  }
  Value* full = b_.CreateMul(b_.CreateUDiv(cols, b_.getInt64(width)), b_.getInt64(width));
  Value* chunks = b_.CreateUDiv(b_.CreateAdd(full, b_.getInt64(kChunk - 1)), b_.getInt64(kChunk));
  counted_loop(chunks, [&](Value* k) {
    Value* first = b_.CreateMul(k, b_.getInt64(kChunk));
    Value* n = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b_.CreateSub(full, first), b_.getInt64(kChunk));
    std::vector<Value*> from(n_rows);  // each row's chunk: its tile row in place, or computed
    for (size_t j = 0; j < n_rows; ++j) {
      if (in_place) {
        from[j] = b_.CreateInBoundsGEP(ct, rows[j].at(in_place), first);
        continue;
      }
      from[j] = chunk[j];
      counted_loop(n, [&](Value* i) {
        b_.CreateStore(element(value, b_.CreateAdd(first, i), rows[j], ct), b_.CreateInBoundsGEP(ct, chunk[j], i));
      }, "chunk.fill");
    }
    counted_loop(b_.CreateUDiv(n, b_.getInt64(width)), [&](Value* g) {
      for (size_t j = 0; j < n_rows; ++j) {
        Value* at = b_.CreateInBoundsGEP(ct, from[j], b_.CreateMul(g, b_.getInt64(width)));
        Value* group = b_.CreateAlignedLoad(vt, at, in_place ? llvm::Align(ct->getScalarSizeInBits() / 8) : llvm::Align(32));
        b_.CreateStore(combine(b_.CreateLoad(vt, lanes[j]), group), lanes[j]);
      }
    }, "lanes");
  }, "chunks");
  std::vector<Value*> results(n_rows);
  for (size_t j = 0; j < n_rows; ++j) {
    counted_loop(b_.CreateSub(cols, full), [&](Value* t) {  // the last columns: column full + t to lane t
      Value* v = element(value, b_.CreateAdd(full, t), rows[j], ct);
      Value* cur = b_.CreateLoad(vt, lanes[j]);
      b_.CreateStore(b_.CreateInsertElement(cur, combine(b_.CreateExtractElement(cur, t), v), t), lanes[j]);
    }, "lanestail");
    Value* all = b_.CreateLoad(vt, lanes[j]);
    for (unsigned w = width; w > kLanes; w /= 2) {  // order-free: fold the upper half onto the lower
      llvm::SmallVector<int, 32> lo, hi;
      for (unsigned l = 0; l < w / 2; ++l) lo.push_back(static_cast<int>(l)), hi.push_back(static_cast<int>(l + w / 2));
      all = combine(b_.CreateShuffleVector(all, lo), b_.CreateShuffleVector(all, hi));
    }
    std::array<Value*, kLanes> v{};
    for (unsigned l = 0; l < kLanes; ++l) v[l] = b_.CreateExtractElement(all, b_.getInt64(l));
    results[j] = combine(combine(combine(v[0], v[1]), combine(v[2], v[3])), combine(combine(v[4], v[5]), combine(v[6], v[7])));
  }
  return results;
}

/// argmax / argmin: along each row (axis 0) or column (axis 1), the index of the first element
/// greater (less) than every earlier one; NaNs never are (a NaN best so far is replaced by the
/// first number), so an all-NaN or empty run gives 0.
void CodeGen::arg_reduce(const ir::RowReduce* op) {
  const auto& dg = group(op->dst);
  const auto [ext, bases, dst, dt, ct] = tile_expr_loop(op, value_of(op), op->dst, op->extent);
  const bool fp = ct->isFloatTy(), want_max = op->op == ir::ReduceOp::ArgMax, per_col = op->axis == 1;
  counted_loop(per_col ? ext.cols : ext.rows, [&](Value* o) {
    auto* best = entry_alloca(ct);
    auto* index = entry_alloca(b_.getInt64Ty());
    b_.CreateStore(fp ? llvm::ConstantFP::getNaN(ct) : static_cast<Value*>(b_.getInt32(0)), best);
    b_.CreateStore(b_.getInt64(0), index);
    counted_loop(per_col ? ext.rows : ext.cols, [&](Value* i) {
      Value* v = per_col ? element(value_of(op), o, leaf_rows(bases, i), ct) : element(value_of(op), i, leaf_rows(bases, o), ct);
      Value* cur = b_.CreateLoad(ct, best);
      Value* take = nullptr;
      if (fp) {
        Value* beats = want_max ? b_.CreateFCmpOGT(v, cur) : b_.CreateFCmpOLT(v, cur);
        take = b_.CreateSelect(b_.CreateFCmpUNO(cur, cur), b_.CreateFCmpORD(v, v), beats);
      } else {
        Value* beats = want_max ? b_.CreateICmpSGT(v, cur) : b_.CreateICmpSLT(v, cur);
        take = b_.CreateOr(b_.CreateICmpEQ(i, b_.getInt64(0)), beats);
      }
      b_.CreateStore(b_.CreateSelect(take, v, cur), best);
      b_.CreateStore(b_.CreateSelect(take, i, b_.CreateLoad(b_.getInt64Ty(), index)), index);
    }, "i");
    Value* at = per_col ? o : b_.CreateMul(o, b_.getInt64(dg.cols));
    b_.CreateStore(b_.CreateTrunc(b_.CreateLoad(b_.getInt64Ty(), index), b_.getInt32Ty()), b_.CreateInBoundsGEP(dt, dst, at));
  }, "o");
  if (per_col) {
    set_valid(op->dst, b_.getInt64(1), ext.cols);
  } else {
    set_valid(op->dst, ext.rows, b_.getInt64(1));
  }
  report(op, op->id, b_.CreateMul(ext.rows, ext.cols));
}

Value* CodeGen::reduce_init(ir::ReduceOp op, llvm::Type* ct) {
  const bool fp = ct->isFloatTy();
  switch (op) {
    case ir::ReduceOp::Sum: return fp ? llvm::ConstantFP::get(ct, 0.0) : static_cast<Value*>(b_.getInt32(0));
    case ir::ReduceOp::Max: return fp ? llvm::ConstantFP::getInfinity(ct, true) : static_cast<Value*>(b_.getInt32(INT32_MIN));
    case ir::ReduceOp::Min: return fp ? llvm::ConstantFP::getInfinity(ct, false) : static_cast<Value*>(b_.getInt32(INT32_MAX));
    case ir::ReduceOp::ArgMax:
    case ir::ReduceOp::ArgMin: break;  // arg_reduce
  }
  return nullptr;
}

Value* CodeGen::reduce_step(ir::ReduceOp op, Value* cur, Value* v, bool fp) {
  if (fp) return op == ir::ReduceOp::Sum ? b_.CreateFAdd(cur, v) : float_max_min(cur, v, op == ir::ReduceOp::Max);
  return op == ir::ReduceOp::Sum ? b_.CreateAdd(cur, v) : binary(op == ir::ReduceOp::Max ? ir::BinaryOp::Max : ir::BinaryOp::Min, cur, v, false);
}

void CodeGen::row_reduce(const ir::RowReduce* op) {
  if (ir::is_arg_reduce(op->op)) return arg_reduce(op);
  const auto loop = tile_expr_loop(op, value_of(op), op->dst, op->extent);
  if (op->axis == 0) {
    reduce_rows(op, loop, b_.getInt64(0), loop.ext.rows);
    return expr_done(op, loop.ext);
  }
  // Each column, the rows in order from the first.
  const auto& dg = group(op->dst);
  const auto& [ext, bases, dst, dt, ct] = loop;
  const bool fp = ct->isFloatTy();
  counted_loop(ext.cols, [&](Value* col) {
    auto* acc = entry_alloca(ct);
    b_.CreateStore(reduce_init(op->op, ct), acc);
    counted_loop(ext.rows, [&](Value* r) {
      auto rows = leaf_rows(bases, r);
      b_.CreateStore(reduce_step(op->op, b_.CreateLoad(ct, acc), element(value_of(op), col, rows, ct), fp), acc);
    }, "r");
    Value* result = convert(b_.CreateLoad(ct, acc), op->value->type.dtype, dg.dtype);
    b_.CreateStore(narrow(result, dg.dtype), b_.CreateInBoundsGEP(dt, dst, col));
  }, "c");
  set_valid(op->dst, b_.getInt64(1), ext.cols);
  report(op, op->id, b_.CreateMul(ext.rows, ext.cols));
}

void CodeGen::reduce_rows(const ir::RowReduce* op, const TileExprLoop& loop, Value* first, Value* count) {
  const auto& dg = group(op->dst);
  const auto& [ext, bases, dst, dt, ct] = loop;
  const DType vdt = op->value->type.dtype;
  const bool fp = ct->isFloatTy();
  auto step = [&](Value* cur, Value* v) { return reduce_step(op->op, cur, v, fp); };
  auto store_row = [&](Value* r, Value* result) {  // the destination is the source's dtype or float (a wider accumulator)
    result = convert(result, vdt, dg.dtype);
    b_.CreateStore(narrow(result, dg.dtype), b_.CreateInBoundsGEP(dt, dst, b_.CreateMul(r, b_.getInt64(dg.cols))));
  };
  if (fp && op->op == ir::ReduceOp::Sum) {
    // A float sum is latency-bound on its one chain of additions per row: four rows at a time,
    // then the last one to three together, each row's order unchanged (softmax 4096x1024's
    // 9-row tiles, layernorm's 7-row ones).
    constexpr int64_t kGroup = 4;
    auto sum_rows = [&](Value* from, int64_t n) {
      std::vector<LeafRows> rows;
      std::vector<Value*> rs;
      for (int64_t j = 0; j < n; ++j) {
        rs.push_back(b_.CreateAdd(from, b_.getInt64(j)));
        rows.push_back(leaf_rows(bases, rs.back()));
      }
      const std::vector<Value*> sums = float_row_lanes(value_of(op), ext.cols, rows, ct, reduce_init(op->op, ct), step, false);
      for (int64_t j = 0; j < n; ++j) store_row(rs[j], sums[j]);
    };
    Value* groups = b_.CreateUDiv(count, b_.getInt64(kGroup));
    counted_loop(groups, [&](Value* q) { sum_rows(b_.CreateAdd(first, b_.CreateMul(q, b_.getInt64(kGroup))), kGroup); }, "rg");
    Value* tail = b_.CreateAdd(first, b_.CreateMul(groups, b_.getInt64(kGroup)));
    llvm::BasicBlock* done = llvm::BasicBlock::Create(c_, "rt.done", fn_);
    llvm::SwitchInst* left = b_.CreateSwitch(b_.CreateURem(count, b_.getInt64(kGroup)), done, kGroup - 1);
    for (int64_t n = 1; n < kGroup; ++n) {  // the last n rows together
      llvm::BasicBlock* rows_left = llvm::BasicBlock::Create(c_, "rt", fn_);
      left->addCase(b_.getInt64(n), rows_left);
      b_.SetInsertPoint(rows_left);
      sum_rows(tail, n);
      b_.CreateBr(done);
    }
    b_.SetInsertPoint(done);
    return;
  }
  counted_loop(count, [&](Value* i) {
    Value* r = b_.CreateAdd(first, i);
    auto rows = leaf_rows(bases, r);
    Value* result = nullptr;
    if (fp) {  // max and min: the same in any order, so in 64 lanes
      result = float_row_lanes(value_of(op), ext.cols, std::span(&rows, 1), ct, reduce_init(op->op, ct), step, true)[0];
    } else {
      auto* acc = entry_alloca(ct);  // promoted to a register by mem2reg
      b_.CreateStore(reduce_init(op->op, ct), acc);
      counted_loop(ext.cols, [&](Value* col) {
        b_.CreateStore(step(b_.CreateLoad(ct, acc), element(value_of(op), col, rows, ct)), acc);
      }, "c");
      result = b_.CreateLoad(ct, acc);
    }
    store_row(r, result);
  }, "r");
}

}  // namespace pto::backend::codegen
