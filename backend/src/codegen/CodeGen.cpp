#include "CodeGen.hpp"

#include "../CodeGenLLVM.hpp"
#include "pto/backend/HookRecord.hpp"

namespace pto::backend::codegen {

CodeGen::CodeGen(const ir::Kernel& k, const ChipProfile& chip, llvm::Module& m, const std::string& symbol,
                 const llvm::TargetMachine& tm, bool instrument, bool elide_copies, bool fuse_rows, std::optional<ir::CoreKind> only)
    : k_(k),
      chip_(chip),
      m_(m),
      c_(m.getContext()),
      b_(c_),
      elision_(elide_copies ? find_load_elision(k) : LoadElision{}),
      forwarding_(elide_copies ? find_store_forwarding(k) : StoreForwarding{}),
      fusion_(fuse_rows ? find_row_fusion(k, forwarding_) : RowFusion{}),
      inlining_(find_tile_inlining(k, fusion_, forwarding_)),
      instrument_(instrument),
      only_(only) {
  auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false);
  fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, symbol, m_);
  fn_->addFnAttr("target-cpu", tm.getTargetCPU());
  fn_->addFnAttr("target-features", tm.getTargetFeatureString());
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  fn_->addParamAttr(0, llvm::Attribute::NoAlias);
  ctx_ = fn_->getArg(0);
}

void CodeGen::run() {
  BasicBlock* entry = BasicBlock::Create(c_, "entry", fn_);
  b_.SetInsertPoint(entry);
  setup();
  stmt(k_.body);
  b_.CreateRetVoid();
}

void CodeGen::setup() {
  rt_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kRuntime), "rt");
  llvm::cast<llvm::LoadInst>(rt_)->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(c_, {}));
  Value* tensors = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kTensors), "tensors");
  for (size_t i = 0; i < k_.tensors.size(); ++i) {
    tensor_base_.push_back(b_.CreateLoad(b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), tensors, i), k_.tensors[i].name));
  }
  for (size_t s = 1; s < 6; ++s) {
    arena_[s] = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kArena + s * sizeof(void*)), ir::mem_space_name(static_cast<ir::MemSpace>(s)));
  }
  var_slot_.assign(k_.num_vars, nullptr);
  auto slot_for = [&](const ir::Expr& v) {
    const auto* var = v.as<ir::Var>();
    auto* a = b_.CreateAlloca(b_.getInt64Ty(), nullptr, var->name);
    var_slot_[var->id] = a;
    return a;
  };
  Value* scalars = nullptr;
  for (const auto& s : k_.scalars) {
    if (!scalars) scalars = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kScalars), "scalars");
    const auto* var = s.var.as<ir::Var>();
    b_.CreateStore(b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), scalars, var->param_index)), slot_for(s.var));
  }
  for (const auto& v : k_.mutable_vars) b_.CreateStore(b_.getInt64(0), slot_for(v));
  // Valid extents: per group, depth x (rows, cols), all zero until written.
  for (const auto& g : k_.groups) {
    auto* a = b_.CreateAlloca(b_.getInt64Ty(), b_.getInt64(2 * g.depth), g.name + ".valid");
    for (int i = 0; i < 2 * g.depth; ++i) {  // a placed tile (addrs=) starts with its whole shape valid
      const int64_t start = g.addrs.empty() ? 0 : (i % 2 == 0 ? g.rows : g.cols);
      b_.CreateStore(b_.getInt64(start), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), a, i));
    }
    valid_.push_back(a);
  }
  // Loop variables and the block index/count get their slots on first use.
  block_idx_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kBlockIdx), "block_idx");
  block_num_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kBlockNum), "block_num");
  core_kind_ = only_ ? static_cast<Value*>(b_.getInt64(static_cast<int64_t>(*only_)))
                    : b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kCoreKind), "core_kind");
  subblock_idx_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kSubblockIdx), "subblock_idx");
  subblock_num_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kSubblockNum), "subblock_num");
  if (instrument_) {
    model_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kModel), "model");
    exec_hook_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kExec), "exec_hook");
    sync_hook_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kSync), "sync_hook");
    hook_cursor_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kHookCursor), "hook_cursor");
    hook_tag_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kHookTag), "hook_tag");
    size_t most = 1;
    for (const auto& info : k_.instrs) most = std::max(most, info.tiles.size());
    slots_ = b_.CreateAlloca(b_.getInt64Ty(), b_.getInt64(static_cast<int64_t>(most)), "slots");
  }
}

llvm::CallInst* CodeGen::rt_call(size_t field, llvm::Type* result, llvm::ArrayRef<llvm::Type*> params, llvm::ArrayRef<Value*> args) {
  auto* fn = b_.CreateLoad(b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), rt_, field), "rt.fn");
  fn->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(c_, {}));
  llvm::CallInst* call = b_.CreateCall(llvm::FunctionType::get(result, params, false), fn, args);
  call->setDoesNotThrow();
  return call;
}

void CodeGen::report(const ir::StmtNode* s, int instr, Value* amount, Value* gm_lo, Value* gm_hi) {
  if (!instrument_) return;
  const auto accesses = ir::tile_accesses(s);
  std::vector<Value*> slots;
  for (const auto& access : accesses) slots.push_back(scalar(access.tile.slot));
  gm_lo = gm_lo ? gm_lo : b_.getInt64(0);
  gm_hi = gm_hi ? gm_hi : b_.getInt64(0);
  auto* i64 = b_.getInt64Ty();
  hook_record(
      nullptr, hook_record::kExecWords + slots.size(),
      [&](Value* at, Value* tag) {
        Value* const words[] = {b_.CreateOr(tag, b_.getInt64(static_cast<uint32_t>(instr))), amount, gm_lo, gm_hi};  // kind exec: 0
        for (size_t i = 0; i < hook_record::kExecWords; ++i) b_.CreateStore(words[i], b_.CreateConstInBoundsGEP1_64(i64, at, i));
        for (size_t i = 0; i < slots.size(); ++i) b_.CreateStore(slots[i], b_.CreateConstInBoundsGEP1_64(i64, at, hook_record::kExecWords + i));
      },
      [&] {
        for (size_t i = 0; i < slots.size(); ++i) b_.CreateStore(slots[i], b_.CreateConstInBoundsGEP1_64(i64, slots_, i));
        auto* ty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty(), i64, b_.getPtrTy(), i64, i64}, false);
        b_.CreateCall(ty, exec_hook_, {model_, b_.getInt32(instr), amount, slots_, gm_lo, gm_hi});
      });
}

void CodeGen::hook_record(Value* packs, size_t words, const std::function<void(Value* at, Value* tag)>& write,
                          const std::function<void()>& call) {
  auto* i64 = b_.getInt64Ty();
  auto* ptr = b_.getPtrTy();
  BasicBlock* room = BasicBlock::Create(c_, "hook.room", fn_);
  BasicBlock* fast = BasicBlock::Create(c_, "hook.write", fn_);
  BasicBlock* slow = BasicBlock::Create(c_, "hook.call", fn_);
  BasicBlock* done = BasicBlock::Create(c_, "hook.done", fn_);
  auto* likely = llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1);
  b_.CreateCondBr(b_.CreateIsNotNull(hook_cursor_), room, slow, likely);
  b_.SetInsertPoint(room);
  Value* at_field = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), hook_cursor_, abi::kCursorAt);
  Value* at = b_.CreateLoad(ptr, at_field, "hook.at");
  Value* limit = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), hook_cursor_, abi::kCursorLimit), "hook.limit");
  Value* fits = b_.CreateICmpULE(b_.CreatePtrToInt(at, i64), b_.CreatePtrToInt(limit, i64));
  b_.CreateCondBr(packs ? b_.CreateAnd(fits, packs) : fits, fast, slow, likely);
  b_.SetInsertPoint(fast);
  write(at, hook_tag_);
  // The log's next lines asked for now, for writing (as HookLog::reserve does).
  b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr},
                     {b_.CreateConstInBoundsGEP1_64(i64, at, hook_record::kAhead), b_.getInt32(1), b_.getInt32(3), b_.getInt32(1)});
  b_.CreateStore(b_.CreateConstInBoundsGEP1_64(i64, at, words), at_field);
  b_.CreateBr(done);
  b_.SetInsertPoint(slow);
  call();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

llvm::AllocaInst* CodeGen::entry_alloca(llvm::Type* t, const std::string& name) {
  llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  return eb.CreateAlloca(t, nullptr, name);
}

llvm::AllocaInst* CodeGen::loop_slot(const ir::Var* var) {
  if (!var_slot_[var->id]) var_slot_[var->id] = entry_alloca(b_.getInt64Ty(), var->name);
  return llvm::cast<llvm::AllocaInst>(var_slot_[var->id]);
}

llvm::BranchInst* CodeGen::counted_loop(Value* count, const std::function<void(Value*)>& body, const char* name) {
  BasicBlock* pre = b_.GetInsertBlock();
  BasicBlock* head = BasicBlock::Create(c_, std::string(name) + ".body", fn_);
  BasicBlock* exit = BasicBlock::Create(c_, std::string(name) + ".exit", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), head, exit);
  b_.SetInsertPoint(head);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, name);
  i->addIncoming(b_.getInt64(0), pre);
  body(i);
  Value* next = b_.CreateAdd(i, b_.getInt64(1), "", true, true);
  i->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, count), head, exit);
  b_.SetInsertPoint(exit);
  return latch;
}

void CodeGen::set_loop_hints(llvm::BranchInst* latch, std::initializer_list<std::pair<const char*, llvm::Constant*>> hints) {
  std::vector<llvm::Metadata*> self{nullptr};  // a loop's ID is a distinct node naming itself first
  for (const auto& [name, value] : hints) {
    llvm::Metadata* hint[] = {llvm::MDString::get(c_, name), llvm::ConstantAsMetadata::get(value)};
    self.push_back(llvm::MDNode::get(c_, hint));
  }
  llvm::MDNode* loop = llvm::MDNode::getDistinct(c_, self);
  loop->replaceOperandWith(0, loop);
  latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
}

void CodeGen::set_interleave(llvm::BranchInst* latch, int count) {
  set_loop_hints(latch, {{"llvm.loop.interleave.count", b_.getInt32(static_cast<uint32_t>(count))}});
}

void CodeGen::set_vectorize_width(llvm::BranchInst* latch, int width) {
  set_loop_hints(latch, {{"llvm.loop.vectorize.enable", b_.getTrue()},
                         {"llvm.loop.vectorize.width", b_.getInt32(static_cast<uint32_t>(width))}});
}

Value* CodeGen::tile_base_in(Value* arena, const ir::TileRef& t) {
  const auto& g = group(t);
  Value* off = b_.CreateAdd(b_.getInt64(g.offset), b_.CreateMul(scalar(t.slot), b_.getInt64(g.slot_bytes)));
  if (t.window) {  // a view starts at its window's first element, with the tile's row pitch
    Value* first = b_.CreateAdd(b_.CreateMul(scalar(t.window->offset[0]), b_.getInt64(g.cols)), scalar(t.window->offset[1]));
    off = b_.CreateAdd(off, b_.CreateMul(first, b_.getInt64(static_cast<int64_t>(dtype_size(g.dtype)))));
  }
  return b_.CreateInBoundsGEP(b_.getInt8Ty(), arena, off);
}

Value* CodeGen::valid_ptr(const ir::TileRef& t, int axis) {
  Value* idx = b_.CreateAdd(b_.CreateMul(scalar(t.slot), b_.getInt64(2)), b_.getInt64(axis));
  return b_.CreateInBoundsGEP(b_.getInt64Ty(), valid_[t.group], idx);
}

void CodeGen::set_valid(const ir::TileRef& t, Value* rows, Value* cols) {
  b_.CreateStore(rows, valid_ptr(t, 0));
  b_.CreateStore(cols, valid_ptr(t, 1));
}

llvm::Type* CodeGen::storage_type(DType t) {
  switch (t) {
    case DType::f32: return b_.getFloatTy();
    case DType::f16: return b_.getHalfTy();
    case DType::bf16: return b_.getInt16Ty();
    case DType::i32: return b_.getInt32Ty();
    case DType::i8: return b_.getInt8Ty();
    case DType::i64: return b_.getInt64Ty();
    case DType::boolean: return b_.getInt1Ty();
  }
  return nullptr;
}

llvm::Type* CodeGen::compute_type(DType t) {
  const DType c = compute_dtype(t);
  return c == DType::f32 ? b_.getFloatTy() : (c == DType::boolean ? b_.getInt1Ty() : b_.getInt32Ty());
}

}  // namespace pto::backend::codegen

namespace pto::backend {

void emit_kernel_llvm(const ir::Kernel& k, const ChipProfile& chip, llvm::Module& m, const std::string& symbol,
                      const llvm::TargetMachine& tm, bool instrument, bool elide_copies, bool fuse_rows, std::optional<ir::CoreKind> only) {
  codegen::CodeGen(k, chip, m, symbol, tm, instrument, elide_copies, fuse_rows, only).run();
}

void emit_core_dispatch(llvm::Module& m, const std::string& symbol, const std::string& aic, const std::string& aiv,
                        const llvm::TargetMachine& tm) {
  llvm::LLVMContext& c = m.getContext();
  llvm::IRBuilder<> b(c);
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto declare = [&](const std::string& name) {
    llvm::Function* f = m.getFunction(name);
    if (!f) f = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m);
    f->setVisibility(llvm::GlobalValue::HiddenVisibility);  // one shared object: not exported
    return f;
  };
  llvm::Function* to_aic = declare(aic);
  llvm::Function* to_aiv = declare(aiv);
  auto* fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, symbol, m);
  fn->addFnAttr("target-cpu", tm.getTargetCPU());
  fn->addFnAttr("target-features", tm.getTargetFeatureString());
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* ctx = fn->getArg(0);
  b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", fn));
  llvm::Value* kind = b.CreateLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctx, abi::kCoreKind), "core_kind");
  auto* cube = llvm::BasicBlock::Create(c, "aic", fn);
  auto* vec = llvm::BasicBlock::Create(c, "aiv", fn);
  b.CreateCondBr(b.CreateICmpEQ(kind, b.getInt64(static_cast<int64_t>(ir::CoreKind::AIC))), cube, vec);
  b.SetInsertPoint(cube);
  b.CreateCall(to_aic, {ctx});
  b.CreateRetVoid();
  b.SetInsertPoint(vec);
  b.CreateCall(to_aiv, {ctx});
  b.CreateRetVoid();
}

}  // namespace pto::backend
