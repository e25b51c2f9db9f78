#pragma once
#include <type_traits>
// Internals of the reference interpreter: the prepared program (Interpreter.cpp) and compiled
// tile expressions (compiled in InterpretCompile.cpp, evaluated in InterpretTileExpr.cpp).
#include <cstdint>
#include <vector>

#include "pto/backend/Interpreter.hpp"

namespace pto::backend::interp {

/// Compute classes of tile expression values, as CodeGenLLVM's compute_type: float, i32, i1.
enum class Cls : uint8_t { F, I, B };

/// One element in its compute class (B: 0 or 1 in `i`).
union Val {
  float f;
  int32_t i;
};

Cls compute_cls(DType t);

/// Storage of `t` at `p` -> compute value (CodeGen::widen).
Val widen(const uint8_t* p, DType t);
/// Compute value -> storage of `t` at `p` (CodeGen::narrow).
void narrow(Val v, DType t, uint8_t* p);
/// Compute value of `from` -> compute value of `to`, rounded to `to` (CodeGen::convert).
Val convert(Val v, DType from, DType to);
/// convert, rounded by `mode` (CodeGen::convert_mode; CastRounding.hpp).
Val convert_mode(Val v, DType from, DType to, ir::RoundMode mode);
/// The value a store writes from a tile element of `from` at `p` into GM of `to`: widened, with
/// `relu` (x > 0 ? x : 0, NaN and -0 give +0) applied first, then (with a `scale`) multiplied in
/// float by it, then converted (CodeGen::convert_rows).
Val store_value(const uint8_t* p, DType from, DType to, bool relu, const float* scale = nullptr);

/// An i64 wrapped to i32 (two's complement), as the generated code truncates.
inline int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

/// One node of a compiled tile expression; nodes are in post order (operands first).
struct XNode {
  enum class Kind : uint8_t { Leaf, Const, Scalar, Binary, Unary, Cast, Select };
  Kind kind = Kind::Const;
  Cls cls = Cls::F;           // class of the result
  int a = -1, b = -1, c = -1; // operand nodes (Select: c = cond, a/b = branches)
  ir::BinaryOp bop{};
  ir::UnaryOp uop{};
  DType from{}, to{};         // Cast: source and target dtype; Leaf: storage dtype in `from`
  ir::RoundMode mode{};       // Cast: how it rounds
  int leaf = -1;              // Leaf: index into CompiledExpr::leaves
  Val value{};                // Const
  const ir::ExprNode* scalar = nullptr;  // Scalar: an i64 (or bool) scalar expression, broadcast
  bool scalar_float = false;  // Scalar: a runtime float parameter (pl::Float), its i64 slot holds the float's bits
};

struct LeafInfo {
  const ir::TileRead* read = nullptr;
  int group = -1;
};

/// A tile expression prepared for evaluation one row at a time.
struct CompiledExpr {
  std::vector<XNode> nodes;      // post order; the root is last
  std::vector<LeafInfo> leaves;  // distinct TileRead nodes
  DType dtype{};                 // the expression's dtype (op->value->type.dtype)
  Cls cls = Cls::F;              // its compute class
};

/// Compiles `e` (the value of a VecCompute or RowReduce) for kernel `k`.
CompiledExpr compile_tile_expr(const ir::Expr& e, const ir::Kernel& k);

/// The per-call state of one interpretation.
struct Frame {
  CoreContext* ctx = nullptr;
  void* const* tensors = nullptr;
  uint8_t* arena[6] = {};
  int64_t block_idx = 0, block_num = 0, core_kind = 0, subblock_idx = 0, subblock_num = 0;
  void* model = nullptr;
  ExecHook exec = nullptr;
  SyncHook sync = nullptr;
  std::vector<int64_t> vars;   // by Var id
  std::vector<int64_t> valid;  // per group and slot: (rows, cols)
  const int64_t* valid_base = nullptr;  // per group: index of slot 0's rows in `valid`
  const ir::Kernel* kernel = nullptr;
  std::vector<int64_t> slots;  // the exec hook's slot array
  std::vector<Val> scratch;    // tile expression node buffers
  std::vector<const uint8_t*> leaf_base, leaf_row;
};

/// Evaluates a scalar expression (i64; booleans are 0 or 1).
int64_t eval_scalar(const ir::ExprNode* e, const Frame& f);
inline int64_t eval_scalar(const ir::Expr& e, const Frame& f) { return eval_scalar(e.get(), f); }

/// Fills the buffers of constant and scalar nodes (`n` elements each; node i at scratch + i*n).
void fill_scalars(const CompiledExpr& x, const Frame& f, Val* scratch, int64_t n);
/// Evaluates the non-scalar nodes over `n` columns of one row; leaf rows in f.leaf_row.
/// Returns the root's buffer.
const Val* eval_row(const CompiledExpr& x, const Frame& f, Val* scratch, int64_t n);
/// The row reduction step `acc op v` (Sum, Max, Min) as the generated reduction loop computes it.
/// A float row sum in CodeGen::float_row_sum's fixed order (lane c % 8, then a tree of the lanes).
float float_row_sum(const Val* v, int64_t cols);
Val reduce_step(Cls cls, ir::ReduceOp op, Val acc, Val v);
/// The initial value of a row reduction.
Val reduce_init(Cls cls, ir::ReduceOp op);

}  // namespace pto::backend::interp
