#pragma once
// Load elision: which GM -> Vec loads the generated code may skip, because every later read of
// their tile can read the GM region itself.
//
// On the host, a load is a copy of GM into the core's UB arena, and the tile expressions after it
// read the copy: every element crosses the host's caches once more than a plain loop's would. A
// load can instead hand its region (address and row pitch) to the expressions that read its tile,
// when nothing can tell the difference:
//   - the kernel is a vector kernel that meets no other core (no cross-core flag, sync_all or
//     cross-core move) and has no debugging aid (a dump would read the tile);
//   - the tile's group lives in Vec, is placed by the planner (no addrs=, so no alias shares its
//     bytes), has the tensor's dtype, and is written only by loads, each of them elided;
//   - the load is a whole slot (no window) from a region with contiguous columns;
//   - every read of the group anywhere in the kernel is a plain tile read (no view, no broadcast)
//     in a VecCompute or RowReduce that follows its load in the same statement list, with only
//     statements between them that write no GM, write no tile of the group and change no scalar:
//     other loads, tile expressions, intra-core syncs and checks.
// Then the GM a read sees is the GM the load would have copied (this core wrote none in between;
// another core writing it would be a race, which the checker reports either way), and the UB copy
// would never be read. The elided load still checks its region, sets the tile's valid extent and
// reports itself to the pipeline model: simulated time, races and counters do not change. The
// interpreter always copies; both compute the same results.
#include <unordered_map>
#include <unordered_set>

#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct LoadElision {
  std::unordered_set<const ir::Load*> loads;                         // copy nothing
  std::unordered_map<const ir::TileRead*, const ir::Load*> reads;    // read this load's GM region
};

LoadElision find_load_elision(const ir::Kernel& k);

}  // namespace pto::backend
