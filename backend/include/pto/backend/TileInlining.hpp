#pragma once
// Tile inlining: a cheap tile expression inside a row fusion run that the run's later
// instructions read, computed where it is read instead of written into its tile (Halide's
// compute_inline, for one statement list).
//
// Layernorm's `d = x - mean; row_sum(var, d * d); ...; y = d * rstd * g + b` writes d's rows and
// reads them back twice; on the host each float crosses the L1 three more times than in
// `(x - mean) * (x - mean)` and `(x - mean) * rstd * g + b`, which compute the same bits (the same
// operations on the same values, no fast-math: CodeGenMath.cpp). A VecCompute P of a run
// (RowFusion.hpp) is inlined when:
//   - it writes the whole slot of a one-slot f32 tile T in Vec, placed by the planner, and its
//     expression is of f32 and has at most kMaxInlinedOperations operations;
//   - T's every read in the kernel is a plain read (the whole slot: no window, no broadcast
//     either way) by an instruction of the same run after P: a fused instruction or the forwarded
//     store's expression (what other instructions write into T is then never read);
//   - no instruction of the run after P, up to its last reader of T, writes T or a tile P reads
//     (the run itself keeps the tiles it writes off every tile it touches).
// Each reader then computes P's expression where it read T, on the same row and column: the
// reader's extent lies within T's valid extent (insert_checks' operand checks stop the core
// otherwise), which P set to its own. P writes nothing; it still sets T's valid extent and reports
// itself to the pipeline model in program order (simulated time, races and counters do not
// change). T's bytes are never read, so nothing can tell. The interpreter writes and reads T;
// both give the same bytes.
#include <cstddef>
#include <unordered_map>
#include <unordered_set>

#include "pto/backend/RowFusion.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct TileInlining {
  /// The most operations an inlined expression has (layernorm's `x - mean`: one).
  static constexpr int kMaxInlinedOperations = 4;
  std::unordered_map<const ir::StmtNode*, ir::Expr> values;      // a reader's expression, T's reads replaced
  std::unordered_set<const ir::StmtNode*> inlined;               // the producers: they write nothing
  std::unordered_map<const ir::TileRead*, const ir::StmtNode*> owner;  // a producer's leaf, read by its readers: the producer

  /// Tile expression instruction `s`'s expression, inlined tiles' reads replaced.
  const ir::Expr& value_of(const ir::StmtNode* s) const;
};

/// The inlined tile expressions of `k`'s row fusion runs.
TileInlining find_tile_inlining(const ir::Kernel& k, const RowFusion& fusion, const StoreForwarding& forwarding);

}  // namespace pto::backend
