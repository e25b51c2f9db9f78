#pragma once
// Store forwarding: which GM stores compute their tile expression straight into GM, the dual of
// load elision (LoadElision.hpp).
//
// On the host, `y = f(x); store(Y, y)` is a pass that writes y into the core's UB arena and a copy
// of it into GM: every element crosses the host's caches once more than a plain loop's would
// (softmax 4096x1024 f32 spent 27% of its time in that copy). The store can instead run the
// expression itself, writing GM, when nothing can tell the difference:
//   - the kernel has no debugging aid (a dump reads tiles);
//   - the VecCompute writes a whole slot (no window) of a group in Vec, placed by the planner (no
//     addrs=, so no alias shares its bytes);
//   - the Store is plain (no atomic add, relu or scale), into a tensor of the group's dtype, with
//     contiguous columns, and reads the whole slot (no window) the VecCompute wrote;
//   - only checks and syncs between the pipes of the core lie between the two in one statement
//     list: no tile, GM or scalar is written there and no other core is met, so the expression's
//     operands (tiles, and GM regions of elided loads) hold at the store what they held before;
//   - the group's every write is such a VecCompute and its every read such a Store, each
//     instruction occurring once in the kernel: its UB bytes are never read.
// The VecCompute then writes nothing; it sets its tile's valid extent and reports itself to the
// pipeline model where it stands (simulated time, races and counters do not change). Its store,
// after the store's own checks have passed, computes the expression where the copy would have
// gone: when the region is the expression's extent and no GM region the expression reads overlaps
// it, straight into GM (for a store that streams past the host's caches, kStreamingStoreBytes,
// each row's whole 64-byte lines with one non-temporal store each, straight from the registers:
// plain stores would read every GM line first; the columns before the first whole line and after
// the last are stored plainly); otherwise into the tile, which it then copies as before. GM is
// written where it always was. The interpreter computes and copies; both give the same bytes.
// Measured (2026-12-06, Zen 5 VM, 2 host threads, `pto bench --block-dim 8`, three alternating
// pairs of processes, whole lines from the registers / each row through the tile and streamed):
// vector_add 16M 2.25-2.62 / 3.55-4.28 ms, softmax 4096x1024 f32 0.75-0.87 / 0.78-0.96 ms, f16
// 0.71-0.78 / 0.97-1.10 ms, layernorm 4096x1024 0.57-0.62 / 0.62-0.76 ms. A standalone loop had
// shown why: c = a + b through a 32 KB buffer streamed out took 1.3-1.4x the time of the same loop
// storing non-temporal from the registers, on 2 threads; a 256-byte buffer still 1.2x.
// Forwarding itself, on / off (2026-12-05, Zen 4 VM, 2 host threads, `pto bench`, three
// alternating pairs of processes; the streaming stores then each row through the tile): softmax 4096x1024 f32 1.33-1.34 / 1.48-1.50 ms,
// layernorm 4096x1024 0.95-1.02 / 1.07-1.08 ms, vector_add 16M 5.10-5.17 / 5.11-5.31 ms. Into GM
// (two pairs): layernorm 1024x1024 0.18-0.27 / 0.22-0.31 ms, vector_add 1M 0.12-0.18 / 0.16-0.23 ms.
#include <unordered_map>
#include <unordered_set>

#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct StoreForwarding {
  std::unordered_map<const ir::Store*, const ir::VecCompute*> stores;  // computes this expression into GM
  std::unordered_set<const ir::VecCompute*> computes;                 // writes no tile (its store computes it)
};

StoreForwarding find_store_forwarding(const ir::Kernel& k);

}  // namespace pto::backend
