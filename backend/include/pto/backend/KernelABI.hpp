#pragma once
// The contract between generated kernel code and the emulator that calls it.
// A compiled kernel is `void kernel(CoreContext*)`, run once per core. It reads its arguments
// and the core's local memories through the context, calls the runtime's functions through
// `CoreContext::rt` (so its machine code refers to no symbol of the process but libc's), and
// reports a failed runtime check by calling `fail`, then returning at once.
#include <cstddef>
#include <cstdint>

#include "pto/ir/RuntimeCheck.hpp"

namespace pto {


struct CoreStatus {
  int32_t failed = 0;
  int32_t instr = -1;
  RuntimeCheck check = RuntimeCheck::ok;
  int32_t axis = 0;   // 0 rows, 1 columns
  int64_t a = 0, b = 0, c = 0;
};

/// Reports one executed instruction to the pipeline model: `amount` is bytes for data movement,
/// elements for vector instructions and m * n * k MACs for a matmul; `slots` the runtime slot of
/// each tile access (in ir::tile_accesses order); [gm_lo, gm_hi) the GM elements touched (empty
/// when lo == hi), for a Vec -> Mat move the destination part, flattened over the tile's rows, and
/// for a matmul its m and n (the cube's cost counts fractal blocks).
using ExecHook = void (*)(void* model, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi);
/// Reports a synchronisation instruction: `event` is the flag event or mutex id, `slot` the tile
/// slot of an automatic mutex (or -1).
using SyncHook = void (*)(void* model, int32_t instr, int64_t event, int64_t slot);

struct CoreContext;
/// A debugging aid (ir::Debug) at instruction `instr`: `args` its scalar arguments; for dump_data
/// the window's first element, its rows and columns and the tile's row pitch in elements; for a
/// failed assertion `rows` is 1. Returns nonzero when the core must stop (trap, fatal assertion).
using DebugHook = int32_t (*)(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols,
                              int64_t pitch);
/// A point where the core meets others (`op` is ir::SyncOp::CrossSet or CrossWait of a mix
/// kernel, or SyncAll), always called (functional co-scheduling needs it, timed or not). Returns
/// nonzero when the core must stop at once (a deadlock was found; the emulator reports it).
using CrossHook = int32_t (*)(CoreContext* ctx, int32_t instr, int32_t op, int64_t event);

/// A point where a vector core may give way to the others its host thread runs (before a run of GM
/// loads); called only when CoreContext::yield is set.
using YieldHook = void (*)(CoreContext* ctx);

/// Where generated code writes its hooks' records itself when the emulator writes a core's hooks
/// down (runtime/src/emulator/HookLog.hpp; the records' words in pto/backend/HookRecord.hpp).
struct HookCursor {
  int64_t* at = nullptr;     // where the next record goes
  int64_t* limit = nullptr;  // any record fits, with hook_record::kAhead words after it, while at <= limit
};

struct RuntimeFunctions;
/// The process's runtime functions (KernelABI.cpp), what every CoreContext points to.
extern const RuntimeFunctions kRuntimeFunctions;

struct CoreContext {
  void* const* tensors;    // GM base pointer of each tensor parameter
  const int64_t* scalars;  // runtime scalar parameters
  uint8_t* arena[6];       // local memory of each ir::MemSpace (GM unused)
  int64_t block_idx;       // get_block_idx(): the block, on every core of it
  int64_t block_num;       // get_block_num(): the launch's block_dim
  CoreStatus* status;
  void* model;             // the core's pipeline model (instrumented kernels only)
  ExecHook exec;
  SyncHook sync;
  int64_t core_kind;       // ir::CoreKind of this core: sections of the other kind are skipped
  int64_t subblock_idx;    // 0 or 1 on the AIVs of a mix kernel, else 0
  int64_t subblock_num;    // 2 in mix kernels, else 1
  void* block;             // the emulator's state of this core's block (mix kernels)
  CrossHook cross;
  const void* program;     // the reference interpreter's kernel (pto_interpret), else unused
  DebugHook debug;
  void* launch;            // the emulator's state of the launch (debug output)
  int64_t budget;          // instructions this core may still run (loops charge their bodies per iteration)
  uint8_t* peer[2];        // mix blocks: on the AIC the Vec arenas of AIV 0 and 1 (Acc -> Vec); on an
                           // AIV, peer[0] is the Mat arena of its AIC (Vec -> Mat); else null
  /// The runtime functions generated code calls: through this table, so that a kernel's machine
  /// code names no symbol of the process and links anywhere (a shared object, the JIT) as it is.
  const RuntimeFunctions* rt = &kRuntimeFunctions;
  /// Set when the emulator interleaves this core with others on one host thread (vector and cube kernels):
  /// generated code calls it before each run of GM loads, and `block` is the interleaving's state.
  YieldHook yield = nullptr;
  /// Set when the core's hooks are written down: generated code then writes an exec record, and a
  /// sync record that packs into one word, at the cursor itself (`hook_tag` ORed into its first
  /// word) and moves the cursor on; it calls `exec` or `sync` (which write the record) only when
  /// the record would pass `limit` or the sync does not pack. Null: the hooks are called.
  HookCursor* hook_cursor = nullptr;
  uint64_t hook_tag = 0;
};

namespace abi {
inline constexpr size_t kTensors = offsetof(CoreContext, tensors);
inline constexpr size_t kScalars = offsetof(CoreContext, scalars);
inline constexpr size_t kArena = offsetof(CoreContext, arena);
inline constexpr size_t kBlockIdx = offsetof(CoreContext, block_idx);
inline constexpr size_t kBlockNum = offsetof(CoreContext, block_num);
inline constexpr size_t kModel = offsetof(CoreContext, model);
inline constexpr size_t kExec = offsetof(CoreContext, exec);
inline constexpr size_t kSync = offsetof(CoreContext, sync);
inline constexpr size_t kCoreKind = offsetof(CoreContext, core_kind);
inline constexpr size_t kSubblockIdx = offsetof(CoreContext, subblock_idx);
inline constexpr size_t kSubblockNum = offsetof(CoreContext, subblock_num);
inline constexpr size_t kCross = offsetof(CoreContext, cross);
inline constexpr size_t kProgram = offsetof(CoreContext, program);
inline constexpr size_t kDebug = offsetof(CoreContext, debug);
inline constexpr size_t kBudget = offsetof(CoreContext, budget);
inline constexpr size_t kPeer = offsetof(CoreContext, peer);
inline constexpr size_t kYield = offsetof(CoreContext, yield);
inline constexpr size_t kRuntime = offsetof(CoreContext, rt);
inline constexpr size_t kHookCursor = offsetof(CoreContext, hook_cursor);
inline constexpr size_t kHookTag = offsetof(CoreContext, hook_tag);
inline constexpr size_t kCursorAt = offsetof(HookCursor, at);
inline constexpr size_t kCursorLimit = offsetof(HookCursor, limit);
}  // namespace abi

using KernelFn = void (*)(CoreContext*);

/// Copies `bytes` from a tile to GM with non-temporal (cache-bypassing) stores, as a DMA engine
/// writes: used for stores into tensors too large to stay in the host's cache.
extern "C" void pto_rt_stream_to_gm(void* dst, const void* src, int64_t bytes);

/// An atomic-add store (pl::store with AtomicType::AtomicAdd): rows x cols elements of a tile of
/// `tile_dtype` (row pitch `tile_pitch` elements) added to GM of `gm_dtype` (pitch `gm_pitch`),
/// element by element and atomically: each tile element is first converted as a plain store
/// converts it (f32 Acc -> f16/bf16), then added in the GM dtype (floats computed in float and
/// rounded once; i32 wraps). The generated code and the interpreter both call it.
/// `relu`: each tile element x is taken as (x > 0 ? x : 0) first (the store's relu_pre_mode);
/// `scaled`: then multiplied in float by `scale` (the store's scale).
extern "C" void pto_rt_atomic_add_rows(void* gm, int64_t gm_pitch, int32_t gm_dtype, const void* tile, int64_t tile_pitch,
                                       int32_t tile_dtype, int64_t rows, int64_t cols, int32_t relu, int32_t scaled, float scale);

/// Orders the streaming stores of this host thread before what follows; called by the emulator
/// after each core's kernel returns.
extern "C" void pto_rt_fence();

/// Tensors at least this large are written with pto_rt_stream_to_gm (host tuning, not chip data).
inline constexpr int64_t kStreamingStoreBytes = 8 << 20;
/// The bytes a load or store moves per element of a region whose columns are not contiguous (a
/// permuted view): each element is its own DMA burst of at least this many bytes. Assumption:
/// the 32-byte block that GM <-> UB/L1 transfers are aligned to (pto-isa's TLOAD/TSTORE
/// constraints); no published figure for a strided MTE transfer's rate.
inline constexpr int64_t kStridedElementBytes = 32;
/// The bytes reported for moving `elements` of `es` bytes, contiguous in runs or not.
constexpr int64_t moved_bytes(int64_t elements, int64_t es, bool unit_columns) {
  return elements * (unit_columns || es >= kStridedElementBytes ? es : kStridedElementBytes);
}

/// The cube's multiply (pl::matmul): c[m x n] (+)= a[m x k] * b[k x n], row-major with row pitches
/// lda, ldb, ldc in elements. `in_dtype` (a pto::DType) is f16, bf16 or f32 with a float c, or i8
/// with an int32 c. Float products are summed in float (in k order within each 8-wide lane).
extern "C" void pto_rt_matmul(void* c, const void* a, const void* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                              int64_t ldc, int32_t in_dtype, int32_t accumulate);

/// A biased matmul's start: each of the m rows of c (pitch ldc) takes the n 4-byte elements of
/// `bias` (f32 or i32, the accumulator's type); the matmul then accumulates onto them.
extern "C" void pto_rt_matmul_bias_start(void* c, const void* bias, int64_t m, int64_t n, int64_t ldc);

/// One tile operand of a vector routine: its data, its valid extent (rows, cols; read, and written
/// for the operands the routine writes), its capacity (cols is the row pitch) and its pto::DType.
struct RoutineTile {
  void* data;
  int64_t* valid;
  int64_t rows, cols;
  int32_t dtype;
  int32_t spare;
};
/// The most operands a vector routine has (mrgsort2 of four lists: dst, tmp and 4 sources).
inline constexpr int32_t kMaxRoutineOperands = 6;
/// Runs vector routine `routine` (ir::Routine) of instruction `instr` on `tiles` (the statement's
/// operands in order) with its two parameters; operands are read before the destination is written. Returns the elements it wrote, for the pipeline
/// model; or, when an operand breaks the routine's rules, reports it with pto_rt_fail and returns
/// -1 (the core must stop). The generated code and the interpreter both call it.
extern "C" int64_t pto_rt_vec_routine(CoreContext* ctx, int32_t instr, int32_t routine, RoutineTile* tiles, int32_t n, int64_t p0,
                                      int64_t p1);

/// pl::getval: the element at `elem` of pto::DType `dtype` as an ir::ElemAccess read defines it:
/// an integer sign-extended to i64, a floating element as the bits of the f32 holding it exactly.
extern "C" int64_t pto_rt_getval(const void* elem, int32_t dtype);
/// pl::setval: writes `value` into the element at `elem` of pto::DType `dtype`: `value` is an i64,
/// or (`is_float`) the bits of an f32 in its low 32 bits; integers wrap into the element's width,
/// an integer becomes the nearest float, an f32 rounds to nearest even into f16 / bf16.
extern "C" void pto_rt_setval(void* elem, int32_t dtype, int64_t value, int32_t is_float);

extern "C" void pto_rt_fail(CoreContext* ctx, int32_t instr, int32_t check, int32_t axis, int64_t a, int64_t b, int64_t c);

/// The functions above, as generated code reaches them (CoreContext::rt).
struct RuntimeFunctions {
  decltype(&pto_rt_fail) fail = &pto_rt_fail;
  decltype(&pto_rt_stream_to_gm) stream_to_gm = &pto_rt_stream_to_gm;
  decltype(&pto_rt_matmul) matmul = &pto_rt_matmul;
  decltype(&pto_rt_matmul_bias_start) matmul_bias_start = &pto_rt_matmul_bias_start;
  decltype(&pto_rt_atomic_add_rows) atomic_add_rows = &pto_rt_atomic_add_rows;
  decltype(&pto_rt_vec_routine) vec_routine = &pto_rt_vec_routine;
  decltype(&pto_rt_getval) getval = &pto_rt_getval;
  decltype(&pto_rt_setval) setval = &pto_rt_setval;
};

}  // namespace pto
