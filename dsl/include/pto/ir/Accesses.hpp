#pragma once
// The tiles an instruction touches, in one fixed order shared by the code generator (which
// reports the runtime slot of each) and the instruction table (which names them).
#include <vector>

#include "pto/ir/IR.hpp"

namespace pto::ir {

struct TileAccess {
  TileRef tile;
  bool write;
  bool remote = false;  // the tile lives in another core of the block (a cross-core move's destination)
};

/// The tile reads of a tile expression, in expression order (a node once per occurrence).
std::vector<const TileRead*> tile_reads(const Expr& e);

/// Writes first, then reads in expression order. Empty for non-instructions and syncs.
std::vector<TileAccess> tile_accesses(const StmtNode* instr);

/// The instructions one iteration of a loop with this body runs outside its nested loops (each
/// nested loop counts 1; its own body is charged by that loop): what an iteration costs of a
/// core's instruction budget, with 1 for the loop itself.
int64_t loop_iteration_cost(const Stmt& body);

}  // namespace pto::ir
