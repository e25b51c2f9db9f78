#include "CodeGen.hpp"

namespace pto::backend::codegen {

void CodeGen::check(Value* ok, int instr, RuntimeCheck chk, int axis, Value* a, Value* bv, Value* cv) {
  BasicBlock* fail = BasicBlock::Create(c_, "fail", fn_);
  BasicBlock* cont = BasicBlock::Create(c_, "ok", fn_);
  b_.CreateCondBr(ok, cont, fail, llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(fail);
  b_.CreateCall(fail_fn_, {ctx_, b_.getInt32(instr), b_.getInt32(static_cast<int32_t>(chk)), b_.getInt32(axis), a, bv,
                           cv ? cv : b_.getInt64(0)});
  b_.CreateRetVoid();
  b_.SetInsertPoint(cont);
}

CodeGen::Extent CodeGen::expr_extent(const std::vector<const ir::TileRead*>& leaves, const ir::TileRef& dst, int instr) {
  auto one_row = [&](const ir::TileRead* l) {
    const auto& g = group(l->tile);
    return g.rank == 2 && g.rows == 1;
  };
  const ir::TileRead* lead = nullptr;
  for (auto* l : leaves) if (!l->row_broadcast && !one_row(l)) { lead = l; break; }
  if (!lead) for (auto* l : leaves) if (!l->row_broadcast) { lead = l; break; }
  col_broadcast_.clear();
  if (lead && !one_row(lead)) {
    for (auto* l : leaves) if (l != lead && one_row(l)) col_broadcast_.insert(l);  // {1, cols} and {1, 1}
  }
  Extent ext;
  if (lead) {
    ext = {valid(lead->tile, 0), valid(lead->tile, 1)};
  } else if (!leaves.empty()) {
    ext = {valid(leaves[0]->tile, 0), b_.getInt64(1)};
  } else {
    const auto& g = group(dst);
    ext = {b_.getInt64(g.rows), b_.getInt64(g.cols)};
  }
  for (auto* l : leaves) {
    if (l == lead) continue;
    if (!col_broadcast_.count(l)) {
      Value* vr = valid(l->tile, 0);
      check(b_.CreateICmpSGE(vr, ext.rows), instr, RuntimeCheck::operand_smaller, 0, ext.rows, vr);
    }
    if (!l->row_broadcast) {
      Value* vc = valid(l->tile, 1);
      check(b_.CreateICmpSGE(vc, ext.cols), instr, RuntimeCheck::operand_smaller, 1, ext.cols, vc);
    }
  }
  return ext;
}

CodeGen::Region CodeGen::region_checked(const ir::GMRegion& r, const ir::TileRef& t, int instr) {
  const auto& g = group(t);
  Region out;
  for (int d = 0; d < 2; ++d) {
    out.off[d] = scalar(r.offset[d]);
    out.ext[d] = scalar(r.extent[d]);
  }
  const int64_t cap[2] = {g.rows, g.cols};
  for (int d = 0; d < 2; ++d) {
    check(b_.CreateICmpSGE(out.ext[d], b_.getInt64(0)), instr, RuntimeCheck::region_negative, d, out.ext[d], b_.getInt64(0));
    Value* in_bounds = b_.CreateAnd(b_.CreateICmpSGE(out.off[d], b_.getInt64(0)),
                                    b_.CreateICmpSLE(b_.CreateAdd(out.off[d], out.ext[d]), b_.getInt64(r.view[d])));
    check(in_bounds, instr, RuntimeCheck::region_out_of_bounds, d, out.off[d], out.ext[d], b_.getInt64(r.view[d]));
    check(b_.CreateICmpSLE(out.ext[d], b_.getInt64(cap[d])), instr, RuntimeCheck::region_over_tile, d, out.ext[d], b_.getInt64(cap[d]));
  }
  const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
  const int64_t align = gm_move_alignment(chip_, g.space);
  Value* byte_off = b_.CreateMul(out.off[1], b_.getInt64(es));
  check(b_.CreateICmpEQ(b_.CreateSRem(byte_off, b_.getInt64(align)), b_.getInt64(0)), instr, RuntimeCheck::region_misaligned, 1,
        byte_off, b_.getInt64(align));
  return out;
}

std::pair<Value*, Value*> CodeGen::gm_interval(const ir::GMRegion& r, const Region& reg) {
  Value* lo = b_.CreateAdd(b_.CreateMul(reg.off[0], b_.getInt64(r.view[1])), reg.off[1]);
  Value* last_row = b_.CreateAdd(reg.off[0], b_.CreateSub(reg.ext[0], b_.getInt64(1)));
  Value* hi = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(last_row, b_.getInt64(r.view[1])), reg.off[1]), reg.ext[1]);
  Value* empty = b_.CreateOr(b_.CreateICmpEQ(reg.ext[0], b_.getInt64(0)), b_.CreateICmpEQ(reg.ext[1], b_.getInt64(0)));
  return {lo, b_.CreateSelect(empty, lo, hi)};
}

Value* CodeGen::gm_address(const ir::GMRegion& r, const Region& reg, int64_t es) {
  Value* elem = b_.CreateAdd(b_.CreateMul(reg.off[0], b_.getInt64(r.view[1])), reg.off[1]);
  return b_.CreateInBoundsGEP(b_.getInt8Ty(), tensor_base_[r.tensor], b_.CreateMul(elem, b_.getInt64(es)));
}

void CodeGen::check_fits(const ir::TileRef& t, Value* rows, Value* cols, int instr) {
  const auto& g = group(t);
  check(b_.CreateICmpSLE(rows, b_.getInt64(g.rows)), instr, RuntimeCheck::result_over_tile, 0, rows, b_.getInt64(g.rows));
  check(b_.CreateICmpSLE(cols, b_.getInt64(g.cols)), instr, RuntimeCheck::result_over_tile, 1, cols, b_.getInt64(g.cols));
}

}  // namespace pto::backend::codegen
