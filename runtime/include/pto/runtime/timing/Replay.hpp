#pragma once
// Whole-launch timing by replay. Functional execution runs the cores in parallel and each records
// its ops (TimedOp.hpp); this replays all cores of the launch together, in simulated-time order,
// with what they share: an L2 (set-associative, LRU, the profile's size and line) and HBM
// bandwidth shared fairly among the GM transfers in flight at each moment (water-filling; idle
// cores and pipes take none), the L2's own bandwidth shared the same way. Per pipe, ops run in
// program order; an op starts when its pipe is free, its deps have ended and the scalar unit has
// issued it (issue_cycles per instruction after the core's start or its last barrier).
//
// Deterministic: the result depends only on the traces, the profile and the tensors' virtual GM
// bases, never on host threads or timing.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "pto/runtime/PipelineModel.hpp"
#include "pto/runtime/timing/TimedOp.hpp"

namespace pto::timing {

struct ReplayInput {
  const ChipProfile* chip = nullptr;
  std::span<const CoreTrace* const> cores;  // core c's trace, cores[c]; a copy names its original here (TraceCopies.hpp)
  std::span<const double> core_start;       // per core, cycles (empty: all 0)
  std::span<const uint64_t> tensor_base;    // per tensor: its virtual GM byte address (for the L2)
  uint64_t gm_footprint = 0;                // virtual GM addresses in use are below this (0: unknown)
  bool record_spans = false;                // keep each instruction's span and each flag flow
  bool op_times = true;                     // keep each op's start and end (CoreReplay::op_start, op_end)
  // Cores whose traces are the same and that start together are replayed as one, in groups of
  // such copies (the same result to the bit: ReplayResult::folded; timing/CoreGroups.hpp). False:
  // every core's ops go through the event loop.
  bool fold_identical_cores = true;
};

struct CoreReplay {
  double end_cycles = 0;
  std::array<PipeTotals, kPipeCount> pipes{};
  std::vector<InstrSpan> spans;  // with record_spans
  std::vector<FlagFlow> flows;   // with record_spans
  std::vector<double> op_start, op_end;  // per op of the core's trace, cycles (with op_times; else empty)
};

struct ReplayResult {
  std::vector<CoreReplay> cores;
  double l2_read_hit_bytes = 0, l2_read_miss_bytes = 0, gm_write_bytes = 0;
  double hbm_bytes = 0;  // read misses + writes (writes go through to HBM)
  bool folded = false;   // the cores were copies of core 0 and were replayed as one (ReplayInput::fold_identical_cores)
};

ReplayResult replay(const ReplayInput& in);

}  // namespace pto::timing
