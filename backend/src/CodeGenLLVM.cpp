#include "CodeGenLLVM.hpp"

#include <array>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "pto/backend/KernelABI.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

using llvm::BasicBlock;
using llvm::Value;

class CodeGen {
 public:
  CodeGen(const ir::Kernel& k, const ChipProfile& chip, llvm::Module& m, const std::string& symbol,
          const llvm::TargetMachine& tm, bool instrument)
      : k_(k), chip_(chip), m_(m), c_(m.getContext()), b_(c_), instrument_(instrument) {
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false);
    fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, symbol, m_);
    fn_->addFnAttr("target-cpu", tm.getTargetCPU());
    fn_->addFnAttr("target-features", tm.getTargetFeatureString());
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    fn_->addParamAttr(0, llvm::Attribute::NoAlias);
    ctx_ = fn_->getArg(0);
    auto* fail_ty = llvm::FunctionType::get(b_.getVoidTy(),
        {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    fail_fn_ = llvm::Function::Create(fail_ty, llvm::Function::ExternalLinkage, "pto_rt_fail", m_);
    fail_fn_->addFnAttr(llvm::Attribute::Cold);
    fail_fn_->addFnAttr(llvm::Attribute::NoUnwind);
    stream_fn_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty()}, false),
                                        llvm::Function::ExternalLinkage, "pto_rt_stream_to_gm", m_);
    stream_fn_->addFnAttr(llvm::Attribute::NoUnwind);
    gather_fn_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty()}, false),
                                        llvm::Function::ExternalLinkage, "pto_rt_copy_from_gm", m_);
    gather_fn_->addFnAttr(llvm::Attribute::NoUnwind);
    auto* i64 = b_.getInt64Ty();
    matmul_fn_ = llvm::Function::Create(
        llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getPtrTy(), b_.getPtrTy(), i64, i64, i64, i64, i64, i64, b_.getInt32Ty(), b_.getInt32Ty()}, false),
        llvm::Function::ExternalLinkage, "pto_rt_matmul", m_);
    matmul_fn_->addFnAttr(llvm::Attribute::NoUnwind);
    atomic_add_fn_ = llvm::Function::Create(
        llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), i64, b_.getInt32Ty(), b_.getPtrTy(), i64, b_.getInt32Ty(), i64, i64, b_.getInt32Ty()}, false),
        llvm::Function::ExternalLinkage, "pto_rt_atomic_add_rows", m_);
    atomic_add_fn_->addFnAttr(llvm::Attribute::NoUnwind);
  }

  void run() {
    BasicBlock* entry = BasicBlock::Create(c_, "entry", fn_);
    b_.SetInsertPoint(entry);
    setup();
    stmt(k_.body);
    b_.CreateRetVoid();
  }

 private:
  // ------------------------------------------------------------------------------ setup
  Value* ctx_field(size_t offset) { return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), ctx_, offset); }

  void setup() {
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
      for (int i = 0; i < 2 * g.depth; ++i) b_.CreateStore(b_.getInt64(0), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), a, i));
      valid_.push_back(a);
    }
    // Loop variables and the block index/count get their slots on first use.
    block_idx_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kBlockIdx), "block_idx");
    block_num_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kBlockNum), "block_num");
    core_kind_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kCoreKind), "core_kind");
    subblock_idx_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kSubblockIdx), "subblock_idx");
    subblock_num_ = b_.CreateLoad(b_.getInt64Ty(), ctx_field(abi::kSubblockNum), "subblock_num");
    if (instrument_) {
      model_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kModel), "model");
      exec_hook_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kExec), "exec_hook");
      sync_hook_ = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kSync), "sync_hook");
      size_t most = 1;
      for (const auto& info : k_.instrs) most = std::max(most, info.tiles.size());
      slots_ = b_.CreateAlloca(b_.getInt64Ty(), b_.getInt64(static_cast<int64_t>(most)), "slots");
    }
  }

  // ------------------------------------------------------------------------------ instrumentation
  /// Reports an executed instruction to the pipeline model (see KernelABI.hpp).
  void report(const ir::StmtNode* s, int instr, Value* amount, Value* gm_lo = nullptr, Value* gm_hi = nullptr) {
    if (!instrument_) return;
    const auto accesses = ir::tile_accesses(s);
    for (size_t i = 0; i < accesses.size(); ++i) {
      b_.CreateStore(scalar(accesses[i].tile.slot), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), slots_, i));
    }
    auto* ty = llvm::FunctionType::get(b_.getVoidTy(),
        {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt64Ty(), b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    b_.CreateCall(ty, exec_hook_, {model_, b_.getInt32(instr), amount, slots_, gm_lo ? gm_lo : b_.getInt64(0), gm_hi ? gm_hi : b_.getInt64(0)});
  }

  void sync(const ir::Sync* op) {
    if (op->op == ir::SyncOp::CrossSet || op->op == ir::SyncOp::CrossWait) return cross_core(op);
    if (!instrument_) return;
    auto* ty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    Value* slot = op->tile.group >= 0 ? scalar(op->tile.slot) : b_.getInt64(-1);
    b_.CreateCall(ty, sync_hook_, {model_, b_.getInt32(op->id), scalar(op->event), slot});
  }


  /// Cross-core flags go to the emulator's block scheduler, timed or not; a nonzero answer
  /// (deadlock) ends the core at once.
  void cross_core(const ir::Sync* op) {
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

  /// Allocas live in the entry block, where mem2reg promotes them to registers.
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const std::string& name = "") {
    llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    return eb.CreateAlloca(t, nullptr, name);
  }

  llvm::AllocaInst* loop_slot(const ir::Var* var) {
    if (!var_slot_[var->id]) var_slot_[var->id] = entry_alloca(b_.getInt64Ty(), var->name);
    return llvm::cast<llvm::AllocaInst>(var_slot_[var->id]);
  }

  // ------------------------------------------------------------------------------ scalars
  Value* scalar(const ir::Expr& e) {
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
      const auto& g = group(op->tile);
      Value* rows = valid(op->tile, 0);
      Value* cols = valid(op->tile, 1);
      Value* unset = b_.CreateAnd(b_.CreateICmpEQ(rows, b_.getInt64(0)), b_.CreateICmpEQ(cols, b_.getInt64(0)));
      return b_.CreateSelect(unset, b_.getInt64(op->axis == 0 ? g.rows : g.cols), op->axis == 0 ? rows : cols);
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
      }
    }
    PTO_INTERNAL_CHECK(false) << "unexpected scalar expression";
    return nullptr;
  }

  // ------------------------------------------------------------------------------ checks
  /// Continues when `ok` holds; otherwise reports `check` for instruction `instr` and returns.
  void check(Value* ok, int instr, RuntimeCheck chk, int axis, Value* a, Value* bv, Value* cv = nullptr) {
    BasicBlock* fail = BasicBlock::Create(c_, "fail", fn_);
    BasicBlock* cont = BasicBlock::Create(c_, "ok", fn_);
    b_.CreateCondBr(ok, cont, fail, llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1));
    b_.SetInsertPoint(fail);
    b_.CreateCall(fail_fn_, {ctx_, b_.getInt32(instr), b_.getInt32(static_cast<int32_t>(chk)), b_.getInt32(axis), a, bv,
                             cv ? cv : b_.getInt64(0)});
    b_.CreateRetVoid();
    b_.SetInsertPoint(cont);
  }

  // ------------------------------------------------------------------------------ loops
  /// for (i = 0; i < count; ++i) body(i), count >= 0 at run time.
  void counted_loop(Value* count, const std::function<void(Value*)>& body, const char* name) {
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
    b_.CreateCondBr(b_.CreateICmpSLT(next, count), head, exit);
    b_.SetInsertPoint(exit);
  }

  // ------------------------------------------------------------------------------ tiles
  const ir::TileGroup& group(const ir::TileRef& t) const { return k_.groups[t.group]; }

  Value* tile_base(const ir::TileRef& t) { return tile_base_in(arena_[static_cast<size_t>(group(t).space)], t); }
  /// The tile's slot in `arena`: this core's memory of its space, or a peer core's (cross-core moves).
  Value* tile_base_in(Value* arena, const ir::TileRef& t) {
    const auto& g = group(t);
    Value* off = b_.CreateAdd(b_.getInt64(g.offset), b_.CreateMul(scalar(t.slot), b_.getInt64(g.slot_bytes)));
    return b_.CreateInBoundsGEP(b_.getInt8Ty(), arena, off);
  }
  Value* peer_arena(int i) { return b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kPeer + i * sizeof(void*)), "peer"); }
  Value* valid_ptr(const ir::TileRef& t, int axis) {
    Value* idx = b_.CreateAdd(b_.CreateMul(scalar(t.slot), b_.getInt64(2)), b_.getInt64(axis));
    return b_.CreateInBoundsGEP(b_.getInt64Ty(), valid_[t.group], idx);
  }
  Value* valid(const ir::TileRef& t, int axis) { return b_.CreateLoad(b_.getInt64Ty(), valid_ptr(t, axis)); }
  void set_valid(const ir::TileRef& t, Value* rows, Value* cols) {
    b_.CreateStore(rows, valid_ptr(t, 0));
    b_.CreateStore(cols, valid_ptr(t, 1));
  }

  llvm::Type* storage_type(DType t) {
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
  llvm::Type* compute_type(DType t) {
    const DType c = compute_dtype(t);
    return c == DType::f32 ? b_.getFloatTy() : (c == DType::boolean ? b_.getInt1Ty() : b_.getInt32Ty());
  }

  /// Storage value of dtype `t` -> its compute type.
  Value* widen(Value* v, DType t) {
    switch (t) {
      case DType::f16: return b_.CreateFPExt(v, b_.getFloatTy());
      case DType::bf16: return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
      case DType::i8: return b_.CreateSExt(v, b_.getInt32Ty());
      default: return v;
    }
  }
  Value* float_to_bf16_bits(Value* f) {
    Value* x = b_.CreateBitCast(f, b_.getInt32Ty());
    Value* lsb = b_.CreateAnd(b_.CreateLShr(x, 16), 1);
    Value* rounded = b_.CreateLShr(b_.CreateAdd(x, b_.CreateAdd(lsb, b_.getInt32(0x7fff))), 16);
    Value* nan = b_.CreateOr(b_.CreateLShr(x, 16), b_.getInt32(0x40));
    Value* is_nan = b_.CreateFCmpUNO(f, f);
    return b_.CreateTrunc(b_.CreateSelect(is_nan, nan, rounded), b_.getInt16Ty());
  }
  /// Compute value of dtype `t` -> storage of `t`.
  Value* narrow(Value* v, DType t) {
    switch (t) {
      case DType::f16: return b_.CreateFPTrunc(v, b_.getHalfTy());
      case DType::bf16: return float_to_bf16_bits(v);
      case DType::i8: return b_.CreateTrunc(v, b_.getInt8Ty());
      default: return v;
    }
  }

  // ------------------------------------------------------------------------------ tile expressions
  struct Leaf {
    const ir::TileRead* read;
    Value* row_ptr = nullptr;  // set per row
  };

  void collect_leaves(const ir::Expr& e, std::vector<const ir::TileRead*>& out) {
    struct Collector : ir::Visitor {
      std::vector<const ir::TileRead*>* out;
      void visit_node(const ir::TileRead* op) override { out->push_back(op); }
    } c;
    c.out = &out;
    c.visit(e);
  }

  /// A scalar (i64 index value, integer or float constant) converted to compute type `to`.
  Value* broadcast_scalar(const ir::Expr& e, llvm::Type* to) {
    if (const auto* f = e.as<ir::FloatImm>()) {
      return to->isFloatTy() ? static_cast<Value*>(llvm::ConstantFP::get(to, f->value))
                             : b_.getInt32(static_cast<int32_t>(f->value));
    }
    if (const auto* i = e.as<ir::IntImm>(); i && i->type.dtype == DType::i32) {
      return to->isFloatTy() ? static_cast<Value*>(llvm::ConstantFP::get(to, static_cast<double>(i->value))) : b_.getInt32(static_cast<int32_t>(i->value));
    }
    Value* v = scalar(e);  // i64, or i1 for a boolean (0 or 1)
    if (v->getType()->isIntegerTy(1)) return to->isFloatTy() ? b_.CreateUIToFP(v, to) : b_.CreateZExt(v, to);
    return to->isFloatTy() ? b_.CreateSIToFP(v, to) : b_.CreateTrunc(v, to);
  }

  /// The element (row r, column c) of tile expression `e`, in its compute type. Leaf row
  /// pointers come from `rows`.
  Value* element(const ir::Expr& e, Value* col, const std::unordered_map<const ir::TileRead*, Value*>& rows,
                 llvm::Type* ctx_type) {
    if (!e->type.tile) return broadcast_scalar(e, ctx_type);
    if (const auto* op = e.as<ir::TileRead>()) {
      llvm::Type* st = storage_type(op->type.dtype);
      Value* p = op->row_broadcast ? rows.at(op) : b_.CreateInBoundsGEP(st, rows.at(op), col);
      return widen(b_.CreateLoad(st, p), op->type.dtype);
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
      return convert(element(op->a, col, rows, from_t), op->a->type.dtype, op->type.dtype);
    }
    if (const auto* op = e.as<ir::Select>()) {
      llvm::Type* ct = compute_type(op->type.dtype);
      Value* cond = element(op->cond, col, rows, b_.getInt1Ty());
      return b_.CreateSelect(cond, element(op->a, col, rows, ct), element(op->b, col, rows, ct));
    }
    PTO_INTERNAL_CHECK(false) << "unexpected tile expression";
    return nullptr;
  }

  Value* intrinsic(llvm::Intrinsic::ID id, Value* a, Value* c = nullptr) {
    if (c) return b_.CreateBinaryIntrinsic(id, a, c);
    return b_.CreateUnaryIntrinsic(id, a);
  }

  /// max/min of docs/semantics.md, spelled out rather than left to llvm.maxnum's target lowering
  /// (which may return either zero on ties): a NaN `c` gives `a`, else a NaN `a` gives `c`;
  /// equal values give the AND (max: +0 over -0) or OR (min) of their bits; else the larger
  /// (smaller) one.
  Value* float_max_min(Value* a, Value* c, bool max) {
    llvm::Type* bits = b_.getIntNTy(a->getType()->getScalarSizeInBits());
    Value* tie = max ? b_.CreateAnd(b_.CreateBitCast(a, bits), b_.CreateBitCast(c, bits))
                     : b_.CreateOr(b_.CreateBitCast(a, bits), b_.CreateBitCast(c, bits));
    Value* r = b_.CreateSelect(max ? b_.CreateFCmpOGT(a, c) : b_.CreateFCmpOLT(a, c), a, c);
    r = b_.CreateSelect(b_.CreateFCmpOEQ(a, c), b_.CreateBitCast(tie, a->getType()), r);
    return b_.CreateSelect(b_.CreateFCmpUNO(c, c), a, r);
  }

  /// Integer comparisons, max and min: signed, except booleans (i1), which are 0 and 1.
  Value* int_order(ir::BinaryOp op, Value* a, Value* c) {
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

  Value* binary(ir::BinaryOp op, Value* a, Value* c, bool fp) {
    using ir::BinaryOp;
    if (fp) {
      switch (op) {
        case BinaryOp::Add: return b_.CreateFAdd(a, c);
        case BinaryOp::Sub: return b_.CreateFSub(a, c);
        case BinaryOp::Mul: return b_.CreateFMul(a, c);
        case BinaryOp::Div: return b_.CreateFDiv(a, c);
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
        default: break;
      }
    }
    PTO_INTERNAL_CHECK(false) << "unsupported tile operator " << ir::binary_op_name(op);
    return nullptr;
  }

  Value* unary(ir::UnaryOp op, Value* a, bool fp) {
    using ir::UnaryOp;
    switch (op) {
      case UnaryOp::Neg: return fp ? b_.CreateFNeg(a) : b_.CreateSub(b_.getInt32(0), a);
      case UnaryOp::Abs: return fp ? intrinsic(llvm::Intrinsic::fabs, a) : b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, b_.getFalse());
      case UnaryOp::Relu: {  // x > 0 ? x : +0 (NaN and -0 give +0)
        Value* zero = fp ? llvm::ConstantFP::get(a->getType(), 0.0) : static_cast<Value*>(b_.getInt32(0));
        return b_.CreateSelect(fp ? b_.CreateFCmpOGT(a, zero) : b_.CreateICmpSGT(a, zero), a, zero);
      }
      case UnaryOp::Exp: return intrinsic(llvm::Intrinsic::exp, a);
      case UnaryOp::Log: return intrinsic(llvm::Intrinsic::log, a);
      case UnaryOp::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, a);
      case UnaryOp::Rsqrt: return b_.CreateFDiv(llvm::ConstantFP::get(a->getType(), 1.0), intrinsic(llvm::Intrinsic::sqrt, a));
    }
    return nullptr;
  }

  /// Compute value of dtype `from` -> compute value of dtype `to`, rounded to `to`'s precision.
  Value* convert(Value* v, DType from, DType to) {
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

  struct Extent {
    Value* rows;
    Value* cols;
  };

  /// The extent of a tile expression: the valid extent of its first full-width tile read (or of
  /// its first broadcast read, one column wide); checks every other read covers it.
  /// The extent of a tile expression: the valid extent of its first full operand. Operands
  /// broadcast as in numpy: a {rows, 1} tile along each row, a {1, cols} tile down each column.
  Extent expr_extent(const std::vector<const ir::TileRead*>& leaves, const ir::TileRef& dst, int instr) {
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

  std::unordered_map<const ir::TileRead*, Value*> leaf_bases(const std::vector<const ir::TileRead*>& leaves) {
    std::unordered_map<const ir::TileRead*, Value*> bases;
    for (auto* l : leaves) bases[l] = tile_base(l->tile);
    return bases;
  }

  std::unordered_map<const ir::TileRead*, Value*> leaf_rows(const std::unordered_map<const ir::TileRead*, Value*>& bases,
                                                            Value* r) {
    std::unordered_map<const ir::TileRead*, Value*> rows;
    for (auto& [l, base] : bases) {
      const auto& g = group(l->tile);
      if (col_broadcast_.count(l)) {  // a {1, cols} operand: the same row for every row
        rows[l] = base;
        continue;
      }
      rows[l] = b_.CreateInBoundsGEP(storage_type(l->type.dtype), base, b_.CreateMul(r, b_.getInt64(g.cols)));
    }
    return rows;
  }

  void vec_compute(const ir::VecCompute* op) {
    std::vector<const ir::TileRead*> leaves;
    collect_leaves(op->value, leaves);
    const auto& dg = group(op->dst);
    Extent ext = expr_extent(leaves, op->dst, op->id);
    check(b_.CreateICmpSLE(ext.rows, b_.getInt64(dg.rows)), op->id, RuntimeCheck::result_over_tile, 0, ext.rows, b_.getInt64(dg.rows));
    check(b_.CreateICmpSLE(ext.cols, b_.getInt64(dg.cols)), op->id, RuntimeCheck::result_over_tile, 1, ext.cols, b_.getInt64(dg.cols));
    auto bases = leaf_bases(leaves);
    Value* dst = tile_base(op->dst);
    llvm::Type* dt = storage_type(dg.dtype);
    llvm::Type* ct = compute_type(op->value->type.dtype);
    counted_loop(ext.rows, [&](Value* r) {
      auto rows = leaf_rows(bases, r);
      Value* drow = b_.CreateInBoundsGEP(dt, dst, b_.CreateMul(r, b_.getInt64(dg.cols)));
      counted_loop(ext.cols, [&](Value* col) {
        Value* v = element(op->value, col, rows, ct);
        b_.CreateStore(narrow(v, dg.dtype), b_.CreateInBoundsGEP(dt, drow, col));
      }, "c");
    }, "r");
    set_valid(op->dst, ext.rows, ext.cols);
    report(op, op->id, b_.CreateMul(ext.rows, ext.cols));
  }

  /// A float row sum in one fixed order, the same on every host and in the interpreter: column c
  /// goes to lane c % 8, each lane sums its columns in order from +0, and the lanes are combined
  /// as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). The eight lanes of each full group of
  /// columns are independent, so the SLP vectoriser makes them one vector add, with no reassociation.
  Value* float_row_sum(const ir::Expr& value, Value* cols, const std::unordered_map<const ir::TileRead*, Value*>& rows, llvm::Type* ct) {
    constexpr int kLanes = 8;
    std::array<llvm::AllocaInst*, kLanes> lane{};
    for (auto& l : lane) {
      l = entry_alloca(ct);  // promoted to registers by mem2reg
      b_.CreateStore(llvm::ConstantFP::get(ct, 0.0), l);
    }
    Value* groups = b_.CreateUDiv(cols, b_.getInt64(kLanes));
    counted_loop(groups, [&](Value* g) {
      for (int l = 0; l < kLanes; ++l) {
        Value* col = b_.CreateAdd(b_.CreateMul(g, b_.getInt64(kLanes)), b_.getInt64(l));
        b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(ct, lane[l]), element(value, col, rows, ct)), lane[l]);
      }
    }, "sum8");
    Value* full = b_.CreateMul(groups, b_.getInt64(kLanes));
    counted_loop(b_.CreateSub(cols, full), [&](Value* t) {  // the last cols % 8 columns: column full + t to lane t
      Value* v = element(value, b_.CreateAdd(full, t), rows, ct);
      for (int l = 0; l < kLanes; ++l) {
        Value* cur = b_.CreateLoad(ct, lane[l]);
        b_.CreateStore(b_.CreateSelect(b_.CreateICmpEQ(t, b_.getInt64(l)), b_.CreateFAdd(cur, v), cur), lane[l]);
      }
    }, "sumtail");
    std::array<Value*, kLanes> v{};
    for (int l = 0; l < kLanes; ++l) v[l] = b_.CreateLoad(ct, lane[l]);
    return b_.CreateFAdd(b_.CreateFAdd(b_.CreateFAdd(v[0], v[1]), b_.CreateFAdd(v[2], v[3])),
                         b_.CreateFAdd(b_.CreateFAdd(v[4], v[5]), b_.CreateFAdd(v[6], v[7])));
  }

  void row_reduce(const ir::RowReduce* op) {
    std::vector<const ir::TileRead*> leaves;
    collect_leaves(op->value, leaves);
    const auto& dg = group(op->dst);
    Extent ext = expr_extent(leaves, op->dst, op->id);
    check(b_.CreateICmpSLE(ext.rows, b_.getInt64(dg.rows)), op->id, RuntimeCheck::result_over_tile, 0, ext.rows, b_.getInt64(dg.rows));
    auto bases = leaf_bases(leaves);
    Value* dst = tile_base(op->dst);
    llvm::Type* dt = storage_type(dg.dtype);
    const DType vdt = op->value->type.dtype;
    llvm::Type* ct = compute_type(vdt);
    const bool fp = ct->isFloatTy();
    counted_loop(ext.rows, [&](Value* r) {
      auto rows = leaf_rows(bases, r);
      Value* init = nullptr;
      switch (op->op) {
        case ir::ReduceOp::Sum: init = fp ? llvm::ConstantFP::get(ct, 0.0) : static_cast<Value*>(b_.getInt32(0)); break;
        case ir::ReduceOp::Max: init = fp ? llvm::ConstantFP::getInfinity(ct, true) : static_cast<Value*>(b_.getInt32(INT32_MIN)); break;
        case ir::ReduceOp::Min: init = fp ? llvm::ConstantFP::getInfinity(ct, false) : static_cast<Value*>(b_.getInt32(INT32_MAX)); break;
      }
      Value* result = nullptr;
      if (fp && op->op == ir::ReduceOp::Sum) {
        result = float_row_sum(op->value, ext.cols, rows, ct);
      } else {
        auto* acc = entry_alloca(ct);  // promoted to a register by mem2reg
        b_.CreateStore(init, acc);
        counted_loop(ext.cols, [&](Value* col) {
          Value* v = element(op->value, col, rows, ct);
          Value* cur = b_.CreateLoad(ct, acc);
          Value* next = op->op == ir::ReduceOp::Sum
                            ? b_.CreateAdd(cur, v)
                            : binary(op->op == ir::ReduceOp::Max ? ir::BinaryOp::Max : ir::BinaryOp::Min, cur, v, fp);
          b_.CreateStore(next, acc);
        }, "c");
        result = b_.CreateLoad(ct, acc);
      }
      // The destination is the source's dtype or float (a wider accumulator).
      result = convert(result, vdt, dg.dtype);
      b_.CreateStore(narrow(result, dg.dtype), b_.CreateInBoundsGEP(dt, dst, b_.CreateMul(r, b_.getInt64(dg.cols))));
    }, "r");
    set_valid(op->dst, ext.rows, b_.getInt64(1));
    report(op, op->id, b_.CreateMul(ext.rows, ext.cols));
  }

  // ------------------------------------------------------------------------------ data movement
  struct Region {
    Value* off[2];
    Value* ext[2];
  };

  Region region_checked(const ir::GMRegion& r, const ir::TileRef& t, int instr) {
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

  /// Copies `rows` rows of `cols` elements between GM (pitch `gm_pitch`) and a tile (pitch `tile_pitch`).
  void copy_rows(Value* gm, int64_t gm_pitch, Value* tile, int64_t tile_pitch, Value* rows, Value* cols, int64_t es,
                 bool to_tile, bool streaming = false) {
    Value* bytes = b_.CreateMul(cols, b_.getInt64(es));
    counted_loop(rows, [&](Value* r) {
      Value* g = b_.CreateInBoundsGEP(b_.getInt8Ty(), gm, b_.CreateMul(r, b_.getInt64(gm_pitch * es)));
      Value* t = b_.CreateInBoundsGEP(b_.getInt8Ty(), tile, b_.CreateMul(r, b_.getInt64(tile_pitch * es)));
      if (to_tile && streaming) {
        b_.CreateCall(gather_fn_, {t, g, bytes});
      } else if (to_tile) {
        b_.CreateMemCpy(t, llvm::MaybeAlign(32), g, llvm::MaybeAlign(es), bytes);
      } else if (streaming) {
        b_.CreateCall(stream_fn_, {g, t, bytes});
      } else {
        b_.CreateMemCpy(g, llvm::MaybeAlign(es), t, llvm::MaybeAlign(32), bytes);
      }
    }, "row");
  }

  /// [lo, hi) of the GM elements a region touches, flattened over its view (lo == hi: empty).
  std::pair<Value*, Value*> gm_interval(const ir::GMRegion& r, const Region& reg) {
    Value* lo = b_.CreateAdd(b_.CreateMul(reg.off[0], b_.getInt64(r.view[1])), reg.off[1]);
    Value* last_row = b_.CreateAdd(reg.off[0], b_.CreateSub(reg.ext[0], b_.getInt64(1)));
    Value* hi = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(last_row, b_.getInt64(r.view[1])), reg.off[1]), reg.ext[1]);
    Value* empty = b_.CreateOr(b_.CreateICmpEQ(reg.ext[0], b_.getInt64(0)), b_.CreateICmpEQ(reg.ext[1], b_.getInt64(0)));
    return {lo, b_.CreateSelect(empty, lo, hi)};
  }

  Value* gm_address(const ir::GMRegion& r, const Region& reg, int64_t es) {
    Value* elem = b_.CreateAdd(b_.CreateMul(reg.off[0], b_.getInt64(r.view[1])), reg.off[1]);
    return b_.CreateInBoundsGEP(b_.getInt8Ty(), tensor_base_[r.tensor], b_.CreateMul(elem, b_.getInt64(es)));
  }

  /// Prefetch hints for the GM region of `op` (no checks: a hint on a bad address is harmless
  /// only if it is never dereferenced, so the address is clamped into the tensor).
  void prefetch(const ir::Load* op) {
    const auto& g = group(op->dst);
    const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
    Value* off[2];
    Value* ext[2];
    for (int d = 0; d < 2; ++d) {
      Value* lo = b_.getInt64(0);
      off[d] = scalar(op->src.offset[d]);
      off[d] = b_.CreateSelect(b_.CreateICmpSLT(off[d], lo), lo, off[d]);
      ext[d] = scalar(op->src.extent[d]);
      Value* room = b_.CreateSub(b_.getInt64(op->src.view[d]), off[d]);
      ext[d] = b_.CreateSelect(b_.CreateICmpSLT(room, ext[d]), room, ext[d]);
      ext[d] = b_.CreateSelect(b_.CreateICmpSLT(ext[d], lo), lo, ext[d]);
    }
    Region reg{{off[0], off[1]}, {ext[0], ext[1]}};
    Value* base = gm_address(op->src, reg, es);
    Value* row_bytes = b_.CreateMul(ext[1], b_.getInt64(es));
    Value* lines = b_.CreateUDiv(b_.CreateAdd(row_bytes, b_.getInt64(63)), b_.getInt64(64));
    counted_loop(ext[0], [&](Value* r) {
      Value* row = b_.CreateInBoundsGEP(b_.getInt8Ty(), base, b_.CreateMul(r, b_.getInt64(op->src.view[1] * es)));
      counted_loop(lines, [&](Value* l) {
        Value* p = b_.CreateGEP(b_.getInt8Ty(), row, b_.CreateMul(l, b_.getInt64(64)));
        b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()}, {p, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
      }, "pf");
    }, "pfrow");
  }

  void load(const ir::Load* op) {
    const auto& g = group(op->dst);
    const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
    Region reg = region_checked(op->src, op->dst, op->id);
    const int64_t tensor_bytes = op->src.view[0] * op->src.view[1] * es;
    copy_rows(gm_address(op->src, reg, es), op->src.view[1], tile_base(op->dst), g.cols, reg.ext[0], reg.ext[1], es, true,
              tensor_bytes >= kStreamingStoreBytes);
    set_valid(op->dst, reg.ext[0], reg.ext[1]);
    if (instrument_) {
      auto [lo, hi] = gm_interval(op->src, reg);
      report(op, op->id, b_.CreateMul(b_.CreateMul(reg.ext[0], reg.ext[1]), b_.getInt64(es)), lo, hi);
    }
  }

  void store(const ir::Store* op) {
    const auto& g = group(op->src);
    const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
    Region reg = region_checked(op->dst, op->src, op->id);
    for (int d = 0; d < 2; ++d) {
      Value* v = valid(op->src, d);
      check(b_.CreateICmpSLE(reg.ext[d], v), op->id, RuntimeCheck::store_beyond_valid, d, reg.ext[d], v);
    }
    const DType to = k_.tensors[op->dst.tensor].dtype;
    const int64_t tes = static_cast<int64_t>(dtype_size(to));
    const int64_t tensor_bytes = op->dst.view[0] * op->dst.view[1] * tes;
    if (op->atomic_add) {
      b_.CreateCall(atomic_add_fn_, {gm_address(op->dst, reg, tes), b_.getInt64(op->dst.view[1]), b_.getInt32(static_cast<int32_t>(to)),
                                     tile_base(op->src), b_.getInt64(g.cols), b_.getInt32(static_cast<int32_t>(g.dtype)), reg.ext[0],
                                     reg.ext[1], b_.getInt32(op->relu ? 1 : 0)});
    } else if (to == g.dtype && !op->relu) {
      copy_rows(gm_address(op->dst, reg, es), op->dst.view[1], tile_base(op->src), g.cols, reg.ext[0], reg.ext[1], es, false,
                tensor_bytes >= kStreamingStoreBytes);
    } else {
      convert_rows(gm_address(op->dst, reg, tes), op->dst.view[1], to, tile_base(op->src), g.cols, g.dtype, reg.ext[0], reg.ext[1],
                   op->relu);
    }
    if (instrument_) {
      auto [lo, hi] = gm_interval(op->dst, reg);
      report(op, op->id, b_.CreateMul(b_.CreateMul(reg.ext[0], reg.ext[1]), b_.getInt64(tes)), lo, hi);
    }
  }

  /// Copies rows x cols elements from a tile of `from` (pitch `tile_pitch`) to GM of `to` (pitch
  /// `gm_pitch`), converting each element (FIX's conversion on the way out of Acc).
  void convert_rows(Value* gm, int64_t gm_pitch, DType to, Value* tile, int64_t tile_pitch, DType from, Value* rows, Value* cols,
                    bool relu = false) {
    llvm::Type* ft = storage_type(from);
    llvm::Type* tt = storage_type(to);
    counted_loop(rows, [&](Value* r) {
      Value* src = b_.CreateInBoundsGEP(ft, tile, b_.CreateMul(r, b_.getInt64(tile_pitch)));
      Value* dst = b_.CreateInBoundsGEP(tt, gm, b_.CreateMul(r, b_.getInt64(gm_pitch)));
      counted_loop(cols, [&](Value* c) {
        Value* v = widen(b_.CreateLoad(ft, b_.CreateInBoundsGEP(ft, src, c)), from);
        if (relu) {  // x > 0 ? x : 0 (a NaN and -0 give +0), before the conversion
          const bool fp = v->getType()->isFloatingPointTy();
          Value* zero = fp ? static_cast<Value*>(llvm::ConstantFP::get(v->getType(), 0.0)) : b_.getInt32(0);
          v = b_.CreateSelect(fp ? b_.CreateFCmpOGT(v, zero) : b_.CreateICmpSGT(v, zero), v, zero);
        }
        b_.CreateStore(narrow(convert(v, from, to), to), b_.CreateInBoundsGEP(tt, dst, c));
      }, "cvt");
    }, "cvtrow");
  }

  // ------------------------------------------------------------------------------ cube
  /// Checks that a rows x cols result fits tile `t`.
  void check_fits(const ir::TileRef& t, Value* rows, Value* cols, int instr) {
    const auto& g = group(t);
    check(b_.CreateICmpSLE(rows, b_.getInt64(g.rows)), instr, RuntimeCheck::result_over_tile, 0, rows, b_.getInt64(g.rows));
    check(b_.CreateICmpSLE(cols, b_.getInt64(g.cols)), instr, RuntimeCheck::result_over_tile, 1, cols, b_.getInt64(g.cols));
  }

  void move(const ir::Move* op) {
    if (op->attrs.cross_core) return group(op->src).space == ir::MemSpace::Acc ? move_acc_to_vec(op) : move_vec_to_mat(op);
    const auto& sg = group(op->src);
    const auto& dg = group(op->dst);
    const int64_t es = static_cast<int64_t>(dtype_size(sg.dtype));
    const bool transpose = op->attrs.transpose;
    Value* rows = valid(op->src, 0);
    Value* cols = valid(op->src, 1);
    Value* src = tile_base(op->src);
    if (op->attrs.window) narrow_to_window(op, rows, cols, src, es);
    Value* out_rows = transpose ? cols : rows;
    Value* out_cols = transpose ? rows : cols;
    check_fits(op->dst, out_rows, out_cols, op->id);
    Value* dst = tile_base(op->dst);
    if (!transpose) {
      copy_tile_rows(dst, dg.cols, src, sg.cols, rows, cols, es);
    } else {
      llvm::Type* st = storage_type(sg.dtype);
      counted_loop(rows, [&](Value* r) {
        Value* s = b_.CreateInBoundsGEP(st, src, b_.CreateMul(r, b_.getInt64(sg.cols)));
        counted_loop(cols, [&](Value* c) {
          Value* d = b_.CreateInBoundsGEP(st, dst, b_.CreateAdd(b_.CreateMul(c, b_.getInt64(dg.cols)), r));
          b_.CreateStore(b_.CreateLoad(st, b_.CreateInBoundsGEP(st, s, c)), d);
        }, "mvt");
      }, "mvtrow");
    }
    set_valid(op->dst, out_rows, out_cols);
    report(op, op->id, b_.CreateMul(b_.CreateMul(rows, cols), b_.getInt64(es)));
  }

  /// pl::extract: narrows the source extent to the window at attrs.offset (as large as the
  /// destination holds, transposed: its columns x rows; cut to the source's valid extent) and moves
  /// `src` to the window's first element.
  void narrow_to_window(const ir::Move* op, Value*& rows, Value*& cols, Value*& src, int64_t es) {
    const auto& sg = group(op->src);
    const auto& dg = group(op->dst);
    const bool transpose = op->attrs.transpose;
    Value* off[2] = {scalar(op->attrs.offset[0]), scalar(op->attrs.offset[1])};
    Value* ext[2] = {rows, cols};
    const int64_t fits[2] = {transpose ? dg.cols : dg.rows, transpose ? dg.rows : dg.cols};
    for (int d = 0; d < 2; ++d) {
      check(b_.CreateICmpSGE(off[d], b_.getInt64(0)), op->id, RuntimeCheck::offset_negative, d, off[d], b_.getInt64(0));
      check(b_.CreateICmpSLE(off[d], ext[d]), op->id, RuntimeCheck::window_past_valid, d, off[d], ext[d]);
      Value* left = b_.CreateSub(ext[d], off[d]);
      ext[d] = b_.CreateSelect(b_.CreateICmpSLT(left, b_.getInt64(fits[d])), left, b_.getInt64(fits[d]));
    }
    rows = ext[0];
    cols = ext[1];
    src = b_.CreateInBoundsGEP(b_.getInt8Ty(), src,
                               b_.CreateMul(b_.CreateAdd(b_.CreateMul(off[0], b_.getInt64(sg.cols)), off[1]), b_.getInt64(es)));
  }

  /// Acc -> Vec on the AIC: each receiving AIV's part of the accumulator (ir::AccToVec), converted
  /// to the Vec tile's dtype, lands at row 0, column 0 of that AIV's tile slot.
  void move_acc_to_vec(const ir::Move* op) {
    const auto& sg = group(op->src);
    const auto& dg = group(op->dst);
    Value* rows = valid(op->src, 0);
    Value* cols = valid(op->src, 1);
    Value* zero = b_.getInt64(0);
    struct Part {
      Value *r0, *rows, *c0, *cols;
    };
    std::array<std::optional<Part>, 2> parts;
    switch (op->attrs.split) {
      case ir::AccToVec::SingleModeVec0: parts[0] = Part{zero, rows, zero, cols}; break;
      case ir::AccToVec::SingleModeVec1: parts[1] = Part{zero, rows, zero, cols}; break;
      case ir::AccToVec::DualModeSplitM: {
        Value* h = b_.CreateSDiv(b_.CreateAdd(rows, b_.getInt64(1)), b_.getInt64(2));
        parts[0] = Part{zero, h, zero, cols};
        parts[1] = Part{h, b_.CreateSub(rows, h), zero, cols};
        break;
      }
      case ir::AccToVec::DualModeSplitN: {
        Value* half = b_.CreateMul(b_.CreateSDiv(b_.CreateAdd(cols, b_.getInt64(31)), b_.getInt64(32)), b_.getInt64(16));
        half = b_.CreateSelect(b_.CreateICmpSLT(cols, half), cols, half);
        parts[0] = Part{zero, rows, zero, half};
        parts[1] = Part{zero, rows, half, b_.CreateSub(cols, half)};
        break;
      }
    }
    const int64_t ses = static_cast<int64_t>(dtype_size(sg.dtype));
    for (int s = 0; s < 2; ++s) {
      if (!parts[s]) continue;
      const Part& p = *parts[s];
      check_fits(op->dst, p.rows, p.cols, op->id);
      Value* src = b_.CreateInBoundsGEP(b_.getInt8Ty(), tile_base(op->src),
                                        b_.CreateMul(b_.CreateAdd(b_.CreateMul(p.r0, b_.getInt64(sg.cols)), p.c0), b_.getInt64(ses)));
      convert_rows(tile_base_in(peer_arena(s), op->dst), dg.cols, dg.dtype, src, sg.cols, sg.dtype, p.rows, p.cols);
    }
    report(op, op->id, b_.CreateMul(b_.CreateMul(rows, cols), b_.getInt64(static_cast<int64_t>(dtype_size(dg.dtype)))));
  }

  /// Vec -> Mat on an AIV: the source's valid region lands at `offset` in its AIC's tile slot.
  void move_vec_to_mat(const ir::Move* op) {
    const auto& sg = group(op->src);
    const auto& dg = group(op->dst);
    const int64_t es = static_cast<int64_t>(dtype_size(sg.dtype));
    Value* ext[2] = {valid(op->src, 0), valid(op->src, 1)};
    Value* off[2] = {scalar(op->attrs.offset[0]), scalar(op->attrs.offset[1])};
    const int64_t cap[2] = {dg.rows, dg.cols};
    for (int d = 0; d < 2; ++d) {
      check(b_.CreateICmpSGE(off[d], b_.getInt64(0)), op->id, RuntimeCheck::offset_negative, d, off[d], b_.getInt64(0));
      Value* end = b_.CreateAdd(off[d], ext[d]);
      check(b_.CreateICmpSLE(end, b_.getInt64(cap[d])), op->id, RuntimeCheck::result_over_tile, d, end, b_.getInt64(cap[d]));
    }
    Value* src = tile_base(op->src);
    Value* dst = b_.CreateInBoundsGEP(b_.getInt8Ty(), tile_base_in(peer_arena(0), op->dst),
                                      b_.CreateMul(b_.CreateAdd(b_.CreateMul(off[0], b_.getInt64(dg.cols)), off[1]), b_.getInt64(es)));
    copy_tile_rows(dst, dg.cols, src, sg.cols, ext[0], ext[1], es);
    // The race checker gets the rectangle written, flattened over the destination tile's rows
    // (the two AIVs of a block fill disjoint parts of one slot).
    Value* lo = b_.CreateAdd(b_.CreateMul(off[0], b_.getInt64(dg.cols)), off[1]);
    Value* last_row = b_.CreateSub(b_.CreateAdd(off[0], ext[0]), b_.getInt64(1));
    Value* hi = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(last_row, b_.getInt64(dg.cols)), off[1]), ext[1]);
    Value* empty = b_.CreateOr(b_.CreateICmpEQ(ext[0], b_.getInt64(0)), b_.CreateICmpEQ(ext[1], b_.getInt64(0)));
    report(op, op->id, b_.CreateMul(b_.CreateMul(ext[0], ext[1]), b_.getInt64(es)), lo, b_.CreateSelect(empty, lo, hi));
  }

  /// rows x cols elements of `es` bytes between two tiles of row pitches `dst_pitch` and `src_pitch` elements.
  void copy_tile_rows(Value* dst, int64_t dst_pitch, Value* src, int64_t src_pitch, Value* rows, Value* cols, int64_t es) {
    counted_loop(rows, [&](Value* r) {
      Value* s = b_.CreateInBoundsGEP(b_.getInt8Ty(), src, b_.CreateMul(r, b_.getInt64(src_pitch * es)));
      Value* d = b_.CreateInBoundsGEP(b_.getInt8Ty(), dst, b_.CreateMul(r, b_.getInt64(dst_pitch * es)));
      b_.CreateMemCpy(d, llvm::MaybeAlign(es), s, llvm::MaybeAlign(es), b_.CreateMul(cols, b_.getInt64(es)));
    }, "mvrow");
  }

  /// pl::set_validshape: the extent must be non-negative and within the tile.
  void set_valid_shape(const ir::SetValid* op) {
    const auto& g = group(op->tile);
    Value* ext[2] = {scalar(op->rows), scalar(op->cols)};
    const int64_t cap[2] = {g.rows, g.cols};
    for (int d = 0; d < 2; ++d) {
      check(b_.CreateICmpSGE(ext[d], b_.getInt64(0)), op->id, RuntimeCheck::region_negative, d, ext[d], b_.getInt64(0));
      check(b_.CreateICmpSLE(ext[d], b_.getInt64(cap[d])), op->id, RuntimeCheck::region_over_tile, d, ext[d], b_.getInt64(cap[d]));
    }
    set_valid(op->tile, ext[0], ext[1]);
    report(op, op->id, b_.getInt64(1));
  }

  void matmul(const ir::Matmul* op) {
    const auto& ag = group(op->a);
    const auto& bg = group(op->b);
    const auto& cg = group(op->dst);
    Value* m = valid(op->a, 0);
    Value* kk = valid(op->a, 1);
    Value* kb = valid(op->b, 0);
    Value* n = valid(op->b, 1);
    check(b_.CreateICmpEQ(kk, kb), op->id, RuntimeCheck::matmul_k_mismatch, 1, kk, kb);
    check_fits(op->dst, m, n, op->id);
    if (op->accumulate) {
      Value* vr = valid(op->dst, 0);
      Value* vc = valid(op->dst, 1);
      check(b_.CreateICmpSGE(vr, m), op->id, RuntimeCheck::operand_smaller, 0, m, vr);
      check(b_.CreateICmpSGE(vc, n), op->id, RuntimeCheck::operand_smaller, 1, n, vc);
    }
    b_.CreateCall(matmul_fn_, {tile_base(op->dst), tile_base(op->a), tile_base(op->b), m, n, kk, b_.getInt64(ag.cols),
                               b_.getInt64(bg.cols), b_.getInt64(cg.cols), b_.getInt32(static_cast<int32_t>(ag.dtype)),
                               b_.getInt32(op->accumulate ? 1 : 0)});
    set_valid(op->dst, m, n);
    report(op, op->id, b_.CreateMul(b_.CreateMul(m, n), kk), m, n);  // KernelABI: a matmul reports m and n in gm_lo, gm_hi
  }

  void section(const ir::Section* op) {
    BasicBlock* body = BasicBlock::Create(c_, "section", fn_);
    BasicBlock* end = BasicBlock::Create(c_, "section.end", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(core_kind_, b_.getInt64(static_cast<int64_t>(op->core))), body, end);
    b_.SetInsertPoint(body);
    stmt(op->body);
    b_.CreateBr(end);
    b_.SetInsertPoint(end);
  }

  // ------------------------------------------------------------------------------ debugging aids
  /// Calls the emulator's debug hook; a nonzero answer (trap, fatal assertion) ends the core.
  Value* call_debug(const ir::Debug* op, Value* args, Value* data, Value* rows, Value* cols, Value* pitch) {
    auto* ty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt32Ty(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty(),
                                                         b_.getInt64Ty(), b_.getInt64Ty()}, false);
    Value* hook = b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kDebug), "debug_hook");
    return b_.CreateCall(ty, hook, {ctx_, b_.getInt32(op->id), args, data, rows, cols, pitch});
  }
  void stop_if(Value* r, const char* name) {
    BasicBlock* stop = BasicBlock::Create(c_, std::string(name) + ".stop", fn_);
    BasicBlock* cont = BasicBlock::Create(c_, std::string(name) + ".ok", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(r, b_.getInt32(0)), cont, stop, llvm::MDBuilder(c_).createBranchWeights(1 << 20, 1));
    b_.SetInsertPoint(stop);
    b_.CreateRetVoid();
    b_.SetInsertPoint(cont);
  }

  void debug(const ir::Debug* op) {
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

  // ------------------------------------------------------------------------------ statements
  void stmt(const ir::Stmt& s) {
    if (!s) return;
    if (const auto* op = s.as<ir::Seq>()) {
      for (size_t i = 0; i < op->body.size(); ++i) {
        // Back-to-back loads: prefetch the next one's region so both GM streams are in flight at
        // once, as two MTE2 transfers would be (the copies themselves stay in program order).
        if (i + 1 < op->body.size() && op->body[i].as<ir::Load>()) {
          if (const auto* next = op->body[i + 1].as<ir::Load>()) prefetch(next);
        }
        stmt(op->body[i]);
      }
    } else if (const auto* op = s.as<ir::For>()) {
      for_loop(op);
    } else if (const auto* op = s.as<ir::LoopExit>()) {
      PTO_INTERNAL_CHECK(!loops_.empty()) << "break/continue outside a loop";
      b_.CreateBr(op->brk ? loops_.back().exit : loops_.back().latch);
      b_.SetInsertPoint(BasicBlock::Create(c_, "after.exit", fn_));  // unreachable; later code lands here
    } else if (const auto* op = s.as<ir::IfThenElse>()) {
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
    } else if (const auto* op = s.as<ir::Assign>()) {
      b_.CreateStore(scalar(op->value), var_slot_[op->var.as<ir::Var>()->id]);
    } else if (const auto* op = s.as<ir::Load>()) {
      load(op);
    } else if (const auto* op = s.as<ir::Store>()) {
      store(op);
    } else if (const auto* op = s.as<ir::VecCompute>()) {
      vec_compute(op);
    } else if (const auto* op = s.as<ir::RowReduce>()) {
      row_reduce(op);
    } else if (const auto* op = s.as<ir::Sync>()) {
      sync(op);
    } else if (const auto* op = s.as<ir::Move>()) {
      move(op);
    } else if (const auto* op = s.as<ir::Matmul>()) {
      matmul(op);
    } else if (const auto* op = s.as<ir::SetValid>()) {
      set_valid_shape(op);
    } else if (const auto* op = s.as<ir::Section>()) {
      section(op);
    } else if (const auto* op = s.as<ir::Debug>()) {
      debug(op);
    } else {
      PTO_INTERNAL_CHECK(false) << "unexpected statement";
    }
  }

  void for_loop(const ir::For* op) {
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
  struct LoopBlocks {
    BasicBlock *latch, *exit;
  };
  std::vector<LoopBlocks> loops_;  // the loops around the statement being emitted, innermost last

  const ir::Kernel& k_;
  const ChipProfile& chip_;
  llvm::Module& m_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  llvm::Function* fail_fn_ = nullptr;
  llvm::Function* atomic_add_fn_ = nullptr;
  llvm::Function* stream_fn_ = nullptr;
  llvm::Function* gather_fn_ = nullptr;
  llvm::Function* matmul_fn_ = nullptr;
  Value* ctx_ = nullptr;
  Value* core_kind_ = nullptr;
  Value* subblock_idx_ = nullptr;
  Value* subblock_num_ = nullptr;
  std::unordered_set<const ir::TileRead*> col_broadcast_;  // of the tile expression being emitted
  Value* block_idx_ = nullptr;
  Value* block_num_ = nullptr;
  std::vector<Value*> tensor_base_;
  Value* arena_[6] = {};
  std::vector<Value*> var_slot_;
  std::vector<Value*> valid_;
  bool instrument_;
  Value* model_ = nullptr;
  Value* exec_hook_ = nullptr;
  Value* sync_hook_ = nullptr;
  Value* slots_ = nullptr;
};

}  // namespace

void emit_kernel_llvm(const ir::Kernel& k, const ChipProfile& chip, llvm::Module& m, const std::string& symbol,
                      const llvm::TargetMachine& tm, bool instrument) {
  CodeGen(k, chip, m, symbol, tm, instrument).run();
}

}  // namespace pto::backend
