#pragma once
// The kernel IR: what tracing a kernel lambda produces and every pass and backend consumes.
//
// Nodes are immutable, reference counted, listed once in the X-macros below; the kind enum,
// the visitor and the mutator are generated from them. Expressions are either scalar (index
// arithmetic in i64, conditions in bool) or tile expressions (a fused vector computation over
// the elements of tiles). Statements are structured control flow plus the AI Core instructions;
// every instruction carries a kernel-unique id and the user's source line.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pto/ir/RuntimeCheck.hpp"
#include "pto/support/DType.hpp"
#include "pto/support/Error.hpp"

namespace pto::ir {

#define PTO_FOR_EACH_IR_EXPR(X) \
  X(IntImm)                     \
  X(FloatImm)                   \
  X(Var)                        \
  X(Binary)                     \
  X(Unary)                      \
  X(Cast)                       \
  X(Select)                     \
  X(TileRead)                   \
  X(TileValid)

#define PTO_FOR_EACH_IR_STMT(X) \
  X(Seq)                        \
  X(For)                        \
  X(IfThenElse)                 \
  X(LoopExit)                   \
  X(Assign)                     \
  X(Load)                       \
  X(Store)                      \
  X(VecCompute)                 \
  X(RowReduce)                  \
  X(VecRoutine)                 \
  X(Move)                       \
  X(Matmul)                     \
  X(SetValid)                   \
  X(ElemAccess)                 \
  X(Section)                    \
  X(Debug)                      \
  X(Sync)                       \
  X(Check)

enum class NodeKind : uint8_t {
#define PTO_X(name) name,
  PTO_FOR_EACH_IR_EXPR(PTO_X) PTO_FOR_EACH_IR_STMT(PTO_X)
#undef PTO_X
};

/// Memory spaces of an AI Core: GM (DDR/HBM), Vec (UB), Mat (L1), Left (L0A), Right (L0B), Acc (L0C).
enum class MemSpace : uint8_t { GM, Vec, Mat, Left, Right, Acc };
const char* mem_space_name(MemSpace s);

/// Pipes of an AI Core. Every instruction runs on exactly one.
enum class Pipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX, ALL };
const char* pipe_name(Pipe p);

struct Node {
  explicit Node(NodeKind k) : kind(k) {}
  virtual ~Node() = default;
  const NodeKind kind;
};

template <class T>
class Handle {
 public:
  Handle() = default;
  Handle(std::shared_ptr<const T> p) : p_(std::move(p)) {}  // NOLINT
  template <class U> requires std::is_base_of_v<T, U>
  Handle(std::shared_ptr<const U> p) : p_(std::move(p)) {}  // NOLINT
  const T* get() const { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  explicit operator bool() const { return p_ != nullptr; }
  bool same_as(const Handle& o) const { return p_ == o.p_; }
  template <class U> const U* as() const {
    return p_ && p_->kind == U::kKind ? static_cast<const U*>(p_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const T> p_;
};

/// The type of an expression: a scalar or a tile of `dtype`.
struct Type {
  DType dtype = DType::i64;
  bool tile = false;
  bool operator==(const Type&) const = default;
};

struct ExprNode : Node {
  ExprNode(NodeKind k, Type t) : Node(k), type(t) {}
  Type type;
};
struct StmtNode : Node {
  using Node::Node;
};
using Expr = Handle<ExprNode>;
using Stmt = Handle<StmtNode>;

// ---------------------------------------------------------------------------------- expressions

struct IntImm : ExprNode {
  static constexpr NodeKind kKind = NodeKind::IntImm;
  int64_t value;
  IntImm(int64_t v, DType t) : ExprNode(kKind, {t, false}), value(v) {}
  static Expr make(int64_t v, DType t = DType::i64);
};
/// The value of an integer constant; nullopt for any other expression.
inline std::optional<int64_t> int_constant(const Expr& e) {
  if (const auto* imm = e.as<IntImm>()) return imm->value;
  return std::nullopt;
}

/// A floating constant; as a tile operand it is broadcast to every element.
struct FloatImm : ExprNode {
  static constexpr NodeKind kKind = NodeKind::FloatImm;
  double value;
  FloatImm(double v, DType t) : ExprNode(kKind, {t, false}), value(v) {}
  static Expr make(double v, DType t = DType::f32);
};

enum class VarKind : uint8_t { Loop, Param, BlockIdx, BlockNum, SubblockIdx, SubblockNum, Mutable };

/// A named scalar. Loop variables, runtime scalar parameters, the block and sub-block index/count
/// (core-dependent: see KernelABI.hpp) and mutable
/// state (tile-group slot counters) are all Vars; `id` is unique within a kernel.
struct Var : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Var;
  std::string name;
  int id;
  VarKind var_kind;
  int param_index;  // for VarKind::Param: index into the runtime scalar arguments
  /// dtype i64, or f32 for a runtime float parameter (pl::Float): its slot holds the float's bits,
  /// and it is used only as a broadcast operand of floating-point tile expressions.
  Var(std::string n, int i, VarKind k, int p, DType t = DType::i64)
      : ExprNode(kKind, {t, false}), name(std::move(n)), id(i), var_kind(k), param_index(p) {}
  static Expr make(std::string name, int id, VarKind kind, int param_index = -1, DType dtype = DType::i64);
};

/// And/Or: logical on booleans, bitwise on integers; Xor, Shl, Shr: integers only; Pow: floating
/// tile expressions only, the C library's powf (docs/semantics.md).
enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Mod, Min, Max, LT, LE, GT, GE, EQ, NE, And, Or, Xor, Shl, Shr, Pow };
const char* binary_op_name(BinaryOp op);
bool is_comparison(BinaryOp op);

/// `a op b` on scalars, or element-wise on tile expressions (a scalar operand is broadcast).
struct Binary : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Binary;
  BinaryOp op;
  Expr a, b;
  Binary(BinaryOp o, Expr x, Expr y, Type t) : ExprNode(kKind, t), op(o), a(std::move(x)), b(std::move(y)) {}
  /// Folds constants for scalars; derives the result type.
  static Expr make(BinaryOp op, Expr a, Expr b);
};

/// Not: bitwise, integers only.
enum class UnaryOp : uint8_t { Neg, Abs, Exp, Log, Sqrt, Rsqrt, Relu, Tanh, Sigmoid, Erf, Sin, Cos, Not };
const char* unary_op_name(UnaryOp op);

struct Unary : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Unary;
  UnaryOp op;
  Expr a;
  Unary(UnaryOp o, Expr x) : ExprNode(kKind, x->type), op(o), a(std::move(x)) {}
  static Expr make(UnaryOp op, Expr a);
};

/// How a conversion rounds (PyPTO Pro's RoundMode; docs/semantics.md, "Conversions"). Default is
/// the language's own rule (pl::cast<U>(x)): nearest even between floats, truncation from float to
/// integer, identity within a dtype. The CAST_* modes are PyPTO Pro's: CAST_NONE truncates float ->
/// integer and rounds to nearest even elsewhere, CAST_RINT nearest even, CAST_ROUND nearest with
/// ties away from zero, CAST_FLOOR / CAST_CEIL / CAST_TRUNC toward -inf / +inf / zero, CAST_ODD
/// round to odd (f32 -> f16 only; elsewhere as CAST_NONE); within one float dtype they round to an
/// integral value.
enum class RoundMode : uint8_t { Default, CAST_NONE, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };
const char* round_mode_name(RoundMode m);

/// Element-wise conversion of a tile expression to `type.dtype`, rounded by `mode`, saturating
/// into integers. On scalars (pl::to_float / pl::to_int): i64 -> f32 to nearest even, f32 -> i64
/// toward zero, saturating, NaN to 0 (mode Default).
struct Cast : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Cast;
  Expr a;
  RoundMode mode;
  Cast(DType to, Expr x, RoundMode m) : ExprNode(kKind, {to, x->type.tile}), a(std::move(x)), mode(m) {}
  static Expr make(DType to, Expr a, RoundMode mode = RoundMode::Default);
};

/// `cond ? a : b`, element-wise for tiles.
struct Select : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Select;
  Expr cond, a, b;
  Select(Expr c, Expr x, Expr y) : ExprNode(kKind, x->type), cond(std::move(c)), a(std::move(x)), b(std::move(y)) {}
  static Expr make(Expr cond, Expr a, Expr b);
};

/// A reference to one slot of a tile group: `group` indexes KernelIR::groups, `slot` is a
/// scalar expression (often the group's runtime slot counter).
/// A rectangular window of a tile slot (`tile.view(row, rows, col, cols)`): rows
/// [offset[0], offset[0] + extent[0]) and columns [offset[1], offset[1] + extent[1]), addressed
/// with the tile's own row pitch. Only tile expressions read and write windows (VecCompute's
/// destination, TileRead); a window's valid extent is its extent, and writing one leaves the
/// slot's valid extent as it was. insert_checks checks that it lies inside the tile.
struct TileWindow {
  std::array<Expr, 2> offset;   // i64 scalars (runtime values allowed)
  std::array<int64_t, 2> extent;
};

struct TileRef {
  int group = -1;
  Expr slot;
  std::optional<TileWindow> window;  // a view of the slot; none: the whole slot
};

/// Reads the elements of a tile inside a tile expression. `row_broadcast`: the tile is one
/// column wide and its value is repeated along each row of the expression's extent.
struct TileRead : ExprNode {
  static constexpr NodeKind kKind = NodeKind::TileRead;
  TileRef tile;
  bool row_broadcast;  // a {rows, 1} operand: its one column along each row
  bool col_broadcast;  // a one-row operand of a multi-row expression: its row down each column (set by insert_checks)
  TileRead(TileRef t, DType d, bool bcast, bool col_bcast = false)
      : ExprNode(kKind, {d, true}), tile(std::move(t)), row_broadcast(bcast), col_broadcast(col_bcast) {}
  static Expr make(TileRef t, DType dtype, bool row_broadcast, bool col_broadcast = false);
};

/// A scalar: the valid extent of a tile slot along `axis` (0 rows, 1 columns) when the expression
/// is evaluated (after every earlier instruction of the core in program order). A slot that
/// nothing has written or declared (0 x 0) reads as its capacity: PyPTO Pro's tiles have their
/// shape as valid shape until set_validshape says otherwise (pl::load(tile, tensor, offsets)).
/// `stored` (made by insert_checks only): the extent as stored, 0 x 0 for a slot never written.
struct TileValid : ExprNode {
  static constexpr NodeKind kKind = NodeKind::TileValid;
  TileRef tile;
  int axis;
  bool stored;
  TileValid(TileRef t, int a, bool st = false) : ExprNode(kKind, {DType::i64, false}), tile(std::move(t)), axis(a), stored(st) {}
  static Expr make(TileRef t, int axis, bool stored = false);
};

// ----------------------------------------------------------------------------------- statements

struct Seq : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Seq;
  std::vector<Stmt> body;
  explicit Seq(std::vector<Stmt> b) : StmtNode(kKind), body(std::move(b)) {}
  static Stmt make(std::vector<Stmt> body);
};

/// `for (var = begin; var < end; var += step) body` at run time; a step <= 0 is a user error
/// raised by the generated code, never an endless loop.
struct For : StmtNode {
  static constexpr NodeKind kKind = NodeKind::For;
  Expr var, begin, end, step;
  Stmt body;
  int instr;      // the loop's scalar-pipe instruction id (reported when the step is not positive)
  SourceLoc loc;
  For(Expr v, Expr b, Expr e, Expr s, Stmt bd, int i, SourceLoc l) : StmtNode(kKind), var(std::move(v)), begin(std::move(b)), end(std::move(e)), step(std::move(s)), body(std::move(bd)), instr(i), loc(std::move(l)) {}
  static Stmt make(Expr var, Expr begin, Expr end, Expr step, Stmt body, int instr, SourceLoc loc);
};

struct IfThenElse : StmtNode {
  static constexpr NodeKind kKind = NodeKind::IfThenElse;
  Expr cond;
  Stmt then_case, else_case;  // else_case may be empty
  IfThenElse(Expr c, Stmt t, Stmt e) : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  static Stmt make(Expr cond, Stmt then_case, Stmt else_case);
};

/// Leaves the innermost enclosing For at run time: `brk` ends the loop, otherwise the rest of the
/// body is skipped and the next iteration starts (pl::break_ / pl::continue_).
struct LoopExit : StmtNode {
  static constexpr NodeKind kKind = NodeKind::LoopExit;
  bool brk;
  explicit LoopExit(bool b) : StmtNode(kKind), brk(b) {}
  static Stmt make(bool brk);
};

/// Assigns a mutable scalar Var.
struct Assign : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Assign;
  Expr var, value;
  Assign(Expr v, Expr x) : StmtNode(kKind), var(std::move(v)), value(std::move(x)) {}
  static Stmt make(Expr var, Expr value);
};

/// A rectangular region of a GM tensor parameter, seen through a (rows, cols) row-major view.
/// 1-D tensors are views of one row. Offsets and extents are runtime scalars.
/// A rectangle of a GM tensor: rows [offset[0], +extent[0]) x columns [offset[1], +extent[1]) of
/// a 2-D view of the tensor whose element (r, c) is at `base + r * stride[0] + c * stride[1]`
/// elements from the tensor's first element. A contiguous 2-D tensor's own view has base 0 and
/// strides (cols, 1); views of N-D tensors fix the leading dimensions (`fixed`: each fixed index
/// is checked against its dimension's extent), permute them, or keep a host view's strides.
struct GMRegion {
  int tensor = -1;                 // index into KernelIR::tensors
  std::array<Expr, 2> view{};      // (rows, cols) of the 2-D view: constants, or a dynamic dimension's Param Var
  std::array<Expr, 2> offset, extent;
  Expr base;                       // null: 0
  std::array<Expr, 2> stride{};    // null: (view[1], 1), row-major
  struct Fixed {
    Expr index, extent;
    int dim;                       // the tensor's dimension the view fixed at `index`
  };
  std::vector<Fixed> fixed;
  Expr storage;                    // a pl::make_tensor view: the tensor's elements, which every element it
                                   // reaches must lie in (and its strides are checked >= 0); null otherwise
};
/// A region's base and strides with the defaults filled in.
inline Expr region_base(const GMRegion& r) { return r.base ? r.base : IntImm::make(0); }
inline Expr region_stride(const GMRegion& r, int d) { return r.stride[d] ? r.stride[d] : d == 0 ? r.view[1] : IntImm::make(1); }

/// Common part of the AI Core instructions.
struct Instr {
  int id = -1;       // unique within the kernel; indexes KernelIR::instrs
  SourceLoc loc;
};

/// GM -> Vec/Mat on MTE2. Sets the tile's valid extent to the region's extent.
struct Load : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::Load;
  TileRef dst;
  GMRegion src;
  Load(TileRef d, GMRegion s, Instr i) : StmtNode(kKind), Instr(std::move(i)), dst(std::move(d)), src(std::move(s)) {}
  static Stmt make(TileRef dst, GMRegion src, Instr instr);
};

/// Vec -> GM on MTE3: writes the region's extent from the tile's valid part.
/// `atomic_add`: each element is added to GM atomically (PyPTO Pro's AtomicType.AtomicAdd) in the
/// tensor's dtype (f32, f16, bf16 or i32), so blocks can accumulate into one region without racing.
/// `relu`: each element x is written as (x > 0 ? x : 0), before any conversion (ReluPreMode::NormalRelu).
struct Store : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::Store;
  GMRegion dst;
  TileRef src;
  bool atomic_add, relu;
  Expr scale;  // an f32 scalar each element is multiplied by after relu, before the conversion; null: none
  Store(GMRegion d, TileRef s, bool atomic, bool r, Expr sc, Instr i)
      : StmtNode(kKind), Instr(std::move(i)), dst(std::move(d)), src(std::move(s)), atomic_add(atomic), relu(r), scale(std::move(sc)) {}
  static Stmt make(GMRegion dst, TileRef src, Instr instr, bool atomic_add = false, bool relu = false, Expr scale = {});
};

/// One fused vector instruction: `dst = value` element-wise over the valid extent of the lead
/// operand of `value` (docs/semantics.md). `extent` (rows, cols), i64 expressions, is made
/// explicit by the insert_checks pass; the engines run over it.
struct VecCompute : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::VecCompute;
  TileRef dst;
  Expr value;
  std::array<Expr, 2> extent;
  VecCompute(TileRef d, Expr v, Instr i, std::array<Expr, 2> e = {})
      : StmtNode(kKind), Instr(std::move(i)), dst(std::move(d)), value(std::move(v)), extent(std::move(e)) {}
  static Stmt make(TileRef dst, Expr value, Instr instr, std::array<Expr, 2> extent = {});
};

/// ArgMax/ArgMin: the index (int32) of the first greatest / least element; NaN is never greater
/// or less, so NaNs are skipped (index 0 when all are NaN or the extent is empty).
enum class ReduceOp : uint8_t { Sum, Max, Min, ArgMax, ArgMin };
inline bool is_arg_reduce(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }
/// "row_sum", "col_argmax", ...: the instruction's name for `axis` 0 (per row) or 1 (per column).
const char* reduce_op_name(ReduceOp op, int axis = 0);

/// Reduces the tile expression `value` on the vector pipe: with axis 0 each row into column 0 of
/// `dst` (valid extent (rows, 1)); with axis 1 each column into row 0 (valid extent (1, cols)),
/// the rows combined in order from the first.
struct RowReduce : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::RowReduce;
  ReduceOp op;
  TileRef dst;
  Expr value;
  std::array<Expr, 2> extent;  // of `value`, as VecCompute::extent
  int axis;                    // 0: per row; 1: per column
  RowReduce(ReduceOp o, TileRef d, Expr v, Instr i, std::array<Expr, 2> e = {}, int ax = 0)
      : StmtNode(kKind), Instr(std::move(i)), op(o), dst(std::move(d)), value(std::move(v)), extent(std::move(e)), axis(ax) {}
  static Stmt make(ReduceOp op, TileRef dst, Expr value, Instr instr, std::array<Expr, 2> extent = {}, int axis = 0);
};

/// Vector instructions that place elements by an index or a rule rather than element by element,
/// each computed by one routine both engines call (pto_rt_vec_routine, KernelABI.hpp); what each
/// computes is in docs/semantics.md. Operands, in order (the first `writes` are written):
///   Gather      out, tmp | src, idx               params: {offset}
///   GatherB     out | src, offsets
///   GatherMask  out | src                         params: {pattern 1..7}
///   Scatter     out | src, idx
///   FillPad     out | src                         params: {mode (FillPadMode), pad (TilePad)}
///   Sort32      out[, tmp] | src, idx
///   MrgSort     out | src                         params: {block_len}
///   MrgSort2    out, tmp | src0, src1[, src2[, src3]]   params: {exhausted}
///   Transpose   out | src
///   Iota        out                           params: {start}
/// Only MrgSort2 with `exhausted` sets valid extents (and its amount) from the data; a routine
/// that does so must be named in runtime/src/emulator/KnownLaunches.cpp, whose repeated launches
/// reuse a profile only when nothing the pipeline model records depends on the data.
enum class Routine : uint8_t { Gather, GatherB, GatherMask, Scatter, FillPad, Sort32, MrgSort, MrgSort2, Transpose, Iota };
const char* routine_name(Routine r);

/// The pad value of a tile (PyPTO Pro's TilePad): what fillpad writes outside the valid extent.
/// Max / Min: +inf / -inf for floating-point tiles, the largest / least number for integers.
enum class TilePad : uint8_t { Null, Zero, Max, Min };
const char* tile_pad_name(TilePad p);

struct VecRoutine : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::VecRoutine;
  Routine routine;
  std::vector<TileRef> operands;
  int writes;
  std::array<int64_t, 2> params;
  VecRoutine(Routine r, std::vector<TileRef> ops, int w, std::array<int64_t, 2> p, Instr i)
      : StmtNode(kKind), Instr(std::move(i)), routine(r), operands(std::move(ops)), writes(w), params(p) {}
  static Stmt make(Routine routine, std::vector<TileRef> operands, int writes, std::array<int64_t, 2> params, Instr instr);
};

enum class SyncOp : uint8_t { SetFlag, WaitFlag, Barrier, MutexLock, MutexUnlock, CrossSet, CrossWait, SyncAll };
const char* sync_op_name(SyncOp op);
/// The ops that meet other cores: the emulator co-schedules them through CoreContext::cross.
inline bool meets_other_cores(SyncOp op) { return op == SyncOp::CrossSet || op == SyncOp::CrossWait || op == SyncOp::SyncAll; }

/// Synchronisation between the pipes of a core — the only orderings between pipes in simulated
/// time. SetFlag/WaitFlag: `src` -> `dst` with event id `event` (0..15). Barrier: `src` (Pipe::ALL
/// joins every pipe). MutexLock/MutexUnlock on pipe `src`: mutex `event` (0..31), or, when `tile` names
/// a group (inserted by auto_mutex), the mutex id of that tile slot. CrossSet/CrossWait on pipe
/// `src`: cross-core flag `event` (0..15) between the AIC and the AIVs of one mix block (an AIC's
/// set reaches both AIVs; an AIC's wait consumes one set from each AIV). SyncAll (pipe ALL): every
/// participating core of the launch arrives with its pipes drained before any goes on
/// (Kernel::sync_all says which cores take part).
struct Sync : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::Sync;
  SyncOp op;
  Pipe src, dst;
  Expr event;
  TileRef tile;
  Sync(SyncOp o, Pipe s, Pipe d, Expr e, TileRef t, Instr in)
      : StmtNode(kKind), Instr(std::move(in)), op(o), src(s), dst(d), event(std::move(e)), tile(std::move(t)) {}
  static Stmt make(SyncOp op, Pipe src, Pipe dst, Expr event, TileRef tile, Instr instr);
};

/// The two kinds of AI Core: AIC (Cube: Mat/Left/Right/Acc, pipes MTE1/MTE2/M/FIX) and AIV
/// (Vector: Vec, pipes MTE2/V/MTE3). Both have the scalar pipe.
enum class CoreKind : uint8_t { AIC, AIV };
const char* core_kind_name(CoreKind k);

/// Acc -> Vec: which AIVs of the block receive an accumulator (PyPTO Pro's AccToVecMode).
/// SingleModeVec0/1: all of it to AIV 0 / AIV 1. DualModeSplitM: AIV 0 gets the first
/// ceil(m / 2) rows, AIV 1 the rest. DualModeSplitN: AIV 0 gets the first min(n, ceil32(n) / 2)
/// columns (all of them when n <= 16), AIV 1 the rest. Each part lands at row 0, column 0 of the
/// receiving AIV's tile slot.
enum class AccToVec : uint8_t { SingleModeVec0, SingleModeVec1, DualModeSplitM, DualModeSplitN };
const char* acc_to_vec_name(AccToVec m);

/// How a Move copies. `cross_core`: the destination tile lives in another core of the block
/// (Acc -> Vec on the AIC writes its AIVs' UB; Vec -> Mat on an AIV writes its AIC's L1).
struct MoveAttrs {
  bool transpose = false;                   // Mat -> Left/Right only
  bool cross_core = false;
  AccToVec split = AccToVec::SingleModeVec0;  // Acc -> Vec only
  std::array<Expr, 2> offset;               // Vec -> Mat: where the source's valid region lands (empty: 0);
                                            // a window (pl::extract): its top-left element in the source
  bool window = false;                      // Mat -> Left/Right: copy the window of the source at `offset`
                                            // that the destination holds, cut to the source's valid extent
  /// Acc -> Vec, made explicit by insert_checks: per receiving AIV, the {first row, rows, first
  /// column, columns} of the accumulator it gets (`split`'s rule); null for an AIV that gets none.
  std::array<std::array<Expr, 4>, 2> parts;
  /// Local moves, made explicit by insert_checks: the rows and columns of the source copied (a
  /// window: from `offset`, cut to what the destination holds).
  std::array<Expr, 2> extent;
};

/// Local-memory copy between two tiles: Mat -> Left/Right on MTE1 (optionally transposed) sets
/// the destination's valid extent to the source's (transposed: swapped). The cross-core paths,
/// Acc -> Vec on FIX (converting float to half/bfloat16 on the way) and Vec -> Mat on MTE3,
/// exist where the chip has them (a5) and write another core's tile: they move data only, and
/// the receiving core declares the extent it got with SetValid (pl::set_validshape).
struct Move : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::Move;
  TileRef dst, src;
  MoveAttrs attrs;
  Move(TileRef d, TileRef s, MoveAttrs a, Instr i)
      : StmtNode(kKind), Instr(std::move(i)), dst(std::move(d)), src(std::move(s)), attrs(std::move(a)) {}
  static Stmt make(TileRef dst, TileRef src, MoveAttrs attrs, Instr instr);
};

/// Declares the valid extent of a tile slot (pl::set_validshape) on the scalar pipe: rows x cols,
/// within the tile's capacity. Needed for data another core moved in, and for reusing a tile
/// for a shorter region without rewriting it.
struct SetValid : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::SetValid;
  TileRef tile;
  Expr rows, cols;
  SetValid(TileRef t, Expr r, Expr c, Instr i)
      : StmtNode(kKind), Instr(std::move(i)), tile(std::move(t)), rows(std::move(r)), cols(std::move(c)) {}
  static Stmt make(TileRef tile, Expr rows, Expr cols, Instr instr);
};

/// One element of a tile slot or of a GM tensor read into a scalar or written from one, on the
/// scalar pipe (pl::getval / pl::setval). `offset` is the element's linear (row-major) index in
/// the tile's rows x cols or in the tensor; insert_checks checks 0 <= offset < that count. The
/// valid extent plays no part and does not change. Read: the Mutable Var `var` = the element (an
/// i64 for an integer element, sign-extended; an f32 Var holding a floating element exactly).
/// Write: the element = `value` (an i64 scalar, or an f32 one: a FloatImm or an f32 Var), converted
/// by value as a tile expression's result is (docs/semantics.md, "getval and setval").
struct ElemAccess : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::ElemAccess;
  bool write;
  TileRef tile;    // group -1 for a tensor element
  int tensor;      // index into KernelIR::tensors, or -1 for a tile element
  Expr offset;
  Expr var;        // read
  Expr value;      // write
  ElemAccess(bool w, TileRef t, int tn, Expr off, Expr v, Expr val, Instr i)
      : StmtNode(kKind), Instr(std::move(i)), write(w), tile(std::move(t)), tensor(tn), offset(std::move(off)), var(std::move(v)),
        value(std::move(val)) {}
  static Stmt make(bool write, TileRef tile, int tensor, Expr offset, Expr var, Expr value, Instr instr);
};

/// Cube matrix multiply on the M pipe: dst(Acc)[m, n] (+)= sum_k a(Left)[m, k] * b(Right)[k, n],
/// m, k from a's valid extent and n from b's; half/bfloat16/float accumulate in float, int8 in
/// int32. `accumulate`: add to dst's current values (its valid extent must cover m x n).
/// dst (+)= a x b; with a `bias` (group >= 0: a [1, >= n] tile of dst's dtype in Mat), dst = bias
/// (every row) + a x b, the bias being the accumulation's start (pto-isa TMATMUL_BIAS).
struct Matmul : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::Matmul;
  TileRef dst, a, b;
  bool accumulate;
  TileRef bias;
  Matmul(TileRef d, TileRef x, TileRef y, bool acc, TileRef bi, Instr i)
      : StmtNode(kKind), Instr(std::move(i)), dst(std::move(d)), a(std::move(x)), b(std::move(y)), accumulate(acc), bias(std::move(bi)) {}
  static Stmt make(TileRef dst, TileRef a, TileRef b, bool accumulate, Instr instr, TileRef bias = {});
};

enum class DebugOp : uint8_t { Printf, Assert, Trap, Dump };
const char* debug_op_name(DebugOp op);

/// A debugging aid on the scalar pipe. Printf: prints `format` with `args` (i64 scalars).
/// Assert: when `cond` is false, prints `format` (fatal when the kernel's options say so).
/// Trap: stops the launch with an error. Dump: prints the elements of `tile` — its valid region,
/// or the window at `offset` of `extent` when given.
struct Debug : StmtNode, Instr {
  static constexpr NodeKind kKind = NodeKind::Debug;
  DebugOp op;
  std::string format;
  std::vector<Expr> args;
  Expr cond;                     // Assert
  TileRef tile;                  // Dump of a tile (group -1 otherwise)
  std::array<Expr, 2> offset, extent;  // Dump window (empty: the valid region)
  GMRegion region;               // Dump of a GM region (tensor -1 otherwise)
  Debug(DebugOp o, std::string f, std::vector<Expr> a, Expr c, TileRef t, std::array<Expr, 2> off, std::array<Expr, 2> ext, GMRegion r,
        Instr i)
      : StmtNode(kKind), Instr(std::move(i)), op(o), format(std::move(f)), args(std::move(a)), cond(std::move(c)), tile(std::move(t)),
        offset(std::move(off)), extent(std::move(ext)), region(std::move(r)) {}
  static Stmt make(DebugOp op, std::string format, std::vector<Expr> args, Expr cond, TileRef tile, std::array<Expr, 2> offset,
                   std::array<Expr, 2> extent, Instr instr, GMRegion region = {});
};

/// A runtime check of instruction `instr`, made explicit by the insert_checks pass: when `cond`
/// (boolean) is false the core stops and reports `check` with `axis` and the i64 values `args`
/// (what they mean: RuntimeCheck). Not an instruction: it costs no time and no budget.
struct Check : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Check;
  Expr cond;
  RuntimeCheck check;
  int instr;
  int axis;
  std::array<Expr, 3> args;
  Check(Expr c, RuntimeCheck k, int i, int a, std::array<Expr, 3> v)
      : StmtNode(kKind), cond(std::move(c)), check(k), instr(i), axis(a), args(std::move(v)) {}
  static Stmt make(Expr cond, RuntimeCheck check, int instr, int axis, std::array<Expr, 3> args);
};

/// Code that runs only on one kind of core of a mix kernel (pl::section_cube / section_vector).
struct Section : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Section;
  CoreKind core;
  Stmt body;
  SourceLoc loc;
  Section(CoreKind c, Stmt b, SourceLoc l) : StmtNode(kKind), core(c), body(std::move(b)), loc(std::move(l)) {}
  static Stmt make(CoreKind core, Stmt body, SourceLoc loc);
};

}  // namespace pto::ir
