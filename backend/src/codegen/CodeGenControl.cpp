#include "CodeGen.hpp"

#include "../StmtScan.hpp"
#include "pto/backend/HookRecord.hpp"

namespace pto::backend::codegen {

void CodeGen::sync(const ir::Sync* op) {
  if (ir::meets_other_cores(op->op)) return cross_core(op);
  if (!instrument_) return;
  Value* event = scalar(op->event);
  Value* slot = op->tile.group >= 0 ? scalar(op->tile.slot) : b_.getInt64(-1);
  // Packed into one word when event + 1 and slot + 1 are both under 2^15 (unsigned: -1 packs as 0).
  namespace hr = hook_record;
  Value* e1 = b_.CreateAdd(event, b_.getInt64(1));
  Value* s1 = b_.CreateAdd(slot, b_.getInt64(1));
  Value* packs = b_.CreateICmpULT(b_.CreateOr(e1, s1), b_.getInt64(int64_t{1} << hr::kPackedBits));
  hook_record(
      packs, 1,
      [&](Value* at, Value* tag) {
        Value* top = b_.CreateShl(b_.CreateOr(b_.CreateShl(e1, hr::kPackedBits), s1), hr::kPackedShift);
        const uint64_t kind_instr = (uint64_t{hr::kSyncPacked} << hr::kKindShift) | static_cast<uint32_t>(op->id);
        b_.CreateStore(b_.CreateOr(top, b_.CreateOr(tag, b_.getInt64(kind_instr))), at);
      },
      [&] {
        auto* ty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
        b_.CreateCall(ty, sync_hook_, {model_, b_.getInt32(op->id), event, slot});
      });
}

void CodeGen::cross_core(const ir::Sync* op) {
  auto* ty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt64Ty()}, false);
  Value* hook = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kCross), "cross_hook");
  Value* r = b_.CreateCall(ty, hook, {ctx_, b_.getInt32(op->id), b_.getInt32(static_cast<int32_t>(op->op)), scalar(op->event)});
  BasicBlock* stop = BasicBlock::Create(c_, "cross.stop", fn_);
  BasicBlock* cont = BasicBlock::Create(c_, "cross.ok", fn_);
  b_.CreateCondBr(b_.CreateICmpEQ(r, b_.getInt32(0)), cont, stop, llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(stop);
  b_.CreateRetVoid();
  b_.SetInsertPoint(cont);
}

void CodeGen::section(const ir::Section* op) {
  if (only_) {  // one kind's code: its sections inline, the other kind's left out
    if (op->core == *only_) stmt(op->body);
    return;
  }
  BasicBlock* body = BasicBlock::Create(c_, "section", fn_);
  BasicBlock* end = BasicBlock::Create(c_, "section.end", fn_);
  b_.CreateCondBr(b_.CreateICmpEQ(core_kind_, b_.getInt64(static_cast<int64_t>(op->core))), body, end);
  b_.SetInsertPoint(body);
  stmt(op->body);
  b_.CreateBr(end);
  b_.SetInsertPoint(end);
}

void CodeGen::yield_point() {
  Value* hook = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kYield), "yield_hook");
  BasicBlock* call = BasicBlock::Create(c_, "yield", fn_);
  BasicBlock* cont = BasicBlock::Create(c_, "yield.done", fn_);
  b_.CreateCondBr(b_.CreateIsNull(hook), cont, call, llvm::MDBuilder(c_).createBranchWeights(1, 1));
  b_.SetInsertPoint(call);
  // The other cores that run meanwhile touch none of this core's memory (its tiles, its context;
  // GM they share only in a racy kernel): to the optimiser the call reaches no memory it can see,
  // so values stay in registers across it and the loops around it vectorise as without it.
  llvm::CallInst* yield = b_.CreateCall(llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false), hook, {ctx_});
  yield->setOnlyAccessesInaccessibleMemory();
  yield->setDoesNotThrow();
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
}

void CodeGen::visit_node(const ir::Seq* op) {
  // Nested lists (insert_checks, insert_auto_mutex) run straight through: one list, as the
  // analyses see it (StmtScan.hpp).
  std::vector<ir::Stmt> body;
  stmt_scan::flatten(op->body, body);
  for (size_t i = 0; i < body.size();) {
    if (const auto run = fusion_.runs.find(body[i].get()); run != fusion_.runs.end()) {
      fused_run(body, i, run->second);
      i += run->second.length;
      continue;
    }
    // A core of a vector or cube kernel gives way before each run of GM loads (a tile's inputs, a
    // K step's panels), so the emulator can run the cores of one host thread tile by tile (see
    // CoreContext::yield). A mix block's cores are fibers of their own already.
    const bool single_core_blocks = k_.mode == ir::KernelMode::Vector || k_.mode == ir::KernelMode::Cube;
    if (single_core_blocks && body[i].as<ir::Load>() && (i == 0 || !body[i - 1].as<ir::Load>())) yield_point();
    // Back-to-back loads: prefetch the next one's region so both GM streams are in flight at
    // once, as two MTE2 transfers would be (the copies themselves stay in program order).
    if (i + 1 < body.size() && body[i].as<ir::Load>()) {
      if (const auto* next = body[i + 1].as<ir::Load>()) prefetch(next);
    }
    stmt(body[i]);
    ++i;
  }
}

void CodeGen::visit_node(const ir::LoopExit* op) {
  PTO_INTERNAL_CHECK(!loops_.empty()) << "break/continue outside a loop";
  b_.CreateBr(op->brk ? loops_.back().exit : loops_.back().latch);
  b_.SetInsertPoint(BasicBlock::Create(c_, "after.exit", fn_));  // unreachable; later code lands here
}

void CodeGen::visit_node(const ir::IfThenElse* op) {
  BasicBlock* then_bb = BasicBlock::Create(c_, "then", fn_);
  BasicBlock* else_bb = BasicBlock::Create(c_, "else", fn_);
  BasicBlock* end_bb = BasicBlock::Create(c_, "endif", fn_);
  b_.CreateCondBr(scalar(op->cond), then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  stmt(op->then_case);
  b_.CreateBr(end_bb);
  b_.SetInsertPoint(else_bb);
  stmt(op->else_case);
  b_.CreateBr(end_bb);
  b_.SetInsertPoint(end_bb);
}

void CodeGen::visit_node(const ir::Assign* op) {
  b_.CreateStore(scalar(op->value), var_slot_[op->var.as<ir::Var>()->id]);
}

void CodeGen::visit_node(const ir::For* op) {
  const auto* var = op->var.as<ir::Var>();
  const int instr = op->instr;
  Value* begin = scalar(op->begin);
  Value* end = scalar(op->end);
  Value* step = scalar(op->step);
  check(b_.CreateICmpNE(step, b_.getInt64(0)), instr, RuntimeCheck::range_step, 0, step, b_.getInt64(0));
  Value* up = b_.CreateICmpSGT(step, b_.getInt64(0));  // Python's range: a negative step counts down to end
  auto* slot = loop_slot(var);
  b_.CreateStore(begin, slot);
  BasicBlock* cond = BasicBlock::Create(c_, "for.cond", fn_);
  BasicBlock* body = BasicBlock::Create(c_, "for.body", fn_);
  BasicBlock* exit = BasicBlock::Create(c_, "for.exit", fn_);
  BasicBlock* latch = BasicBlock::Create(c_, "for.latch", fn_);
  b_.CreateBr(cond);
  b_.SetInsertPoint(cond);
  Value* at = b_.CreateLoad(b_.getInt64Ty(), slot);
  b_.CreateCondBr(b_.CreateSelect(up, b_.CreateICmpSLT(at, end), b_.CreateICmpSGT(at, end)), body, exit);
  b_.SetInsertPoint(body);
  // Each iteration is charged to the core's instruction budget: a runaway loop stops with an error.
  Value* budget_ptr = ctx_field(abi::kBudget);
  Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt64Ty(), budget_ptr), b_.getInt64(ir::loop_iteration_cost(op->body)));
  b_.CreateStore(left, budget_ptr);
  check(b_.CreateICmpSGE(left, b_.getInt64(0)), instr, RuntimeCheck::instruction_budget, 0, b_.getInt64(0), b_.getInt64(0));
  loops_.push_back({latch, exit});
  stmt(op->body);
  loops_.pop_back();
  b_.CreateBr(latch);
  b_.SetInsertPoint(latch);  // continue_ lands here
  b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), slot), step), slot);
  b_.CreateBr(cond);
  b_.SetInsertPoint(exit);
}

}  // namespace pto::backend::codegen
