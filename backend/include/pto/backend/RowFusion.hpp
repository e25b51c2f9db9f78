#pragma once
// Row fusion: runs of tile expressions that the code generator computes a few rows at a time,
// every instruction of the run on those rows before any instruction moves on to the next rows.
//
// On the host, `row_sum(mean, x); d = x - mean; row_sum(var, d * d); rstd = rsqrt(var * c + eps)`
// is four passes over whole tiles: each pass streams its operands through the host's caches
// again, and a 7-row tile of 1024 floats with its 7-row result is past the host's L1. Computed a
// few rows at a time, each instruction finds the rows the previous one wrote still in L1, as a
// plain C++ loop over rows would.
//
// A run, in one statement list (nested lists run straight through, as the code generator walks
// them), starts at a fused instruction and ends at its last fused instruction, or at a forwarded
// store (StoreForwarding.hpp) whose expression follows them: the store then computes its rows
// block by block too, into GM or streamed out a row at a time. Between them lie only checks and
// syncs between the pipes of the core. The fused instructions are
// VecComputes and RowReduces along rows (not argmax/argmin), each writing a whole slot (no
// window), occurring once in the kernel and computing no transcendental function (exp, log,
// tanh, sigmoid, erf, sin, cos, pow: bound by its arithmetic, such an instruction gains nothing
// from its operands in L1; measured in RowFusion.cpp). Row r of each depends only on row r of what the run
// writes, whatever order the rows are computed in, when:
//   - every read of a group the run writes is of whole rows of a slot (no window) and no one-row
//     read broadcast down the columns ({rows, 1} reads of row r are row r's);
//   - no two groups the run touches share bytes (the planner reuses a dead tile's bytes, and
//     addrs= places tiles on purpose), unless neither is written;
//   - a forwarded store writes GM block by block only when its region lies apart from every GM
//     region the run reads in place (elided loads; checked at run time): else its expression's
//     rows go into its tile and the store copies them once the run is done.
// A run has two fused instructions at least (one and its store measured slower in blocks). Its
// instructions have their checks, valid extents and model reports emitted in program order
// first (the pipeline model sees the same calls in the same order: simulated time, races and
// counters do not change), then one loop over blocks of four rows computes each instruction on
// the rows of the block that lie in its own extent, in program order. Row counts may differ:
// every access to what the run writes is to row r while row r is computed, so each row sees
// the program order's values (a row past an instruction's extent keeps what it held, as it would).
// A run's check that fails stops the core before the run computes or stores anything. A cheap
// tile expression that only the run's later instructions read is computed where it is read
// (TileInlining.hpp). The interpreter computes each instruction whole; both give the same bytes.
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "pto/backend/StoreForwarding.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct RowFusion {
  struct Run {
    size_t length = 0;                        // statements of the flattened list, from the first on
    std::vector<const ir::StmtNode*> fused;  // its VecComputes and RowReduces, in program order
    const ir::Store* store = nullptr;         // the forwarded store that ends it, if any
  };
  std::unordered_map<const ir::StmtNode*, Run> runs;  // by the run's first statement (a fused instruction)
};

/// The runs of `k` (lowered, memory planned) given the stores that compute their expressions.
RowFusion find_row_fusion(const ir::Kernel& k, const StoreForwarding& forwarding);

}  // namespace pto::backend
