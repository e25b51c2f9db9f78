#pragma once
// What a core records while it runs, for the whole-launch timing replay (timing/Replay.hpp): one
// TimedOp per instruction and per sync point, in program order, with the orderings it must obey
// (its pipe's previous op, the flags, mutexes, barriers and cross-core flags it waits on). Costs
// are uncontended here; the replay adds what the cores share (L2, HBM).
#include <cstdint>
#include <vector>

#include "pto/backend/ChipProfile.hpp"

namespace pto::timing {

enum class OpKind : uint8_t {
  Work,      // a fixed duration: head (when its pipe starts from idle) + body
  Transfer,  // a GM transfer: head (the DMA latency) + bytes at the rate the shared L2/HBM give it
  Sync,      // a flag, mutex or cross-core point on a pipe: no duration, waits on its deps
  Barrier,   // pipe_barrier(ALL): on no pipe; waits for every pipe, holds the scalar unit
};

// The records below have no padding (explicit spare bytes, always zero): a launch's traces are
// fingerprinted by their bytes (emulator/ReplayCache.hpp).

/// A GM region a transfer touches: rows of the row-major view `width` elements wide that cover
/// [lo, hi) (width 0: the 1-D range [lo, hi)), of tensor `tensor` with `elem_bytes` elements.
struct GmRegion {
  int32_t tensor = -1;
  int32_t elem_bytes = 1;
  int64_t lo = 0, hi = 0, width = 0;
  bool write = false;
  uint8_t spare[7] = {};
};
static_assert(sizeof(GmRegion) == 40, "GmRegion must have no padding");

/// An op of a core of the launch.
struct OpRef {
  int32_t core = -1, op = -1;
};
static_assert(sizeof(OpRef) == 8, "OpRef must have no padding");

struct TimedOp {
  double head = 0, body = 0;  // cycles (Transfer: head is the latency, body unused)
  double bytes = 0;           // Transfer: bytes moved
  int32_t instr = -1;         // the kernel's instruction id (-1: none, e.g. hand-built)
  int32_t barrier = -1;       // this core's last barrier op before this one
  uint32_t issue = 0;         // instructions issued since that barrier (or the core's start)
  uint32_t dep_begin = 0;     // its deps: CoreTrace::deps[dep_begin, dep_begin + dep_count)
  int32_t region = -1;        // Transfer: CoreTrace::regions index
  uint16_t dep_count = 0;
  uint8_t pipe = 0;           // ir::Pipe
  OpKind kind = OpKind::Work;
  PathId path = PathId::GmToVec;  // Transfer: the path (its peak caps the rate)
  bool on_chip = false;       // Work: a move between local memories
  bool flow = false;          // Sync: a flag wait whose flows the trace view shows
  uint8_t spare = 0;
  float convert = 0;          // Work, Transfer: cycles of it spent converting layouts (ir::Conversion)
};
static_assert(sizeof(TimedOp) == 56, "TimedOp must have no padding");

struct CoreTrace {
  int kind = 1;  // ir::CoreKind
  int slot = 0;  // place in the block (0: AIC or single core, 1/2: AIV 0/1 of a mix block)
  std::vector<TimedOp> ops;
  std::vector<OpRef> deps;  // the ops' deps, each op's in one run, in op order (every entry belongs to one op)
  std::vector<GmRegion> regions;
  // A copy (CoreModel::record_shifted; TraceCopies.hpp): the trace of core `copy_of` of the launch
  // (itself no copy, of the same kind and slot) with each region of tensor t `shift[t]` elements
  // further on (0 past the end) and each dep on core d one on core d + (this core - copy_of). A
  // copy holds no ops, deps or regions of its own. -1: not a copy.
  int32_t copy_of = -1;
  std::vector<int64_t> shift;
};

}  // namespace pto::timing
