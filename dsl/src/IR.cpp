#include "pto/ir/IR.hpp"

#include <fmt/format.h>

#include "pto/ir/FloatSemantics.hpp"
#include "pto/ir/IntSemantics.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::ir {

const char* mem_space_name(MemSpace s) {
  switch (s) {
    case MemSpace::GM: return "GM";
    case MemSpace::Vec: return "Vec";
    case MemSpace::Mat: return "Mat";
    case MemSpace::Left: return "Left";
    case MemSpace::Right: return "Right";
    case MemSpace::Acc: return "Acc";
  }
  return "?";
}

const char* pipe_name(Pipe p) {
  switch (p) {
    case Pipe::S: return "S";
    case Pipe::V: return "V";
    case Pipe::M: return "M";
    case Pipe::MTE1: return "MTE1";
    case Pipe::MTE2: return "MTE2";
    case Pipe::MTE3: return "MTE3";
    case Pipe::FIX: return "FIX";
    case Pipe::ALL: return "ALL";
  }
  return "?";
}

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Min: return "min";
    case BinaryOp::Max: return "max";
    case BinaryOp::LT: return "<";
    case BinaryOp::LE: return "<=";
    case BinaryOp::GT: return ">";
    case BinaryOp::GE: return ">=";
    case BinaryOp::EQ: return "==";
    case BinaryOp::NE: return "!=";
    case BinaryOp::And: return "&&";
    case BinaryOp::Or: return "||";
    case BinaryOp::Xor: return "^";
    case BinaryOp::Shl: return "<<";
    case BinaryOp::Shr: return ">>";
    case BinaryOp::Pow: return "pow";
  }
  return "?";
}

bool is_comparison(BinaryOp op) { return op >= BinaryOp::LT && op <= BinaryOp::NE; }

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Log: return "log";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Rsqrt: return "rsqrt";
    case UnaryOp::Relu: return "relu";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Sigmoid: return "sigmoid";
    case UnaryOp::Erf: return "erf";
    case UnaryOp::Sin: return "sin";
    case UnaryOp::Cos: return "cos";
    case UnaryOp::Not: return "not";
  }
  return "?";
}

const char* reduce_op_name(ReduceOp op, int axis) {
  const bool col = axis == 1;
  switch (op) {
    case ReduceOp::Sum: return col ? "col_sum" : "row_sum";
    case ReduceOp::Max: return col ? "col_max" : "row_max";
    case ReduceOp::Min: return col ? "col_min" : "row_min";
    case ReduceOp::ArgMax: return col ? "col_argmax" : "row_argmax";
    case ReduceOp::ArgMin: return col ? "col_argmin" : "row_argmin";
  }
  return "?";
}

const char* sync_op_name(SyncOp op) {
  switch (op) {
    case SyncOp::SetFlag: return "set_flag";
    case SyncOp::WaitFlag: return "wait_flag";
    case SyncOp::Barrier: return "pipe_barrier";
    case SyncOp::MutexLock: return "mutex_lock";
    case SyncOp::MutexUnlock: return "mutex_unlock";
    case SyncOp::CrossSet: return "set_cross_core";
    case SyncOp::CrossWait: return "wait_cross_core";
    case SyncOp::SyncAll: return "sync_all";
  }
  return "?";
}

Expr IntImm::make(int64_t v, DType t) { return std::make_shared<const IntImm>(v, t); }
Expr FloatImm::make(double v, DType t) { return std::make_shared<const FloatImm>(v, t); }
Expr Var::make(std::string name, int id, VarKind kind, int param_index, DType dtype) {
  return std::make_shared<const Var>(std::move(name), id, kind, param_index, dtype);
}


Expr Binary::make(BinaryOp op, Expr a, Expr b) {
  PTO_INTERNAL_CHECK(a && b) << "binary operand missing";
  const bool tile = a->type.tile || b->type.tile;
  if (!tile && (a->type.dtype == DType::f32 || b->type.dtype == DType::f32)) {
    // f32 scalars (pl::Float): IEEE binary32, folded with the interpreter's evaluator.
    PTO_INTERNAL_CHECK(a->type.dtype == DType::f32 && b->type.dtype == DType::f32 && float_scalar_op(op))
        << "f32 scalar operator " << binary_op_name(op) << " on " << dtype_name(a->type.dtype) << " and " << dtype_name(b->type.dtype);
    const DType t = is_comparison(op) ? DType::boolean : DType::f32;
    const auto* fa = a.as<FloatImm>();
    const auto* fb = b.as<FloatImm>();
    if (fa && fb) {
      const int64_t r = float_binary_bits(op, static_cast<float>(fa->value), static_cast<float>(fb->value));
      return t == DType::boolean ? IntImm::make(r, t) : FloatImm::make(std::bit_cast<float>(static_cast<uint32_t>(r)), t);
    }
    return std::make_shared<const Binary>(op, std::move(a), std::move(b), Type{t, false});
  }
  if (!tile) {
    const auto* ia = a.as<IntImm>();
    const auto* ib = b.as<IntImm>();
    const DType t = is_comparison(op) || op == BinaryOp::And || op == BinaryOp::Or ? DType::boolean : DType::i64;
    if (ia && ib) return IntImm::make(int_binary<int64_t>(op, ia->value, ib->value), t);  // the same evaluator as the interpreter
    // x + 0, x * 1: keep the printed IR and the generated code small.
    if (ib && ib->value == 0 && (op == BinaryOp::Add || op == BinaryOp::Sub)) return a;
    if (ia && ia->value == 0 && op == BinaryOp::Add) return b;
    if (ib && ib->value == 1 && (op == BinaryOp::Mul || op == BinaryOp::Div)) return a;
    if (ia && ia->value == 1 && op == BinaryOp::Mul) return b;
    return std::make_shared<const Binary>(op, std::move(a), std::move(b), Type{t, false});
  }
  const Type operand = a->type.tile ? a->type : b->type;
  PTO_INTERNAL_CHECK(!(a->type.tile && b->type.tile) || a->type.dtype == b->type.dtype)
      << "tile operands of different dtypes";
  const Type result = is_comparison(op) ? Type{DType::boolean, true} : operand;
  return std::make_shared<const Binary>(op, std::move(a), std::move(b), result);
}

Expr Unary::make(UnaryOp op, Expr a) { return std::make_shared<const Unary>(op, std::move(a)); }
Expr Cast::make(DType to, Expr a, RoundMode mode) {
  PTO_INTERNAL_CHECK(a->type.tile || (mode == RoundMode::Default && ((to == DType::f32 && a->type.dtype == DType::i64) ||
                                                                      (to == DType::i64 && a->type.dtype == DType::f32))))
      << "a scalar conversion other than i64 <-> f32";
  if (const auto* i = a.as<IntImm>(); i && !a->type.tile) return FloatImm::make(static_cast<float>(i->value), DType::f32);
  if (const auto* f = a.as<FloatImm>(); f && !a->type.tile) return IntImm::make(f32_to_i64(static_cast<float>(f->value)));
  return std::make_shared<const Cast>(to, std::move(a), mode);
}
const char* round_mode_name(RoundMode m) {
  switch (m) {
    case RoundMode::Default: return "default";
    case RoundMode::CAST_NONE: return "CAST_NONE";
    case RoundMode::CAST_RINT: return "CAST_RINT";
    case RoundMode::CAST_ROUND: return "CAST_ROUND";
    case RoundMode::CAST_FLOOR: return "CAST_FLOOR";
    case RoundMode::CAST_CEIL: return "CAST_CEIL";
    case RoundMode::CAST_TRUNC: return "CAST_TRUNC";
    case RoundMode::CAST_ODD: return "CAST_ODD";
  }
  return "?";
}
Expr Select::make(Expr cond, Expr a, Expr b) {
  // The result is a tile when either branch is (a scalar branch broadcasts).
  const Type t = a->type.tile ? a->type : b->type;
  auto node = std::make_shared<Select>(std::move(cond), std::move(a), std::move(b));
  node->type = t;
  return std::shared_ptr<const Select>(std::move(node));
}
Expr TileRead::make(TileRef t, DType dtype, bool row_broadcast, bool col_broadcast) {
  return std::make_shared<const TileRead>(std::move(t), dtype, row_broadcast, col_broadcast);
}

Expr TileValid::make(TileRef t, int axis, bool stored) { return std::make_shared<const TileValid>(std::move(t), axis, stored); }

Stmt Seq::make(std::vector<Stmt> body) { return std::make_shared<const Seq>(std::move(body)); }
Stmt For::make(Expr var, Expr begin, Expr end, Expr step, Stmt body, int instr, SourceLoc loc) {
  return std::make_shared<const For>(std::move(var), std::move(begin), std::move(end), std::move(step), std::move(body), instr, std::move(loc));
}
Stmt LoopExit::make(bool brk) { return std::make_shared<const LoopExit>(brk); }
Stmt IfThenElse::make(Expr cond, Stmt then_case, Stmt else_case) {
  return std::make_shared<const IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case));
}
Stmt Assign::make(Expr var, Expr value) { return std::make_shared<const Assign>(std::move(var), std::move(value)); }
Stmt Load::make(TileRef dst, GMRegion src, Instr instr) {
  return std::make_shared<const Load>(std::move(dst), std::move(src), std::move(instr));
}
Stmt Store::make(GMRegion dst, TileRef src, Instr instr, bool atomic_add, bool relu, Expr scale) {
  return std::make_shared<const Store>(std::move(dst), std::move(src), atomic_add, relu, std::move(scale), std::move(instr));
}
Stmt VecCompute::make(TileRef dst, Expr value, Instr instr, std::array<Expr, 2> extent) {
  return std::make_shared<const VecCompute>(std::move(dst), std::move(value), std::move(instr), std::move(extent));
}
Stmt RowReduce::make(ReduceOp op, TileRef dst, Expr value, Instr instr, std::array<Expr, 2> extent, int axis) {
  return std::make_shared<const RowReduce>(op, std::move(dst), std::move(value), std::move(instr), std::move(extent), axis);
}

Stmt Move::make(TileRef dst, TileRef src, MoveAttrs attrs, Instr instr) {
  return std::make_shared<const Move>(std::move(dst), std::move(src), std::move(attrs), std::move(instr));
}
Stmt ElemAccess::make(bool write, TileRef tile, int tensor, Expr offset, Expr var, Expr value, Instr instr) {
  PTO_INTERNAL_CHECK((tile.group >= 0) != (tensor >= 0)) << "an element access names one tile or one tensor";
  PTO_INTERNAL_CHECK(write ? static_cast<bool>(value) && !var : var.as<Var>() != nullptr) << "an element access's operands";
  return std::make_shared<const ElemAccess>(write, std::move(tile), tensor, std::move(offset), std::move(var), std::move(value), std::move(instr));
}

Stmt SetValid::make(TileRef tile, Expr rows, Expr cols, Instr instr) {
  return std::make_shared<const SetValid>(std::move(tile), std::move(rows), std::move(cols), std::move(instr));
}
const char* acc_to_vec_name(AccToVec m) {
  switch (m) {
    case AccToVec::SingleModeVec0: return "SingleModeVec0";
    case AccToVec::SingleModeVec1: return "SingleModeVec1";
    case AccToVec::DualModeSplitM: return "DualModeSplitM";
    case AccToVec::DualModeSplitN: return "DualModeSplitN";
  }
  return "?";
}
Stmt Matmul::make(TileRef dst, TileRef a, TileRef b, bool accumulate, Instr instr, TileRef bias) {
  return std::make_shared<const Matmul>(std::move(dst), std::move(a), std::move(b), accumulate, std::move(bias), std::move(instr));
}
const char* routine_name(Routine r) {
  switch (r) {
    case Routine::Gather: return "gather";
    case Routine::GatherB: return "gatherb";
    case Routine::GatherMask: return "gathermask";
    case Routine::Scatter: return "scatter";
    case Routine::FillPad: return "fillpad";
    case Routine::Sort32: return "sort32";
    case Routine::MrgSort: return "mrgsort";
    case Routine::MrgSort2: return "mrgsort2";
    case Routine::Transpose: return "transpose";
    case Routine::Iota: return "iota";
  }
  return "?";
}
const char* tile_pad_name(TilePad p) {
  switch (p) {
    case TilePad::Null: return "null";
    case TilePad::Zero: return "zero";
    case TilePad::Max: return "max";
    case TilePad::Min: return "min";
  }
  return "?";
}
Stmt VecRoutine::make(Routine routine, std::vector<TileRef> operands, int writes, std::array<int64_t, 2> params, Instr instr) {
  return std::make_shared<const VecRoutine>(routine, std::move(operands), writes, params, std::move(instr));
}
Stmt Section::make(CoreKind core, Stmt body, SourceLoc loc) {
  return std::make_shared<const Section>(core, std::move(body), std::move(loc));
}

const char* debug_op_name(DebugOp op) {
  switch (op) {
    case DebugOp::Printf: return "printf";
    case DebugOp::Assert: return "pto_assert";
    case DebugOp::Trap: return "trap";
    case DebugOp::Dump: return "dump_data";
  }
  return "?";
}

Stmt Debug::make(DebugOp op, std::string format, std::vector<Expr> args, Expr cond, TileRef tile, std::array<Expr, 2> offset,
                 std::array<Expr, 2> extent, Instr instr, GMRegion region) {
  return std::make_shared<const Debug>(op, std::move(format), std::move(args), std::move(cond), std::move(tile), std::move(offset),
                                       std::move(extent), std::move(region), std::move(instr));
}

std::string describe_instr(const Kernel& k, int id, const std::string& where) {
  const InstrInfo& info = k.instrs.at(static_cast<size_t>(id));
  return fmt::format("#{} {} [{}] at {}", id, info.text.empty() ? info.op : info.text, where, info.loc.str());
}

const char* kernel_mode_name(KernelMode m) {
  switch (m) {
    case KernelMode::Auto: return "auto";
    case KernelMode::Vector: return "vector";
    case KernelMode::Cube: return "cube";
    case KernelMode::Mix: return "mix";
  }
  return "?";
}

const char* core_kind_name(CoreKind k) { return k == CoreKind::AIC ? "AIC" : "AIV"; }

const char* sync_all_scope_name(SyncAllScope s) {
  switch (s) {
    case SyncAllScope::None: return "none";
    case SyncAllScope::AIV: return "every AIV";
    case SyncAllScope::AIC: return "every AIC";
    case SyncAllScope::All: return "every core";
  }
  return "?";
}

bool takes_part_in_sync_all(SyncAllScope s, KernelMode mode, CoreKind kind) {
  if (s == SyncAllScope::None) return false;
  if (mode != KernelMode::Mix || s == SyncAllScope::All) return true;  // one kind of core, or all of them
  return (s == SyncAllScope::AIV) == (kind == CoreKind::AIV);
}

Stmt Sync::make(SyncOp op, Pipe src, Pipe dst, Expr event, TileRef tile, Instr instr) {
  return std::make_shared<const Sync>(op, src, dst, std::move(event), std::move(tile), std::move(instr));
}

Stmt Check::make(Expr cond, RuntimeCheck check, int instr, int axis, std::array<Expr, 3> args) {
  return std::make_shared<const Check>(std::move(cond), check, instr, axis, std::move(args));
}

}  // namespace pto::ir

namespace pto {

const char* runtime_check_name(RuntimeCheck c) {
  switch (c) {
    case RuntimeCheck::ok: return "ok";
    case RuntimeCheck::region_negative: return "region_negative";
    case RuntimeCheck::region_out_of_bounds: return "region_out_of_bounds";
    case RuntimeCheck::region_over_tile: return "region_over_tile";
    case RuntimeCheck::region_misaligned: return "region_misaligned";
    case RuntimeCheck::store_beyond_valid: return "store_beyond_valid";
    case RuntimeCheck::operand_smaller: return "operand_smaller";
    case RuntimeCheck::index_out_of_range: return "index_out_of_range";
    case RuntimeCheck::routine_extent: return "routine_extent";
    case RuntimeCheck::view_out_of_tile: return "view_out_of_tile";
    case RuntimeCheck::view_overlap: return "view_overlap";
    case RuntimeCheck::dim_index_out_of_range: return "dim_index_out_of_range";
    case RuntimeCheck::negative_stride: return "negative_stride";
    case RuntimeCheck::view_outside_storage: return "view_outside_storage";
    case RuntimeCheck::result_over_tile: return "result_over_tile";
    case RuntimeCheck::range_step: return "range_step";
    case RuntimeCheck::matmul_k_mismatch: return "matmul_k_mismatch";
    case RuntimeCheck::cross_event_range: return "cross_event_range";
    case RuntimeCheck::instruction_budget: return "instruction_budget";
    case RuntimeCheck::trap: return "trap";
    case RuntimeCheck::assert_failed: return "assert_failed";
    case RuntimeCheck::offset_negative: return "offset_negative";
    case RuntimeCheck::window_past_valid: return "window_past_valid";
  }
  return "?";
}

}  // namespace pto
