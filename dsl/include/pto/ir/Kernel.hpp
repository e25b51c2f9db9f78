#pragma once
// A traced kernel: its parameters, tile groups, instruction table and body.
#include <string>
#include <vector>

#include "pto/ir/IR.hpp"
#include "pto/ir/InstrClass.hpp"
#include "pto/ir/Layout.hpp"

namespace pto::ir {

/// The most dimensions a tensor has.
inline constexpr int kMaxRank = 5;

struct TensorParam {
  std::string name;                           // "x" or "arg0"
  DType dtype;
  int rank;                                   // 1 .. kMaxRank
  std::array<int64_t, kMaxRank> shape{};      // per dimension (first `rank`); a dynamic dimension's entry is -1
  uint8_t dynamic = 0;                        // bit d: dimension d declared pl::DYNAMIC
  /// The argument's strides in elements when it is not contiguous (a host view: permute, narrow,
  /// select), part of the specialisation; all 0 for a contiguous argument (row-major strides).
  std::array<int64_t, kMaxRank> strides{};
  /// Each dimension's extent and stride as the kernel sees them (set by the trace): IntImms for
  /// static ones; a dynamic extent is the Param Var holding the launch's value (a hidden scalar
  /// argument after the user's), and row-major strides are products of the later extents.
  std::array<Expr, kMaxRank> extent{};
  std::array<Expr, kMaxRank> stride{};

  bool contiguous() const {
    for (int d = 0; d < rank; ++d) {
      if (strides[d] != 0) return false;
    }
    return true;
  }
};

/// Extent d of `t`: TensorParam::extent, or the static shape's entry for a parameter made
/// without a trace.
inline Expr tensor_extent(const TensorParam& t, int d) { return t.extent[d] ? t.extent[d] : IntImm::make(t.shape[d]); }

struct ScalarParam {
  std::string name;
  Expr var;  // a Var of kind Param
};

/// A tile group: `depth` slots of a (rows, cols) tile of `dtype` in `space`.
struct TileGroup {
  std::string name;
  DType dtype;
  MemSpace space;
  int rank;                       // 1 or 2, as declared
  int64_t rows, cols;             // 1-D tiles: rows == 1
  std::vector<int> mutex_ids;     // one per slot (may be empty: then depth 1)
  TilePad pad = TilePad::Null;    // what fillpad writes outside the valid extent
  int depth;
  Expr counter;                   // Mutable Var holding the current slot; empty when depth == 1
  SourceLoc loc;
  /// PyPTO Pro's addrs=: each slot's byte address in `space`, placed by the kernel (a constant step
  /// apart); empty: the planner places the group. Placed tiles may alias each other on purpose.
  std::vector<int64_t> addrs;
  /// How the elements lie in `space` (ir/Layout.hpp): as declared, Default until the lowering
  /// gives it the chip's default for the space.
  Layout layout = Layout::Default;
  // Filled by the memory planner:
  int64_t slot_bytes = 0;         // bytes from one slot to the next: the tile's size rounded up to the
                                  // space's alignment, or a placed group's address step
  int64_t offset = -1;            // byte offset of slot 0 in the core's arena for `space`

  int64_t elems() const { return rows * cols; }
  /// Bytes of one slot as laid out: rows x cols elements, rounded up to whole blocks for a fractal
  /// layout (16 rows x 32 B with rows inside, its transpose with columns inside; 16 x 16 for a
  /// 4-byte Acc tile, pto-isa's 1024 B fractal).
  int64_t bytes() const {
    const int64_t es = static_cast<int64_t>(dtype_size(dtype));
    if (!is_fractal(layout)) return elems() * es;
    const int64_t c0 = space == MemSpace::Acc && es == 4 ? 16 : (es >= 32 ? 1 : 32 / es);
    const int64_t block_rows = rows_inside(layout) ? 16 : c0, block_cols = rows_inside(layout) ? c0 : 16;
    auto up = [](int64_t n, int64_t m) { return (n + m - 1) / m * m; };
    return up(rows, block_rows) * up(cols, block_cols) * es;
  }
};

/// Static facts about one instruction, for errors, profiles and the timing model.
struct InstrInfo {
  std::string op;     // "load", "store", "vec", "row_sum", "set_flag", ...
  Pipe pipe;
  std::string text;   // printed form, e.g. "load t0[t0.slot] <- arg0[0 +: 1, (i3 * 8192) +: ...]"
  SourceLoc loc;
  // Filled at the end of the trace (and by passes that add instructions):
  std::vector<std::pair<int, bool>> tiles;  // (group, write) per tile access, as ir::tile_accesses orders them
  int tensor = -1;                          // GM tensor moved to or from, or -1
  int64_t gm_view_cols = 0;                 // columns of the row-major view the GM region was cut from; -1 when
                                            // dynamic: the launch's extent of the tensor's columns
  DType dtype = DType::f32;                 // element type moved or produced
  InstrClass cls = InstrClass::Other;       // what the cost model charges it as (classified once, at trace)
  VecOpCounts vec_ops{};                    // a vector instruction's operations by class (a row reduction
                                            // counts its reduction step as VecOp::Reduce)
  bool gm_write = false;                    // a store (writes GM)
  bool atomic = false;                      // an atomic-add store: atomics of different cores do not race
  uint8_t peer_slots = 0;                   // a cross-core move: bit s for each core of the block (0 AIC, 1 and 2
                                            // AIV 0 and 1) whose memory holds the destination it writes (tiles[0])
  bool automatic = false;                   // inserted by a pass (auto_mutex), not written by the user
  int vector_function = -1;                 // the pl::vector_function it belongs to (its index), or -1
  bool vf_first = false;                    // the function's first instruction: it carries the start and drain
  Conversion convert = Conversion::None;    // the layout conversion its data path performs (set by the lowering)
};

/// Which cores a launch runs: `block_dim` AIVs (Vector), `block_dim` AICs (Cube), or
/// `block_dim` blocks of 1 AIC + 2 AIVs (Mix). Auto: deduced from the kernel (its sections, or
/// the memories its tiles live in).
enum class KernelMode : uint8_t { Auto, Vector, Cube, Mix };
const char* kernel_mode_name(KernelMode m);

/// Which cores meet at the kernel's sync_all calls: those of the section it is called in (AIV,
/// AIC), or, called outside sections, every core of the launch (All). None: no sync_all.
enum class SyncAllScope : uint8_t { None, AIV, AIC, All };
const char* sync_all_scope_name(SyncAllScope s);
/// Whether a core of `kind` meets at sync_all in a `mode` kernel whose calls have scope `s`.
bool takes_part_in_sync_all(SyncAllScope s, KernelMode mode, CoreKind kind);

struct Kernel {
  std::string name;
  std::string specialization;  // "x:f32[4096], y:f32[4096]"
  std::vector<TensorParam> tensors;
  std::vector<ScalarParam> scalars;
  std::vector<TileGroup> groups;
  std::vector<Expr> mutable_vars;
  std::vector<InstrInfo> instrs;
  Stmt body;
  int num_vars = 0;  // Var ids are 0 .. num_vars-1
  KernelMode mode = KernelMode::Vector;  // never Auto after tracing
  bool cross_core = false;               // uses set_cross_core / wait_cross_core
  SyncAllScope sync_all = SyncAllScope::None;
  std::vector<std::string> warnings;  // found by passes; shown by the CLI and in profiles
};

/// Instruction `id` of `k` as every report names it: "#12 load t0[0] <- arg0[...] [MTE2] at
/// file.cpp:40", with `where` its pipe (and core, e.g. "MTE2 on block 1, AIV 2"); an instruction
/// without text goes by its op name.
std::string describe_instr(const Kernel& k, int id, const std::string& where);

}  // namespace pto::ir
