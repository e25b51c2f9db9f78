#pragma once
// The LLVM code generator (lowered IR -> one function `void symbol(CoreContext*)`), in parts:
//   CodeGen.cpp         the function, its context loads, instrumentation, loops and tile storage
//   CodeGenExpr.cpp     scalars and tile expressions (element-wise and row reductions), per
//                       docs/semantics.md
//   CodeGenMove.cpp     GM <-> tile transfers, moves between local memories, matmul
//   CodeGenChecks.cpp   ir::Check, GM regions and the extents of tile expressions
//   CodeGenControl.cpp  statements (driven by ir::Visitor), loops, branches, sections, sync
//   CodeGenDebug.cpp    printf, assert, dump, trap
//   CodeGenRounding.cpp pl::cast's rounding modes
//   CodeGenMath.cpp     exp, log, tanh, sigmoid, erf, sin, cos, pow as inline IR (math/MathKernels.hpp)
//   CodeGenRoutine.cpp  gather, scatter, fillpad, sorting (ir::VecRoutine, one runtime function)
//   CodeGenElem.cpp     getval / setval (ir::ElemAccess, two runtime functions)
// Tile loops are simple counted loops over contiguous rows, so the loop vectoriser makes each
// fused vector instruction SIMD code. Private to the backend: LLVM headers stay in backend/src.
#include <array>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../LLVMHeaders.hpp"
#include "pto/backend/ChipProfile.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/ir/Kernel.hpp"
#include "pto/ir/Visitor.hpp"
#include "pto/backend/LoadElision.hpp"
#include "pto/backend/RowFusion.hpp"
#include "pto/backend/TileInlining.hpp"
#include "pto/backend/StoreForwarding.hpp"

namespace pto::backend::codegen {

using llvm::BasicBlock;
using llvm::Value;

class CodeGen : private ir::Visitor {
 public:
  /// `only`: emit the code one kind of core runs (a mix kernel's AIC or AIV part): the other
  /// kind's sections are left out and the core kind is a constant. `elide_copies`: load elision
  /// and store forwarding (CompileOptions::elide_copies); `fuse_rows`: row fusion.
  CodeGen(const ir::Kernel& k, const ChipProfile& chip, llvm::Module& m, const std::string& symbol, const llvm::TargetMachine& tm,
          bool instrument, bool elide_copies, bool fuse_rows, std::optional<ir::CoreKind> only = std::nullopt);

  /// Emits the kernel's function into the module.
  void run();

 private:
  // A tile read -> its current row; a row-broadcast ({rows, 1}) read -> its value in that row.
  using LeafRows = std::unordered_map<const ir::TileRead*, Value*>;
  struct Extent {
    Value* rows;
    Value* cols;
  };
  struct Region {  // a GM region's offsets and extents, checked, and its view (ir::GMRegion)
    Value* off[2];
    Value* ext[2];
    Value* view[2];
    Value* base;       // elements from the tensor's first element to the view's origin
    Value* stride[2];  // elements per row / per column (constants unless a dimension is dynamic)
    /// Whether the columns are contiguous (stride 1, known when compiling): rows copy as runs.
    bool unit_columns() const {
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(stride[1]);
      return c && c->isOne();
    }
  };
  struct LoopBlocks {
    BasicBlock *latch, *exit;
  };

  // ---------------------------------------------------------------- CodeGen.cpp: function and storage
  Value* ctx_field(size_t offset) { return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), ctx_, offset); }
  /// Calls the runtime function at `field` (offsetof(RuntimeFunctions, ...)) through ctx->rt.
  llvm::CallInst* rt_call(size_t field, llvm::Type* result, llvm::ArrayRef<llvm::Type*> params, llvm::ArrayRef<Value*> args);
  /// Loads the context fields (tensors, arenas, scalars, block indices, hooks) in the entry block.
  void setup();
  /// Reports an executed instruction to the pipeline model (see KernelABI.hpp).
  void report(const ir::StmtNode* s, int instr, Value* amount, Value* gm_lo = nullptr, Value* gm_hi = nullptr);
  /// A hook's record (HookRecord.hpp): with a hook cursor in the context, room for the record at
  /// it and `packs` (if given) true, writes `words` words there (`write(at)`, with the core's
  /// hook tag to OR into the first) and moves the cursor on; else `call()` calls the hook.
  void hook_record(Value* packs, size_t words, const std::function<void(Value* at, Value* tag)>& write, const std::function<void()>& call);
  /// Allocas live in the entry block, where mem2reg promotes them to registers.
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const std::string& name = "");
  llvm::AllocaInst* loop_slot(const ir::Var* var);
  /// for (i = 0; i < count; ++i) body(i), count >= 0 at run time.
  llvm::BranchInst* counted_loop(Value* count, const std::function<void(Value*)>& body, const char* name);
  /// Sets the loop of `latch`'s metadata: these llvm.loop.* hints, replacing any it had.
  void set_loop_hints(llvm::BranchInst* latch, std::initializer_list<std::pair<const char*, llvm::Constant*>> hints);
  /// Asks the loop vectoriser to run `count` vector iterations of the loop side by side.
  void set_interleave(llvm::BranchInst* latch, int count);
  /// Asks the loop vectoriser to widen the loop to `width` lanes.
  void set_vectorize_width(llvm::BranchInst* latch, int width);
  /// The interleave count for an element loop with a transcendental function over rows of `cols`.
  static int math_interleave(int64_t cols);

  const ir::TileGroup& group(const ir::TileRef& t) const { return k_.groups[t.group]; }
  Value* tile_base(const ir::TileRef& t) { return tile_base_in(arena_[static_cast<size_t>(group(t).space)], t); }
  /// The tile's slot in `arena`: this core's memory of its space, or a peer core's (cross-core moves).
  Value* tile_base_in(Value* arena, const ir::TileRef& t);
  Value* peer_arena(int i) { return b_.CreateLoad(b_.getPtrTy(), ctx_field(abi::kPeer + i * sizeof(void*)), "peer"); }
  Value* valid_ptr(const ir::TileRef& t, int axis);
  Value* valid(const ir::TileRef& t, int axis) { return b_.CreateLoad(b_.getInt64Ty(), valid_ptr(t, axis)); }
  void set_valid(const ir::TileRef& t, Value* rows, Value* cols);
  llvm::Type* storage_type(DType t);
  llvm::Type* compute_type(DType t);

  // ---------------------------------------------------------------- CodeGenExpr.cpp: scalars and tile expressions
  /// An i64 scalar expression (i1 for a boolean).
  Value* scalar(const ir::Expr& e);
  /// Storage value of dtype `t` -> its compute type.
  Value* widen(Value* v, DType t);
  /// Compute value of dtype `t` -> storage of `t` (rounded to nearest even, or wrapped).
  Value* narrow(Value* v, DType t);
  Value* float_to_bf16_bits(Value* f);
  /// Compute value of dtype `from` -> compute value of dtype `to`, rounded to `to`'s precision.
  Value* convert(Value* v, DType from, DType to);
  // ---------------------------------------------------------------- CodeGenRounding.cpp: pl::cast's RoundMode
  /// convert, rounded by `mode` (interp::convert_mode, CastRounding.hpp).
  Value* convert_mode(Value* v, DType from, DType to, ir::RoundMode mode);
  /// The narrow format `to` (f16 / bf16 from a float, f32 from a double): nearest-even bits,
  /// the bits back in the wide type, and the bits rounded by `mode`.
  Value* rne_bits(Value* w, DType to);
  Value* bits_to_wide(Value* bits, DType to);
  Value* narrow_mode(Value* w, DType to, ir::RoundMode mode);
  Value* round_integral(Value* f, ir::RoundMode mode);
  /// A scalar (i64 index value, boolean, integer or float constant) converted to compute type `to`.
  Value* broadcast_scalar(const ir::Expr& e, llvm::Type* to);
  /// The element at column `col` of tile expression `e` in compute type `ctx_type`; each tile
  /// read's current row pointer comes from `rows`.
  Value* element(const ir::Expr& e, Value* col, const LeafRows& rows, llvm::Type* ctx_type);
  Value* intrinsic(llvm::Intrinsic::ID id, Value* a, Value* c = nullptr);
  /// exp, log, tanh, sigmoid, erf, sin or cos of a float, inline (CodeGenMath.cpp): the same
  /// operations as the interpreter's pto::math (pto/backend/Math.hpp), so the same bits.
  Value* math(ir::UnaryOp op, Value* a);
  Value* math_pow(Value* x, Value* y);  ///< pto::math::pow inlined (CodeGenMath.cpp)
  /// max/min of docs/semantics.md, spelled out rather than left to llvm.maxnum's target lowering
  /// (which may return either zero on ties): a NaN `c` gives `a`, else a NaN `a` gives `c`;
  /// equal values give the AND (max: +0 over -0) or OR (min) of their bits; else the larger
  /// (smaller) one.
  Value* float_max_min(Value* a, Value* c, bool max);  // scalars or vectors alike
  /// pl::Float arithmetic and comparisons (f32 scalars held as their bits in an i64).
  Value* float_scalar(const ir::Binary* op);
  /// Integer comparisons, max and min: signed, except booleans (i1), which are 0 and 1.
  Value* int_order(ir::BinaryOp op, Value* a, Value* c);
  /// Shl / Shr (arithmetic) with ir::int_binary's meaning: a count not below the width gives 0
  /// (Shl) or the sign fill (Shr) instead of LLVM's poison.
  Value* int_shift(ir::BinaryOp op, Value* a, Value* c);
  Value* binary(ir::BinaryOp op, Value* a, Value* c, bool fp);
  Value* unary(ir::UnaryOp op, Value* a, bool fp);
  LeafRows leaf_bases(const std::vector<const ir::TileRead*>& leaves);
  LeafRows leaf_rows(const LeafRows& bases, Value* r);
  /// What the loops of a tile expression (VecCompute, RowReduce) start from.
  struct TileExprLoop {
    Extent ext;             // rows, cols (insert_checks)
    LeafRows bases;         // each tile read's slot
    Value* dst;             // the destination's slot
    llvm::Type* dst_type;   // its storage type
    llvm::Type* compute;    // the expression's compute type
  };
  /// A tile expression instruction's expression, inlined tiles' reads replaced (TileInlining.hpp).
  const ir::Expr& value_of(const ir::StmtNode* s) const { return inlining_.value_of(s); }
  /// `s`: the instruction being emitted (VecCompute or RowReduce), whose reads may be elided.
  TileExprLoop tile_expr_loop(const ir::StmtNode* s, const ir::Expr& value, const ir::TileRef& dst, const std::array<ir::Expr, 2>& ext);
  void vec_compute(const ir::VecCompute* op);
  /// Rows [first, first + count) of a VecCompute's expression into `dst`, `pitch` elements from
  /// row to row. With `streamed` (an i1, true at run time), each row's whole 64-byte lines are
  /// written with non-temporal stores straight from the registers (a store into GM that streams
  /// past the host's caches; the core fences when it returns).
  void compute_rows(const ir::VecCompute* op, const TileExprLoop& loop, Value* dst, Value* pitch, Value* first, Value* count,
                    Value* streamed = nullptr);
  /// Rows [first, first + count) of a fused instruction (RowFusion.hpp: a VecCompute into its
  /// tile, or a RowReduce along rows) computed into its destination.
  void expr_rows(const ir::StmtNode* s, const TileExprLoop& loop, Value* first, Value* count);
  /// What a fused instruction does once its rows are computed: its destination's valid extent,
  /// and its report to the pipeline model.
  void expr_done(const ir::StmtNode* s, const Extent& ext);
  /// The statements [first, first + run.length) of a flattened list, a row fusion run.
  void fused_run(const std::vector<ir::Stmt>& flat, size_t first, const RowFusion::Run& run);
  /// A float row reduction in 8 lanes (docs/semantics.md): column c goes to lane c % 8, each lane
  /// combines its columns in order starting from `init`, and the lanes are combined as
  /// ((l0 . l1) . (l2 . l3)) . ((l4 . l5) . (l6 . l7)) — a sum's one defined order, the same on
  /// every host and in the interpreter. The lanes are one <8 x ct> vector: each full group of 8
  /// columns is combined into it by one vector operation (from a row chunk computed element-wise
  /// first), with no reassociation. `order_free`
  /// (max, min: the same result in any order) may use more lanes, so more chains run at once.
  /// One result per row of `rows` (the rows' loops run side by side; each row's order is the same).
  std::vector<Value*> float_row_lanes(const ir::Expr& value, Value* cols, std::span<const LeafRows> rows, llvm::Type* ct,
                                      Value* init, const std::function<Value*(Value*, Value*)>& combine, bool order_free);
  void row_reduce(const ir::RowReduce* op);
  /// Rows [first, first + count) of a reduction along rows (sum, max, min) into its destination.
  void reduce_rows(const ir::RowReduce* op, const TileExprLoop& loop, Value* first, Value* count);
  /// A reduction's starting value in compute type `ct`, and one step of it.
  Value* reduce_init(ir::ReduceOp op, llvm::Type* ct);
  Value* reduce_step(ir::ReduceOp op, Value* cur, Value* v, bool fp);
  void arg_reduce(const ir::RowReduce* op);

  // ---------------------------------------------------------------- CodeGenChecks.cpp: checks, regions, extents
  /// Continues when `ok` holds; otherwise reports `chk` for instruction `instr` and returns.
  void check(Value* ok, int instr, RuntimeCheck chk, int axis, Value* a, Value* bv, Value* cv = nullptr);
  /// ir::Check: the one runtime check the IR spells out (insert_checks).
  void visit_node(const ir::Check* op) override;
  /// The GM region of a transfer (insert_checks has checked it).
  Region region(const ir::GMRegion& r);
  /// [lo, hi) of the GM elements a region touches, flattened over its view (lo == hi: empty).
  std::pair<Value*, Value*> gm_interval(const ir::GMRegion& r, const Region& reg);
  Value* gm_address(const ir::GMRegion& r, const Region& reg, int64_t es);
  /// The extent of a tile expression, as insert_checks made it explicit (docs/semantics.md).
  Extent extent(const std::array<ir::Expr, 2>& e);

  // ---------------------------------------------------------------- CodeGenMove.cpp: transfers, moves, matmul
  /// Copies `rows` rows of `cols` elements between GM (pitch `gm_pitch`) and a tile (pitch
  /// `tile_pitch`); `streaming` (an i1, constant unless the tensor's size is dynamic): through the
  /// runtime's cache-bypassing copies.
  void copy_rows(Value* gm, Value* gm_pitch, Value* tile, int64_t tile_pitch, Value* rows, Value* cols, int64_t es,
                 bool to_tile, Value* streaming);
  /// Whether a transfer with tensor `tensor` (all its elements, of `es` bytes) streams (an i1).
  Value* streams(int tensor, int64_t es);
  /// Copies rows x cols elements between GM (element (r, c) at r * row_stride + c * col_stride)
  /// and a tile (pitch `tile_pitch`), element by element: a region of a view whose columns are
  /// not contiguous (a permuted tensor).
  void copy_elements(Value* gm, Value* row_stride, Value* col_stride, Value* tile, int64_t tile_pitch, Value* rows, Value* cols,
                     int64_t es, bool to_tile);
  /// Prefetch hints for the GM region of `op` (no checks: a hint on a bad address is harmless
  /// only if it is never dereferenced, so the address is clamped into the tensor).
  void prefetch(const ir::Load* op);
  /// Calls CoreContext::yield when the emulator set it (vector kernels, before a run of GM loads).
  void yield_point();
  void load(const ir::Load* op);
  void store(const ir::Store* op);
  /// A store's report to the pipeline model (its GM interval and bytes).
  void store_report(const ir::Store* op, const Region& reg);
  /// A GM region read in place (an elided load's rows): `rows` x `cols` elements of `elem_bytes`.
  struct GMRead {
    Value* base;
    Value* pitch;
    Value* rows;
    Value* cols;
    int64_t elem_bytes;
  };
  /// A forwarded store (StoreForwarding.hpp): `v`'s expression into GM region `reg` when the
  /// region is its extent and lies apart from every GM region the expression (and `other_reads`,
  /// a row fusion run's) reads: straight into GM (a streaming store's whole lines non-temporal);
  /// else into the tile and then copied. Begin (the decision), the rows
  /// [first, first + count), then end (the copy, if any).
  struct ForwardedStore {
    const ir::Store* op;
    const ir::VecCompute* v;
    Region reg;
    int64_t es;
    TileExprLoop loop;
    Value *gm = nullptr, *direct = nullptr, *streaming = nullptr;
  };
  ForwardedStore forwarded_store_begin(const ir::Store* op, const ir::VecCompute* v, const Region& reg, int64_t es,
                                       std::span<const GMRead> other_reads);
  void forwarded_store_rows(const ForwardedStore& f, Value* first, Value* count);
  void forwarded_store_end(const ForwardedStore& f);
  /// Copies rows x cols elements from a tile of `from` (pitch `tile_pitch`) to GM of `to` (pitch
  /// `gm_pitch`), converting each element (FIX's conversion on the way out of Acc), after the
  /// store's relu and `scale` (an f32 value, or null), as ir::Store defines them.
  void convert_rows(Value* gm, Value* gm_pitch, Value* gm_col_stride, DType to, Value* tile, int64_t tile_pitch, DType from, Value* rows, Value* cols,
                    bool relu = false,
                    Value* scale = nullptr);
  void move(const ir::Move* op);
  /// Acc -> Vec on the AIC: each receiving AIV's part of the accumulator (ir::AccToVec), converted
  /// to the Vec tile's dtype, lands at row 0, column 0 of that AIV's tile slot.
  void move_acc_to_vec(const ir::Move* op);
  /// Vec -> Mat on an AIV: the source's valid region lands at `offset` in its AIC's tile slot.
  void move_vec_to_mat(const ir::Move* op);
  /// dst[c, r] = src[r, c] for r < rows, c < cols (elements of `et`; pitches in elements; the
  /// source may be an elided load's GM region, of a runtime pitch).
  void transpose_tile(Value* dst, int64_t dst_pitch, Value* src, Value* src_pitch, Value* rows, Value* cols, llvm::Type* et);
  /// rows x cols elements of `es` bytes between two tiles of row pitches `dst_pitch` and `src_pitch` elements.
  /// Equal pitches and whole rows copy as one run.
  void copy_tile_rows(Value* dst, int64_t dst_pitch, Value* src, int64_t src_pitch, Value* rows, Value* cols, int64_t es);
  void copy_tile_row_by_row(Value* dst, int64_t dst_pitch, Value* src, int64_t src_pitch, Value* rows, Value* cols, int64_t es);
  /// pl::set_validshape (insert_checks: a non-negative extent within the tile).
  void set_valid_shape(const ir::SetValid* op);
  void matmul(const ir::Matmul* op);
  // ---------------------------------------------------------------- CodeGenRoutine.cpp
  void vec_routine(const ir::VecRoutine* op);
  // ---------------------------------------------------------------- CodeGenElem.cpp
  /// pl::getval / pl::setval (ir::ElemAccess).
  void elem_access(const ir::ElemAccess* op);

  // ---------------------------------------------------------------- CodeGenControl.cpp: statements
  /// Emits statement `s` (ir::Visitor dispatches to the visit_node overrides below).
  void stmt(const ir::Stmt& s) { visit(s); }
  void visit_node(const ir::Seq* op) override;
  void visit_node(const ir::For* op) override;
  void visit_node(const ir::LoopExit* op) override;
  void visit_node(const ir::IfThenElse* op) override;
  void visit_node(const ir::Assign* op) override;
  void visit_node(const ir::Load* op) override { load(op); }
  void visit_node(const ir::Store* op) override { store(op); }
  void visit_node(const ir::VecCompute* op) override { vec_compute(op); }
  void visit_node(const ir::RowReduce* op) override { row_reduce(op); }
  void visit_node(const ir::Sync* op) override { sync(op); }
  void visit_node(const ir::Move* op) override { move(op); }
  void visit_node(const ir::Matmul* op) override { matmul(op); }
  void visit_node(const ir::VecRoutine* op) override { vec_routine(op); }
  void visit_node(const ir::SetValid* op) override { set_valid_shape(op); }
  void visit_node(const ir::ElemAccess* op) override { elem_access(op); }
  void visit_node(const ir::Section* op) override { section(op); }
  void visit_node(const ir::Debug* op) override { debug(op); }
  void sync(const ir::Sync* op);
  /// Cross-core flags go to the emulator's block scheduler, timed or not; a nonzero answer
  /// (deadlock) ends the core at once.
  void cross_core(const ir::Sync* op);
  void section(const ir::Section* op);

  // ---------------------------------------------------------------- CodeGenDebug.cpp: debugging aids
  /// Calls the emulator's debug hook; a nonzero answer (trap, fatal assertion) ends the core.
  Value* call_debug(const ir::Debug* op, Value* args, Value* data, Value* rows, Value* cols, Value* pitch);
  void stop_if(Value* r, const char* name);
  void debug(const ir::Debug* op);

  // ---------------------------------------------------------------- state
  const ir::Kernel& k_;
  const ChipProfile& chip_;
  llvm::Module& m_;
  llvm::LLVMContext& c_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  Value* ctx_ = nullptr;
  Value* rt_ = nullptr;  // ctx->rt, the runtime functions' table
  Value* core_kind_ = nullptr;
  Value* subblock_idx_ = nullptr;
  Value* subblock_num_ = nullptr;
  Value* block_idx_ = nullptr;
  Value* block_num_ = nullptr;
  std::vector<Value*> tensor_base_;
  LoadElision elision_;  // loads that copy nothing, and the tile reads that read their GM instead
  StoreForwarding forwarding_;  // stores that compute their VecCompute into GM, and those VecComputes
  RowFusion fusion_;            // runs of tile expressions computed a block of rows at a time
  TileInlining inlining_;       // tile expressions of runs computed where they are read
  struct GMRows {
    Value* base;   // the region's first element
    Value* pitch;  // elements from one row to the next
  };
  std::unordered_map<const ir::Load*, GMRows> elided_;  // the latest emission of each elided load
  std::unordered_map<const ir::Move*, GMRows> elided_moves_;  // ... and of each forwarded move
  const ir::StmtNode* expr_stmt_ = nullptr;  // the tile expression's instruction (tile_expr_loop)
  /// Where tile read `l` of that instruction reads an elided load's GM region; null: its slot.
  const GMRows* elided_read(const ir::TileRead* l) const;
  bool math_emitted_ = false;  // set by math() and math_pow(): the element code has a transcendental function
  Value* arena_[6] = {};
  std::vector<Value*> var_slot_;
  std::vector<Value*> valid_;
  std::vector<LoopBlocks> loops_;  // the loops around the statement being emitted, innermost last
  bool instrument_;
  std::optional<ir::CoreKind> only_;
  Value* model_ = nullptr;
  Value* exec_hook_ = nullptr;
  Value* sync_hook_ = nullptr;
  Value* slots_ = nullptr;
  Value* hook_cursor_ = nullptr;  // CoreContext::hook_cursor (instrumented kernels)
  Value* hook_tag_ = nullptr;     // CoreContext::hook_tag
};

}  // namespace pto::backend::codegen
