#include "pto/backend/Passes.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

// Wraps every instruction that touches tiles in a lock/unlock of each tile slot's mutex on the
// instruction's pipe. In program order this gives exactly the flags a tile group needs:
// producer -> consumer (RAW), consumer -> next producer of the same slot (WAR, loop-carried
// through next()), WAW between producers; the first use of a slot waits for nothing (primed)
// and the kernel ends when every pipe has drained.
class AutoMutex : public ir::Mutator {
 public:
  explicit AutoMutex(ir::Kernel& k) : k_(k) {}

 protected:
  ir::Stmt mutate_node(const ir::Load* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::Store* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::VecCompute* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::RowReduce* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::VecRoutine* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::Move* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::Matmul* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::Debug* op, const ir::Stmt& self) override { return wrap(op, *op, self); }
  ir::Stmt mutate_node(const ir::ElemAccess* op, const ir::Stmt& self) override { return wrap(op, *op, self); }

 private:
  ir::Instr new_instr(ir::SyncOp op, ir::Pipe pipe, const ir::TileRef& t, const SourceLoc& loc) {
    const int id = static_cast<int>(k_.instrs.size());
    ir::InstrInfo info{ir::sync_op_name(op), pipe, "", loc};
    info.text = std::string(ir::sync_op_name(op)) + "(" + ir::pipe_name(pipe) + ", auto mutex of " + k_.groups[t.group].name + ")";
    info.automatic = true;
    k_.instrs.push_back(std::move(info));
    return {id, loc};
  }

  /// Whether two slot expressions name the same slot: the same node, or the same expression
  /// built twice (`g.current()` read twice in one tile expression, slot 0 of a single tile).
  static bool same_slot(const ir::Expr& a, const ir::Expr& b) { return a.same_as(b) || ir::to_string(a) == ir::to_string(b); }

  ir::Stmt wrap(const ir::StmtNode* node, const ir::Instr& instr, const ir::Stmt& self) {
    std::vector<ir::TileRef> tiles;
    for (const auto& a : ir::tile_accesses(node)) {
      if (a.remote) continue;  // another core's tile: ordered by cross-core flags, not this core's mutexes
      bool seen = false;
      for (const auto& t : tiles) seen |= t.group == a.tile.group && same_slot(t.slot, a.tile.slot);
      if (!seen) tiles.push_back(a.tile);
    }
    if (tiles.empty()) return self;
    const ir::Pipe pipe = k_.instrs[instr.id].pipe;
    // Two references to one group with different slot expressions (g.current() and g[0]) may
    // name one slot at run time: the later one locks only when its slot differs from every
    // earlier one of the group, so one slot is never locked twice.
    std::vector<ir::Expr> distinct(tiles.size());
    for (size_t i = 0; i < tiles.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (tiles[j].group != tiles[i].group) continue;
        ir::Expr ne = ir::Binary::make(ir::BinaryOp::NE, tiles[i].slot, tiles[j].slot);
        distinct[i] = distinct[i] ? ir::Binary::make(ir::BinaryOp::And, distinct[i], ne) : ne;
      }
    }
    auto guarded = [&](size_t i, ir::Stmt s) { return distinct[i] ? ir::IfThenElse::make(distinct[i], std::move(s), ir::Stmt()) : s; };
    std::vector<ir::Stmt> seq;
    for (size_t i = 0; i < tiles.size(); ++i) {
      const auto& t = tiles[i];
      seq.push_back(guarded(i, ir::Sync::make(ir::SyncOp::MutexLock, pipe, pipe, ir::IntImm::make(-1), t,
                                              new_instr(ir::SyncOp::MutexLock, pipe, t, instr.loc))));
    }
    seq.push_back(self);
    for (size_t i = 0; i < tiles.size(); ++i) {
      const auto& t = tiles[i];
      seq.push_back(guarded(i, ir::Sync::make(ir::SyncOp::MutexUnlock, pipe, pipe, ir::IntImm::make(-1), t,
                                              new_instr(ir::SyncOp::MutexUnlock, pipe, t, instr.loc))));
    }
    return ir::Seq::make(std::move(seq));
  }

  ir::Kernel& k_;
};

}  // namespace

void insert_auto_mutex(ir::Kernel& k) {
  // Hand-written flags or mutexes next to auto_mutex guard the same dependencies twice.
  for (const auto& info : k.instrs) {
    if (info.automatic || (info.op != "set_flag" && info.op != "wait_flag" && info.op != "mutex_lock")) continue;
    k.warnings.push_back("auto_mutex is on and the kernel also synchronises by hand (" + info.op + " at " + info.loc.str() +
                         "): the tile dependencies are guarded twice; drop the manual flags or auto_mutex");
    break;
  }
  k.body = AutoMutex(k).mutate(k.body);
}

}  // namespace pto::backend
