#pragma once
// Load elision: which GM -> Vec/Mat loads the generated code may skip, because every later read
// of their tile can read the GM region itself.
//
// On the host, a load is a copy of GM into the core's UB or L1 arena, and what follows reads the
// copy: every element crosses the host's caches once more than a plain loop's would. A load can
// instead hand its region (address and row pitch) to its tile's readers when nothing can tell the
// difference:
//   - the kernel has no debugging aid (a dump reads tiles);
//   - the tile's group lives in Vec or Mat, is placed by the planner (no addrs=, so no alias
//     shares its bytes), has the tensor's dtype, and is written only by loads, each elidable;
//   - the load is a whole slot (no window) from a region with contiguous columns;
//   - every read of the group anywhere in the kernel is a plain tile read (no view, no broadcast)
//     in a VecCompute or RowReduce, or the source of a local move (Mat -> Left/Right, transposed
//     or a window too), that follows its load in the same statement list with only statements
//     between them that write no GM, write no tile of the group, change no scalar the load's slot
//     names and meet no other core: other loads, tile expressions, local moves, matmuls,
//     intra-core syncs, checks, assignments of other scalars, and loops whose whole bodies are
//     such statements (their reads are fused too: every iteration reads the region as loaded).
// A second step goes one move further: an untransposed move of such a region into Left or Right
// (a whole panel or an extract window) whose tile only the matmuls after it read, under the same
// rules, copies nothing either; those matmuls read A and B from GM with their row pitches (the
// multiply packs B a wide pitch apart itself, once; LoadElision.cpp says why and by how much).
// Then the GM a reader sees is the GM the load would have copied: this core wrote none in between,
// no cross-core flag or barrier lies between (so no protocol lets another core write it there),
// and another core writing it anyway is a race, which the checker reports either way. The copy
// would never be read. The elided load still checks its region, sets the tile's valid extent and
// reports itself to the pipeline model: simulated time, races and counters do not change. The
// interpreter always copies; both compute the same results.
#include <map>
#include <unordered_map>
#include <utility>
#include <unordered_set>

#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct LoadElision {
  std::unordered_set<const ir::Load*> loads;                         // copy nothing
  // Tile reads, each in its instruction (one expression node may be shared by several), that read
  // this load's GM region.
  std::map<std::pair<const ir::StmtNode*, const ir::TileRead*>, const ir::Load*> reads;
  std::unordered_map<const ir::Move*, const ir::Load*> moves;        // copy from this load's GM region
  std::unordered_set<const ir::Move*> forwarded;                     // of those (into Left, Right): copy nothing
  std::unordered_map<const ir::TileRef*, const ir::Move*> operands;  // matmul `a`, `b` operands that read that region
};

LoadElision find_load_elision(const ir::Kernel& k);

}  // namespace pto::backend
