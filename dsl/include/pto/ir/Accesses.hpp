#pragma once
// The tiles an instruction touches, in one fixed order shared by the code generator (which
// reports the runtime slot of each) and the instruction table (which names them).
#include <vector>

#include "pto/ir/IR.hpp"

namespace pto::ir {

struct TileAccess {
  TileRef tile;
  bool write;
};

/// Writes first, then reads in expression order. Empty for non-instructions and syncs.
std::vector<TileAccess> tile_accesses(const StmtNode* instr);

/// Number of element-wise operations in a tile expression (1 for a plain copy).
int vector_op_count(const Expr& e);

}  // namespace pto::ir
