#pragma once
// The pipes of one AI Core in simulated time, with the sync rules and the race checker.
//
// Timing. Instructions issue in program order from the scalar unit (one cycle each) into the
// pipe they run on; each pipe runs its instructions in order, independently of the others
// (start = max(issue time, pipe free)). The only orderings between pipes are set_flag/wait_flag,
// pipe_barrier(ALL) and mutexes. A core ends when its last pipe drains. Costs come from the chip
// profile (CostModel). Everything is a function of the core's instruction stream: the same
// kernel and inputs give the same cycles on any machine and any host thread count.
//
// Races. A happens-before check with vector clocks over the core's pipes: every instruction
// ticks its pipe's clock; flags and mutexes carry clocks from the releasing pipe to the
// acquiring one. Two accesses to the same tile slot (or overlapping GM) from different pipes,
// at least one a write, that are not ordered are a race (RAW, WAR or WAW), reported with both
// instructions, their pipes and source lines.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pto/backend/ChipProfile.hpp"

namespace pto {

struct CompiledKernel;

inline constexpr int kPipeCount = 7;  // S, V, M, MTE1, MTE2, MTE3, FIX (ir::Pipe order; ALL excluded)
/// The cores of one block that share cross-core flags and GM race state: AIC, AIV0, AIV1 in a
/// mix kernel (slot 0, 1, 2); a vector or cube kernel's block is one core (slot 0).
inline constexpr int kCoresPerBlock = 3;
/// A vector clock entry per pipe of every core of a block.
inline constexpr int kClockWidth = kPipeCount * kCoresPerBlock;

/// Cycle costs of instructions on one chip, for a launch of `active_cores` cores sharing HBM.
/// HBM is split evenly among the cores that move GM data and, within a core, among the
/// `gm_pipes` pipes of its kind that do (MTE2, MTE3 on an AIV; MTE2, FIX on an AIC), since they
/// run at the same time. A mix launch has one CostModel per core kind.
class CostModel {
 public:
  CostModel(const ChipProfile& chip, int active_cores, int gm_pipes = 1);
  /// GM -> `dst` space (MTE2): bytes at the slower of the path bandwidth and this core's HBM share.
  double load_cycles(ir::MemSpace dst, double bytes) const;
  /// `src` space -> GM (MTE3 from Vec, FIX from Acc).
  double store_cycles(ir::MemSpace src, double bytes) const;
  /// A vector instruction of `ops` element-wise operations over `elements` of `dtype`.
  double vector_cycles(DType dtype, double elements, int ops) const;
  /// A local copy of `bytes` into `dst`: MTE1 into Left/Right, FIX Acc -> Vec, MTE3 Vec -> Mat.
  double move_cycles(ir::MemSpace dst, double bytes) const;
  /// A cube multiply of `macs` multiply-accumulates on inputs of `dtype`, at the profile's peak.
  double matmul_cycles(DType dtype, double macs) const;
  double issue_cycles() const { return chip_->issue_cycles; }
  double cycles_to_us(double cycles) const { return cycles / (chip_->clock_ghz * 1e3); }
  /// Bytes per cycle of one GM pipe's share of HBM.
  double hbm_share_bytes_per_cycle() const { return hbm_share_; }
  const ChipProfile& chip() const { return *chip_; }

 private:
  double bytes_per_cycle(double gibps) const;
  const ChipProfile* chip_;
  double hbm_share_;
};

struct PipeTotals {
  double busy = 0;     // cycles running instructions
  double wait = 0;     // cycles held back by flags, barriers and mutexes
  double on_chip = 0;  // of `busy`: moves between local memories (Mat -> L0, Acc -> Vec, Vec -> Mat), no GM
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

/// A flag from set_flag (on `src`) to the wait_flag that consumed it (on `dst`).
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
  int count() const { return (last.instr != -2 ? 1 : 0) + static_cast<int>(older.size()); }
  /// The i-th newest access (0: the newest).
  const Touch& newest(int i) const {
    if (i == 0) return last;
    const int n = static_cast<int>(older.size());
    return older[((next - i) % n + n) % n];
  }
};
/// One GM access of a core, kept for the check between blocks (BlockRaces.hpp).
struct GmSpan {
  int tensor;
  Touch touch;  // the region; touch.instr is the instruction
  bool write;
  int pipe;
};

/// Per resource, the recent reads and writes of every pipe of every core of a block.
struct ResourceState {
  std::array<TouchHistory, kClockWidth> writes{}, reads{};
  uint32_t used = 0;  // bit i: clock index i has accesses
};
/// GM accesses of the cores of one block (shared by their CoreModels; tensor t is key -(t + 1)).
using GmRaceState = std::map<int64_t, ResourceState>;

class CoreModel {
 public:
  using Clock = std::array<uint64_t, kClockWidth>;
  /// A cross-core flag in flight: when the setting pipe was done, and its clock.
  struct CrossFlag {
    double time = 0;
    Clock clock{};
    int instr = -1;
    int pipe = 0, slot = 0;  // the setting pipe and core slot
  };

  /// `kernel` names instructions in reports; it may be null for hand-built programs (tests).
  /// `slot`: this core's place in its block (0 AIC or single core, 1/2 the AIVs of a mix block);
  /// `gm`: the block's shared GM race state (null: this core's own). `kind`: ir::CoreKind.
  CoreModel(const CompiledKernel* kernel, const CostModel& cost, int core, bool race_check, int slot = 0,
            GmRaceState* gm = nullptr, int kind = 1);

  // ---- the rules, for hand-built programs and the hooks below
  struct Access {
    int64_t resource;  // tile slot id, or a GM tensor (see exec)
    bool write;
    int64_t lo = 0, hi = 1, width = 0;  // the part touched (Touch); a tile slot is [0, 1)
  };
  /// Runs an instruction of `cycles` on `pipe`; returns its end time.
  double run(ir::Pipe pipe, double cycles, int instr = -1, std::span<const Access> tiles = {});
  void set_flag(ir::Pipe src, ir::Pipe dst, int64_t event, int instr = -1);
  void wait_flag(ir::Pipe src, ir::Pipe dst, int64_t event, int instr = -1);
  void barrier(ir::Pipe pipe);
  void lock(int64_t mutex, ir::Pipe pipe, int instr = -1);
  void unlock(int64_t mutex, ir::Pipe pipe, int instr = -1);
  double pipe_free(ir::Pipe p) const { return pipes_[static_cast<int>(p)].free_at; }
  /// When the scalar unit issues the next instruction (cycles from the core's start).
  double issue_time() const { return issue_at_; }
  /// set_cross_core on `pipe`: the flag carries the pipe's finish time and clock.
  CrossFlag cross_set(ir::Pipe pipe, int instr = -1) const;
  /// wait_cross_core on `pipe`: holds it until every flag in `flags` has arrived.
  void cross_wait(ir::Pipe pipe, std::span<const CrossFlag> flags, int instr = -1);

  // ---- the hooks called by generated code (KernelABI.hpp)
  void exec(int instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi);
  void sync(int instr, int64_t event, int64_t slot);

  /// Keeps every instruction span and flag flow (for trace_view.json); off by default.
  void record_spans(bool on) { record_ = on; }
  const std::vector<InstrSpan>& spans() const { return spans_; }
  const std::vector<FlagFlow>& flows() const { return flows_; }

  CoreTiming timing() const;
  const std::vector<RaceReport>& races() const { return races_; }
  /// Keeps every GM access of a race-checked core (for the check between blocks); off by default.
  void keep_gm_spans(bool on) { keep_gm_spans_ = on; }
  /// Every GM access of the core, in program order (with keep_gm_spans).
  const std::vector<GmSpan>& gm_spans() const { return gm_spans_; }
  /// A deadlock or a sync misuse: the reason and the instruction, if any.
  const std::optional<std::pair<std::string, int>>& failure() const { return failure_; }

 private:
  struct Pipe {
    double free_at = 0;
    PipeTotals totals;
    Clock clock{};
  };
  struct Flag {
    double time;
    Clock clock;
    int instr;
  };
  struct Mutex {
    double release = 0;
    Clock clock{};
    bool held = false;
  };
  void hold_until(Pipe& p, double t);
  /// Checks an access of `pipe` to resource `key` against the other pipes' last accesses (of
  /// every core of the block for GM), then records it.
  void access(int64_t key, int pipe, bool write, int64_t lo, int64_t hi, int instr, int64_t width = 0);
  /// Reports the newest access in `h` that overlaps `t` and is not ordered before clock value `seen`.
  void check_history(const char* kind, int64_t key, const TouchHistory& h, const Touch& t, uint64_t seen, int first_at, int second_at);
  /// `first_at`, `second_at`: clock indices (slot * kPipeCount + pipe).
  void report_race(const char* kind, int64_t key, const Touch& first, int first_at, int second_at, int second_instr);
  int at(int pipe) const { return slot_ * kPipeCount + pipe; }
  std::string resource_name(int64_t key) const;
  std::string describe(int instr, int at) const;
  void fail(std::string reason, int instr);
  int64_t tile_resource(int group, int64_t slot) const;

  const CompiledKernel* kernel_;
  const CostModel& cost_;
  int core_;
  bool race_check_;
  int slot_;
  GmRaceState* gm_;
  int kind_;
  double issue_at_ = 0;
  std::array<Pipe, kPipeCount> pipes_{};
  std::map<std::tuple<int, int, int64_t>, std::vector<Flag>> flags_;
  std::map<int64_t, Mutex> mutexes_;
  std::map<int64_t, ResourceState> resources_;  // tile slot ids >= 0, GM tensor t as -(t + 1)
  GmRaceState own_gm_;
  std::vector<int64_t> group_base_;
  std::vector<bool> shared_group_;  // per tile group: a cross-core move's destination (race state shared by
                                    // the block); empty when the kernel has no cross-core moves
  std::vector<RaceReport> races_;
  std::vector<GmSpan> gm_spans_;
  bool keep_gm_spans_ = false;
  std::map<std::tuple<std::string, int, int>, size_t> race_index_;
  double gm_read_ = 0, gm_write_ = 0, flops_ = 0, macs_ = 0;
  uint64_t barriers_ = 0;
  std::optional<std::pair<std::string, int>> failure_;
  bool record_ = false;
  std::vector<InstrSpan> spans_;
  std::vector<FlagFlow> flows_;
};

}  // namespace pto
