#pragma once
// The pipes of one AI Core: what it records for the timing replay, and the race checker.
//
// Timing. A core records one timing::TimedOp per instruction and sync point, in program order,
// with its uncontended cost (CostModel) and the orderings it obeys: its pipe's previous op,
// set_flag/wait_flag, pipe_barrier(ALL), mutexes and cross-core flags. timing::replay then runs
// every core of the launch together with the shared L2 and HBM (timing/Replay.hpp). Everything is
// a function of the cores' instruction streams: the same kernel and inputs give the same cycles on
// any machine and any host thread count.
//
// Races. A happens-before check with vector clocks over the core's pipes: every instruction
// ticks its pipe's clock; flags and mutexes carry clocks from the releasing pipe to the
// acquiring one. Two accesses to the same tile slot (or overlapping GM) from different pipes,
// at least one a write, that are not ordered are a race (RAW, WAR or WAW), reported with both
// instructions, their pipes and source lines.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pto/backend/ChipProfile.hpp"
#include "pto/runtime/DenseMap.hpp"
#include "pto/runtime/timing/TraceCopies.hpp"

namespace pto {
namespace ir {
struct InstrInfo;
}

struct CompiledKernel;

inline constexpr int kPipeCount = 7;  // S, V, M, MTE1, MTE2, MTE3, FIX (ir::Pipe order; ALL excluded)
/// The cores of one block that share cross-core flags and GM race state: AIC, AIV0, AIV1 in a
/// mix kernel (slot 0, 1, 2); a vector or cube kernel's block is one core (slot 0).
inline constexpr int kCoresPerBlock = 3;
/// A vector clock entry per pipe of every core of a block.
inline constexpr int kClockWidth = kPipeCount * kCoresPerBlock;

/// Uncontended cycle costs of instructions on one chip, from its architecture table: a cost is a
/// head (paid when the pipe starts from idle; for a transfer, the DMA latency) and a body.
class CostModel {
 public:
  struct Cost {
    double head = 0, body = 0;
    double total() const { return head + body; }
  };
  explicit CostModel(const ChipProfile& chip) : chip_(&chip) {}
  /// A transfer of `bytes` on `path` alone: latency + bytes / peak.
  Cost transfer(PathId path, double bytes) const;
  /// A vector instruction performing `ops` (by class) on `elements` of `dtype`.
  Cost vector(const ir::VecOpCounts& ops, DType dtype, double elements) const;
  /// One instruction of a pl::vector_function doing `ops` (the operations no earlier instruction
  /// of the function computed) on registers: element-wise classes at vector.vf_op_cycles per repeat
  /// (no UB reads and writes of intermediates), exp/log/sqrt/rsqrt/div/reduce at their own rate,
  /// plus one store pass; the function's `first` instruction carries its start and drain.
  Cost vector_function(const ir::VecOpCounts& ops, DType dtype, double elements, bool first) const;
  /// A cube multiply of `fractals` fractal steps on inputs of `dtype` (KernelABI: the exec hook's
  /// gm_lo of a matmul).
  Cost matmul(DType dtype, double fractals) const;
  /// The cycles a transfer of `bytes` on `path` spends beyond the plain copy performing layout
  /// conversion `c` (LayoutRules::efficiency; `gm_row_bytes`: the GM side's row pitch, 0 if none).
  double conversion(PathId path, double bytes, ir::Conversion c, DType dtype, int64_t gm_row_bytes) const;
  double issue_cycles() const { return chip_->issue_cycles; }
  double cycles_to_us(double cycles) const { return cycles / (chip_->clock_ghz * 1e3); }
  const ChipProfile& chip() const { return *chip_; }

 private:
  const ChipProfile* chip_;
};

struct PipeTotals {
  double busy = 0;     // cycles running instructions
  double wait = 0;     // cycles held back by flags, barriers and mutexes
  double on_chip = 0;  // of `busy`: moves between local memories (Mat -> L0, Acc -> Vec, Vec -> Mat), no GM
  double convert = 0;  // of `busy`: layout conversions on the way (ND -> NZ, NZ -> ND, block transposes)
  uint64_t instructions = 0;
};

struct CoreTiming {
  int kind = 1;  // ir::CoreKind: 0 AIC, 1 AIV
  double end_cycles = 0;
  std::array<PipeTotals, kPipeCount> pipes{};
  double gm_read_bytes = 0, gm_write_bytes = 0;
  double flops = 0;
  double macs = 0;        // cube multiply-accumulates
  uint64_t barriers = 0;  // pipe_barrier(ALL) executed
};

/// One instruction on one pipe in simulated time (recorded while a profiler is active).
struct InstrSpan {
  int instr;
  int pipe;
  double start, end;  // cycles from the core's start
};

/// A flag from set_flag (on pipe `src`) to the wait_flag that consumed it (on pipe `dst`); for a
/// cross-core flag `src_slot` is the setting core's slot in the block (else -1: this core).
struct FlagFlow {
  int set_instr, wait_instr;
  int src, dst;
  double set_time, wait_time;  // cycles
  int src_slot = -1;
};

struct RaceReport {
  std::string kind;      // "RAW", "WAR" or "WAW"
  int core = 0;
  std::string resource;  // "tile t0 slot 1" or "GM arg2"
  int first_instr = -1, second_instr = -1;
  std::string first, second;  // "#3 load ... [MTE2] at file:line"
  uint64_t count = 0;         // occurrences on this core (between blocks: in the launch)
  bool between_blocks = false;  // two blocks of the launch touch the same GM elements
  std::string message() const;
};

/// One access of a pipe to a resource: a GM region as the flattened range [lo, hi) of a
/// row-major view `width` columns wide (compared as a rectangle with regions of the same view;
/// width 0, or different views: as a 1-D range), or a tile slot ([0, 1)); the pipe's clock at
/// that instruction; the instruction.
struct Touch {
  int64_t lo = 0, hi = 0, width = 0;
  uint64_t epoch = 0;
  int instr = -2;  // -2: none yet
  bool overlaps(const Touch& o) const;
};
/// The last `depth` accesses of one pipe to a resource (epochs increase from oldest to newest).
/// GM keeps 32: regions differ, so an older access may overlap where a newer one does not; a tile
/// slot keeps 1: every access overlaps, and the newest is the last to become ordered.
struct TouchHistory {
  static constexpr int kGmDepth = 32;
  Touch last{};              // the newest access (instr -2: none); inline, so a tile slot allocates nothing
  std::vector<Touch> older;  // GM only: up to depth - 1 older accesses, a ring
  int next = 0;              // where the next older access goes once the ring is full
  void add(const Touch& t, int depth) {
    if (last.instr != -2 && depth > 1) {
      const int cap = depth - 1;
      if (static_cast<int>(older.size()) < cap) {
        older.push_back(last);
        next = static_cast<int>(older.size()) % cap;
      } else {
        older[next] = last;
        next = (next + 1) % cap;
      }
    }
    last = t;
  }
  /// Back to no accesses (the ring keeps its capacity).
  void reset() {
    last = Touch{};
    older.clear();
    next = 0;
  }
  int count() const { return (last.instr != -2 ? 1 : 0) + static_cast<int>(older.size()); }
  /// The i-th newest access (0: the newest).
  const Touch& newest(int i) const {
    if (i == 0) return last;
    const int n = static_cast<int>(older.size());
    return older[((next - i) % n + n) % n];
  }
};
/// "GM tensor arg1", or for a buffer passed as several parameters (memory_of, as in
/// CoreModel::check_gm_by_memory) "GM tensor arg0 (one buffer passed as arg0 and arg1)".
std::string gm_memory_name(const CompiledKernel* kernel, int memory, std::span<const int> memory_of);

/// One GM access of a core, kept for the check between blocks (BlockRaces.hpp).
struct GmSpan {
  int tensor;  // the memory (CoreModel::check_gm_by_memory)
  Touch touch;  // the region; touch.instr is the instruction
  bool write;
  int pipe;
  int epoch;    // sync_all calls the core had passed (-1: a core that does not take part in them)
};

/// Per resource, the recent reads and writes of every pipe of every core of a block.
struct ResourceState {
  std::array<TouchHistory, kClockWidth> writes{}, reads{};
  uint32_t used = 0;  // bit i: clock index i has accesses; its histories mean something only while it is set
};
/// GM accesses of the cores of one block (shared by their CoreModels), by race-state key k < 0
/// stored at -(k + 1): tensor t at t.
using GmRaceState = DenseMap<ResourceState>;

/// One access of an instruction, kept for the exhaustive race audit (emulator/RaceAudit.hpp):
/// the op that made it in the core's trace, and the memory touched. `scope` says whose memory
/// `key` names: 0 a tile slot of this core, 1 a tile slot of this block that cross-core moves
/// write, 2 a GM buffer of the launch (key -(memory + 1), CoreModel::check_gm_by_memory). The
/// region is [lo, hi) with `width` as in Touch, in units of `unit_bytes`.
struct AuditAccess {
  int32_t op = -1;
  int32_t instr = -1;
  uint8_t pipe = 0;
  uint8_t scope = 0;
  bool write = false;
  bool atomic = false;
  int32_t unit_bytes = 1;
  int64_t key = 0;
  int64_t lo = 0, hi = 1, width = 0;
};

/// A core's recording storage, handed from launch to launch (see CoreModel::reuse): the timing
/// trace, and the GM accesses kept for the check between blocks.
/// The width of the rows of instruction `info`'s GM region, as the pipeline model reads its
/// gm_lo and gm_hi: its view's columns (0: a 1-D range), or the launch's columns of its tensor
/// (`tensor_cols`) when they are dynamic; -1 when the instruction moves no GM tensor.
int64_t gm_region_width(const ir::InstrInfo& info, std::span<const int64_t> tensor_cols);

struct CoreRecording {
  timing::CoreTrace trace;
  std::vector<GmSpan> gm_spans;
  DenseMap<ResourceState> resources;  // the race state of the core's tile slots (about 3 KB a slot), kept made
};

class CoreModel {
 public:
  using Clock = std::array<uint64_t, kClockWidth>;
  /// A cross-core flag in flight: the op that set it, and the setting pipe's clock.
  struct CrossFlag {
    Clock clock{};
    timing::OpRef op{};  // the set's op in the launch's traces
  };

  /// `kernel` names instructions in reports; it may be null for hand-built programs (tests).
  /// `core`: the core's number among its kind (reports); `trace_core`: its index among all
  /// cores of the launch (the traces' OpRef::core). `slot`: its place in its block (0 AIC or
  /// single core, 1/2 the AIVs of a mix block); `gm`: the block's shared GM race state (null:
  /// this core's own). `kind`: ir::CoreKind.
  CoreModel(const CompiledKernel* kernel, const CostModel& cost, int core, bool race_check, int slot = 0,
            GmRaceState* gm = nullptr, int kind = 1, int trace_core = 0);

  // ---- the rules, for hand-built programs and the hooks below
  struct Access {
    int64_t resource;  // tile slot id, or a GM tensor (see exec)
    bool write;
    int64_t lo = 0, hi = 1, width = 0;  // the part touched (Touch); a tile slot is [0, 1)
  };
  /// Records an instruction of `cycles` on `pipe` (plus `head` when the pipe starts it from idle);
  /// returns its op index in trace().
  int run(ir::Pipe pipe, double cycles, int instr = -1, std::span<const Access> tiles = {}, double head = 0);
  /// Records a GM transfer of `bytes` on `path` (uncontended cost from the CostModel).
  /// `convert`: cycles of layout conversion on top (CostModel::conversion), paid like the latency.
  int transfer(ir::Pipe pipe, PathId path, double bytes, const timing::GmRegion& region, int instr = -1,
               std::span<const Access> tiles = {}, double convert = 0);
  void set_flag(ir::Pipe src, ir::Pipe dst, int64_t event, int instr = -1);
  void wait_flag(ir::Pipe src, ir::Pipe dst, int64_t event, int instr = -1);
  void barrier(ir::Pipe pipe);
  void lock(int64_t mutex, ir::Pipe pipe, int instr = -1);
  void unlock(int64_t mutex, ir::Pipe pipe, int instr = -1);
  /// set_cross_core on `pipe`: the flag carries the pipe's clock and the set's op.
  CrossFlag cross_set(ir::Pipe pipe, int instr = -1);
  /// wait_cross_core on `pipe`: holds it until every flag in `flags` has arrived.
  void cross_wait(ir::Pipe pipe, std::span<const CrossFlag> flags, int instr = -1);

  /// sync_all's arrival: the core's pipes drain (as pipe_barrier(ALL)). Returns the arrival op
  /// and the clock every pipe then holds.
  struct Arrival {
    timing::OpRef op;
    Clock clock;
  };
  Arrival sync_all_arrive(int instr);
  /// sync_all's departure, once every participant has arrived (`arrivals`): the meeting costs
  /// the chip's sync_all cycles on the scalar pipe, then every pipe goes on knowing `joined` (the
  /// clocks of the participants of this core's block). GM accesses after it are a new epoch.
  void sync_all_leave(int instr, std::span<const timing::OpRef> arrivals, const Clock& joined);

  // ---- the hooks called by generated code (KernelABI.hpp)
  void exec(int instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi);
  void sync(int instr, int64_t event, int64_t slot);

  /// What the core recorded for the timing replay.
  const timing::CoreTrace& trace() const { return trace_; }
  /// Records into `storage` (emptied; its capacity is kept) instead of fresh vectors: launches
  /// hand recording storage from one to the next. Call before the first op.
  void reuse(CoreRecording&& storage);
  /// Gives the recording's storage back (the model records nothing after).
  CoreRecording release_recording() { return {std::move(trace_), std::move(gm_spans_), std::move(resources_)}; }
  /// Records what `twin` recorded, a model of another core of the launch that was given the same
  /// calls in the same order except that every GM region of tensor t lay `tensor_shift[t]`
  /// elements further on (one shift for every region of a tensor, and no two tensors on one
  /// buffer: the race checks' answers, which compare regions of one memory of one core, are then
  /// twin's), and, in a block of `block_cores` cores (1, or 3 for a mix block), so was each other
  /// core of twin's block against the same core of this one's. Nothing is copied: the trace
  /// becomes a copy of twin's (CoreTrace::copy_of; of twin's original when twin is a copy), its GM
  /// spans twin's moved (for_each_gm_span), its counters twin's. `twin` must outlive this model's
  /// use. Call instead of the calls, on a model that has recorded nothing. False, with nothing
  /// recorded, unless copyable_from(twin, block_cores): then give this model its calls.
  bool record_shifted(const CoreModel& twin, std::span<const int64_t> tensor_shift, int block_cores = 1);
  /// Whether record_shifted can copy `twin`: a core of the same kind and slot that reported no
  /// race, did not fail, kept no accesses for the race audit, and whose deps name cores of its
  /// own block only.
  bool copyable_from(const CoreModel& twin, int block_cores = 1) const;
  /// The core's counters (bytes, FLOPs, MACs, barriers); the replay adds the times.
  CoreTiming counters() const;
  const std::vector<RaceReport>& races() const { return races_; }
  /// Checks GM by memory, not by parameter: tensor t's accesses are those of memory
  /// memory_of[t] (the lowest-numbered parameter given the same buffer), so a buffer passed as
  /// two parameters is one memory to the checker. Empty (the default): every tensor its own.
  /// The span must outlive the model's recording.
  void check_gm_by_memory(std::span<const int> memory_of) { memory_of_ = memory_of; }
  /// The launch's columns of each tensor: the row pitch of a GM region cut from a tensor whose
  /// columns are dynamic (ir::InstrInfo::gm_view_cols -1). The span must outlive the model.
  void set_tensor_cols(std::span<const int64_t> cols) { tensor_cols_ = cols; }
  /// Each tensor's first element in its storage: GM accesses are race-checked in the storage's
  /// coordinates, so views of one buffer (host permute / narrow / select) are compared. Empty:
  /// every tensor starts its storage. The span must outlive the model.
  void set_tensor_offsets(std::span<const int64_t> offsets) { tensor_offsets_ = offsets; }
  /// Keeps every GM access of a race-checked core (for the check between blocks); off by default.
  void keep_gm_spans(bool on) { keep_gm_spans_ = on; }
  /// Calls f(const GmSpan&) for every GM access of the core, in program order (with
  /// keep_gm_spans): a copy's (record_shifted) are its original's, moved.
  template <class F>
  void for_each_gm_span(F&& f) const {
    if (!original_) {
      for (const GmSpan& s : gm_spans_) f(s);
      return;
    }
    for (GmSpan s : original_->gm_spans_) {  // s.tensor is its memory: the tensor itself, on a buffer of its own
      const int64_t d = timing::shift_of(trace_.shift, s.tensor);
      s.touch.lo += d, s.touch.hi += d;
      f(s);
    }
  }
  /// Keeps every tile and GM access of a race-checked core with the op that made it, for the
  /// exhaustive race audit (pto::set_race_audit); off by default.
  void keep_accesses(bool on) { keep_accesses_ = on; }
  const std::vector<AuditAccess>& accesses() const { return audit_; }
  /// A deadlock or a sync misuse: the reason and the instruction, if any.
  const std::optional<std::pair<std::string, int>>& failure() const { return failure_; }

 private:
  struct Pipe {
    int last_op = -1;      // the newest op recorded on the pipe
    int seen_barrier = -1; // the newest barrier this pipe's ops already depend on
    Clock clock{};
    std::vector<timing::OpRef> pending;  // an automatic mutex's wait, carried by the pipe's next op
  };
  struct Flag {
    Clock clock;
    int op;  // the set's op
  };
  struct Mutex {
    int release_op = -1;
    Clock clock{};
    bool held = false;
  };
  /// Whether `instr` was inserted by auto_mutex (its sync folds into the instruction it guards).
  bool automatic(int instr) const;
  /// Appends an op (or a barrier) with `deps`; returns its index. `fill(op)` sets the op's own
  /// fields where it is stored: an op built elsewhere and copied in would be read back with wider
  /// loads than its fields were written with, which cannot be forwarded from the store buffer and
  /// so wait for every store before them (the kernel's GM writes among them).
  template <class Fill>
  int record(const Fill& fill, std::span<const timing::OpRef> deps = {});
  /// A Work op of cost `c` on `pipe`, issued by the scalar unit (ticks the pipe's clock, checks `tiles`).
  /// `convert`: the part of c.body that is layout conversion (reported, already in the cost).
  int record_work(ir::Pipe pipe, const CostModel::Cost& c, int instr, std::span<const Access> tiles, bool on_chip, double convert = 0);
  /// A Sync op on `pipe` that waits for `deps`.
  int record_wait(ir::Pipe pipe, std::span<const timing::OpRef> deps, int instr, bool flow);
  /// The op a set on `pipe` marks: a Sync op after everything issued on it so far.
  int record_set(ir::Pipe pipe, int instr);
  void tick(int pipe, int instr, std::span<const Access> tiles);
  /// Checks an access of `pipe` to resource `key` against the other pipes' last accesses (of
  /// every core of the block for GM), then records it.
  void access(int64_t key, int pipe, bool write, int64_t lo, int64_t hi, int instr, int64_t width = 0);
  /// Reports the newest access in `h` that overlaps `t` and is not ordered before clock value `seen`.
  void check_history(const char* kind, int64_t key, const TouchHistory& h, const Touch& t, uint64_t seen, int first_at, int second_at);
  /// `first_at`, `second_at`: clock indices (slot * kPipeCount + pipe).
  void report_race(const char* kind, int64_t key, const Touch& first, int first_at, int second_at, int second_instr);
  int at(int pipe) const { return slot_ * kPipeCount + pipe; }
  /// into = max(into, from) over the clock entries in use.
  void join_clock(Clock& into, const Clock& from) const {
    for (int i = 0; i < clock_width_; ++i) into[i] = std::max(into[i], from[i]);
  }
  std::string resource_name(int64_t key) const;
  std::string describe(int instr, int at) const;
  void fail(std::string reason, int instr);
  int64_t tile_resource(int group, int64_t slot) const {
    const int64_t own = group_base_[static_cast<size_t>(group)] + slot;
    return alias_.empty() ? own : alias_[static_cast<size_t>(own)];
  }
  /// Fills alias_ when the kernel places tiles (addrs=): overlapping slots share one key.
  void alias_slots();
  void lock(int64_t mutex, ir::Pipe pipe, int instr, bool automatic);
  void unlock(int64_t mutex, ir::Pipe pipe, int instr, bool automatic);
  /// The accesses of instruction `instr` (its tiles, in slots `slots`), in accesses_.
  std::span<const Access> tile_accesses(int instr, const int64_t* slots, int64_t gm_lo, int64_t gm_hi);
  /// Automatic mutexes (one per tile slot, key kAutoMutexBase + slot id) apart from the user's ids.
  static constexpr int64_t kAutoMutexBase = int64_t{1} << 20;
  Mutex& mutex_state(int64_t mutex) {
    return mutex >= kAutoMutexBase ? auto_mutexes_[static_cast<uint64_t>(mutex - kAutoMutexBase)] : mutexes_[static_cast<uint64_t>(mutex)];
  }

  const CompiledKernel* kernel_;
  const CostModel& cost_;
  int core_;
  bool race_check_;
  int slot_;
  GmRaceState* gm_;
  int kind_;
  int trace_core_;
  int clock_width_ = kClockWidth;  // the entries that can tick: a mix block's three cores, or one core's pipes
  timing::CoreTrace trace_;
  /// pipe_barrier(ALL)'s ordering (every pipe's ops so far before every later op), uncounted.
  void drain();

  int barrier_op_ = -1;    // the newest barrier op
  int epoch_ = 0;          // sync_all calls passed; -1: the core does not take part in them
  uint32_t issued_ = 0;    // instructions issued since it
  std::array<Pipe, kPipeCount> pipes_{};
  std::map<std::tuple<int, int, int64_t>, std::vector<Flag>> flags_;
  DenseMap<Mutex> mutexes_, auto_mutexes_;
  DenseMap<ResourceState> resources_;  // tile slot ids (>= 0); GM and shared tiles live in *gm_
  std::vector<Access> accesses_;       // tile_accesses' result, reused
  GmRaceState own_gm_;
  std::vector<int64_t> group_base_;
  std::vector<int64_t> alias_;      // per tile slot: its resource key when tiles are placed (alias_slots), else empty
  std::vector<bool> shared_group_;  // per tile group: a cross-core move's destination (race state shared by
                                    // the block); empty when the kernel has no cross-core moves
  const std::vector<bool>* ordered_ = nullptr;  // per tile group: its slots need no race check
                                                // (CompiledKernel::mutex_ordered); null: every group is checked
  std::vector<RaceReport> races_;
  std::vector<GmSpan> gm_spans_;
  bool keep_gm_spans_ = false;
  const CoreModel* original_ = nullptr;  // record_shifted: the model whose trace and spans this one's are, moved
  std::vector<AuditAccess> audit_;
  bool keep_accesses_ = false;
  std::span<const int> memory_of_;  // check_gm_by_memory
  std::span<const int64_t> tensor_cols_;  // set_tensor_cols
  std::span<const int64_t> tensor_offsets_;  // set_tensor_offsets
  std::map<std::tuple<std::string, int, int>, size_t> race_index_;
  double gm_read_ = 0, gm_write_ = 0, flops_ = 0, macs_ = 0;
  uint64_t barriers_ = 0;
  std::optional<std::pair<std::string, int>> failure_;
};

}  // namespace pto
