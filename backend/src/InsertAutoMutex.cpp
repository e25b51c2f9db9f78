#include "pto/backend/Passes.hpp"

#include <map>

#include "pto/ir/Accesses.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

/// Whether two slot expressions name the same slot: the same node, or the same expression
/// built twice (`g.current()` read twice in one tile expression, slot 0 of a single tile).
bool same_slot(const ir::Expr& a, const ir::Expr& b) { return a.same_as(b) || ir::to_string(a) == ir::to_string(b); }

/// The tile slots auto_mutex guards around instruction `node`, in the order of its locks: its own
/// core's tiles, each slot once (another core's tile is ordered by cross-core flags instead).
std::vector<ir::TileRef> guarded_tiles(const ir::StmtNode* node) {
  std::vector<ir::TileRef> tiles;
  for (const auto& a : ir::tile_accesses(node)) {
    if (a.remote) continue;
    bool seen = false;
    for (const auto& t : tiles) seen |= t.group == a.tile.group && same_slot(t.slot, a.tile.slot);
    if (!seen) tiles.push_back(a.tile);
  }
  return tiles;
}

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

  ir::Stmt wrap(const ir::StmtNode* node, const ir::Instr& instr, const ir::Stmt& self) {
    const std::vector<ir::TileRef> tiles = guarded_tiles(node);
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

/// Finds the instructions still wrapped as AutoMutex::wrap left them, and the groups some other
/// tile access reaches (mutex_ordered_groups).
class MutexOrder : public ir::Visitor {
 public:
  explicit MutexOrder(const ir::Kernel& k) : k_(k), ordered_(k.groups.size(), true) {}
  std::vector<bool> result() && { return std::move(ordered_); }

 protected:
  // Every statement: a Seq's wrapped instructions are found before its statements are visited.
#define PTO_X(name)                              \
  void visit_node(const ir::name* op) override { \
    note(op);                                    \
    ir::Visitor::visit_node(op);                 \
  }
  PTO_FOR_EACH_IR_STMT(PTO_X)
#undef PTO_X

 private:
  void note(const ir::Seq* op) {
    for (size_t i = 0; i < op->body.size(); ++i) {
      if (const ir::StmtNode* instr = checked_instr(op->body[i]); instr && wrapped(op->body, i, instr)) ++guarded_[instr];
    }
  }
  void note(const ir::StmtNode* op) {
    const auto accesses = ir::tile_accesses(op);
    if (accesses.empty()) return;
    // One wrapped occurrence found per visit (a node the IR holds in two places is guarded only
    // where it is wrapped: any occurrence without a wrap leaves its groups unordered).
    auto it = guarded_.find(op);
    const bool guarded = it != guarded_.end() && it->second > 0;
    if (guarded) --it->second;
    for (const auto& a : accesses) {
      if (a.remote || !guarded) ordered_[static_cast<size_t>(a.tile.group)] = false;
    }
  }

  /// The instruction `s` is, alone or after its runtime checks (insert_checks puts them with it in
  /// a Seq), when it touches tiles; else null.
  static const ir::StmtNode* checked_instr(const ir::Stmt& s) {
    if (const auto* seq = s.as<ir::Seq>()) {
      if (seq->body.empty()) return nullptr;
      for (size_t i = 0; i + 1 < seq->body.size(); ++i) {
        if (!seq->body[i].as<ir::Check>()) return nullptr;
      }
      return checked_instr(seq->body.back());
    }
    return s && !s.as<ir::Sync>() && !ir::tile_accesses(s.get()).empty() ? s.get() : nullptr;
  }

  /// The automatic `op` sync of tile `t` that `s` is (bare, or under an if without else: the
  /// guard that skips a slot an earlier reference of the group already locked), or null.
  const ir::Sync* auto_sync(const ir::Stmt& s, ir::SyncOp op, const ir::TileRef& t) const {
    ir::Stmt inner = s;
    if (const auto* guard = s.as<ir::IfThenElse>()) {
      if (guard->else_case) return nullptr;
      inner = guard->then_case;
    }
    const auto* sync = inner.as<ir::Sync>();
    if (!sync || sync->op != op || !k_.instrs[static_cast<size_t>(sync->id)].automatic) return nullptr;
    return sync->tile.group == t.group && same_slot(sync->tile.slot, t.slot) ? sync : nullptr;
  }

  /// Whether body[at] (instruction `instr`) has every lock AutoMutex::wrap put before it, in
  /// order, with only runtime checks between them and it, and every unlock right after it.
  bool wrapped(const std::vector<ir::Stmt>& body, size_t at, const ir::StmtNode* instr) const {
    const std::vector<ir::TileRef> tiles = guarded_tiles(instr);
    const size_t n = tiles.size();
    size_t before = at;
    for (size_t j = n; j-- > 0;) {
      while (before > 0 && body[before - 1].as<ir::Check>()) --before;
      if (before == 0 || !auto_sync(body[--before], ir::SyncOp::MutexLock, tiles[j])) return false;
    }
    if (at + n >= body.size()) return false;
    for (size_t j = 0; j < n; ++j) {
      if (!auto_sync(body[at + 1 + j], ir::SyncOp::MutexUnlock, tiles[j])) return false;
    }
    return true;
  }

  const ir::Kernel& k_;
  std::vector<bool> ordered_;
  std::map<const ir::StmtNode*, int> guarded_;  // wrapped occurrences not yet visited
};

}  // namespace

std::vector<bool> mutex_ordered_groups(const ir::Kernel& k) {
  MutexOrder order(k);
  order.visit(k.body);
  return std::move(order).result();
}

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
