#include "pto/backend/LoadElision.hpp"

#include <vector>

#include "pto/ir/Accesses.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

/// The same slot whatever the scalars hold: one variable (no assignment lies between the two
/// uses: the scan stops at every statement that could change a scalar) or one constant.
bool same_slot(const ir::Expr& a, const ir::Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b) return false;
  if (const auto* va = a.as<ir::Var>()) {
    const auto* vb = b.as<ir::Var>();
    return vb && vb->id == va->id;
  }
  const auto ia = ir::int_constant(a);
  return ia && ia == ir::int_constant(b);
}

/// Statements a load's window of readers may pass: none writes GM or changes a scalar.
bool passable(const ir::Stmt& s) {
  switch (s->kind) {
    case ir::NodeKind::Load:
    case ir::NodeKind::VecCompute:
    case ir::NodeKind::RowReduce:
    case ir::NodeKind::Matmul:
    case ir::NodeKind::Check: return true;
    case ir::NodeKind::Move: return !s.as<ir::Move>()->attrs.cross_core;
    case ir::NodeKind::Sync: return !ir::meets_other_cores(s.as<ir::Sync>()->op);
    default: return false;
  }
}

bool elidable_load(const ir::Kernel& k, const ir::Load* op) {
  const auto& g = k.groups[static_cast<size_t>(op->dst.group)];
  const bool unit_columns = !op->src.stride[1] || ir::int_constant(op->src.stride[1]) == 1;
  return !op->dst.window && unit_columns && (g.space == ir::MemSpace::Vec || g.space == ir::MemSpace::Mat) && g.addrs.empty() &&
         k.tensors[static_cast<size_t>(op->src.tensor)].dtype == g.dtype;
}

const ir::Expr& tile_value(const ir::Stmt& s) {
  if (const auto* v = s.as<ir::VecCompute>()) return v->value;
  return s.as<ir::RowReduce>()->value;
}

const ir::TileRef& tile_dst(const ir::Stmt& s) {
  if (const auto* v = s.as<ir::VecCompute>()) return v->dst;
  return s.as<ir::RowReduce>()->dst;
}

struct TileReads : ir::Visitor {
  std::vector<const ir::TileRead*> out;
  void visit_node(const ir::TileRead* op) override {
    out.push_back(op);
    ir::Visitor::visit_node(op);
  }
};

/// One walk over the kernel: the candidate windows, every tile read and every instruction.
struct Survey : ir::Visitor {
  explicit Survey(const ir::Kernel& kernel) : k(kernel) {}
  const ir::Kernel& k;
  bool blocked = false;  // a debugging aid (a dump reads tiles): nothing is elided
  std::unordered_map<const ir::Node*, const ir::Load*> fused;
  std::unordered_set<const ir::Node*> conflicted;  // one reader after two different loads
  std::vector<const ir::TileRead*> reads;
  std::vector<const ir::StmtNode*> instrs;

  void visit_node(const ir::Seq* op) override {
    std::vector<ir::Stmt> flat;  // nested lists run straight through (insert_auto_mutex makes them)
    flatten(op->body, flat);
    for (size_t i = 0; i < flat.size(); ++i) {
      const auto* load = flat[i].as<ir::Load>();
      if (load && elidable_load(k, load)) scan(flat, i, load);
    }
    ir::Visitor::visit_node(op);
  }
  static void flatten(const std::vector<ir::Stmt>& body, std::vector<ir::Stmt>& out) {
    for (const auto& s : body) {
      if (const auto* seq = s.as<ir::Seq>()) {
        flatten(seq->body, out);
      } else {
        out.push_back(s);
      }
    }
  }

  /// The readers of `load`'s tile after it, up to a statement that is not passable, the next load
  /// of its group or a write of its group.
  void scan(const std::vector<ir::Stmt>& body, size_t i, const ir::Load* load) {
    for (size_t j = i + 1; j < body.size() && passable(body[j]); ++j) {
      const ir::Stmt& s = body[j];
      if (const auto* next = s.as<ir::Load>()) {
        if (next->dst.group == load->dst.group) return;
        continue;
      }
      if (const auto* move = s.as<ir::Move>()) {
        if (move->src.group == load->dst.group && !move->src.window && same_slot(move->src.slot, load->dst.slot)) fuse(move, load);
        if (move->dst.group == load->dst.group) return;
        continue;
      }
      if (const auto* mm = s.as<ir::Matmul>()) {
        if (mm->dst.group == load->dst.group) return;
        continue;
      }
      if (s->kind != ir::NodeKind::VecCompute && s->kind != ir::NodeKind::RowReduce) continue;
      TileReads tr;
      tr.visit(tile_value(s));
      for (const auto* r : tr.out) {
        if (r->tile.group != load->dst.group || r->tile.window || r->row_broadcast || r->col_broadcast) continue;
        if (same_slot(r->tile.slot, load->dst.slot)) fuse(r, load);
      }
      if (tile_dst(s).group == load->dst.group) return;
    }
  }

  /// `reader` (a TileRead or a Move) reads `load`'s region; a node reached after two different
  /// loads is left alone.
  void fuse(const ir::Node* reader, const ir::Load* load) {
    auto [it, fresh] = fused.emplace(reader, load);
    if (!fresh && it->second != load) conflicted.insert(reader);
  }
  bool fused_alone(const ir::Node* reader) const { return fused.count(reader) && !conflicted.count(reader); }

  void visit_node(const ir::TileRead* op) override {
    reads.push_back(op);
    ir::Visitor::visit_node(op);
  }
  void visit_node(const ir::Debug* op) override {
    blocked = true;
    ir::Visitor::visit_node(op);
  }
#define PTO_INSTR(T)                         \
  void visit_node(const ir::T* op) override { \
    instrs.push_back(op);                    \
    ir::Visitor::visit_node(op);             \
  }
  PTO_INSTR(Load)
  PTO_INSTR(Store)
  PTO_INSTR(VecCompute)
  PTO_INSTR(RowReduce)
  PTO_INSTR(VecRoutine)
  PTO_INSTR(Move)
  PTO_INSTR(Matmul)
  PTO_INSTR(ElemAccess)
#undef PTO_INSTR
};

}  // namespace

LoadElision find_load_elision(const ir::Kernel& k) {
  LoadElision out;
  if (!k.body) return out;
  Survey s(k);
  s.visit(k.body);
  if (s.blocked) return out;
  // A group qualifies when its only writes are elidable loads and its only reads are fused ones.
  std::vector<bool> ok(k.groups.size(), true);
  for (const auto* instr : s.instrs) {
    const auto* load = instr->kind == ir::NodeKind::Load ? static_cast<const ir::Load*>(instr) : nullptr;
    const bool expression = instr->kind == ir::NodeKind::VecCompute || instr->kind == ir::NodeKind::RowReduce;
    for (const auto& a : ir::tile_accesses(instr)) {
      if (load && a.write && elidable_load(k, load)) continue;
      if (expression && !a.write) continue;  // a tile read: judged below, read by read
      if (instr->kind == ir::NodeKind::Move && !a.write && s.fused_alone(instr)) continue;
      ok[static_cast<size_t>(a.tile.group)] = false;
    }
  }
  for (const auto* r : s.reads) {
    if (!s.fused_alone(r)) ok[static_cast<size_t>(r->tile.group)] = false;
  }
  for (const auto* instr : s.instrs) {
    if (instr->kind != ir::NodeKind::Load) continue;
    const auto* load = static_cast<const ir::Load*>(instr);
    if (ok[static_cast<size_t>(load->dst.group)]) out.loads.insert(load);
  }
  for (const auto& [reader, load] : s.fused) {
    if (!ok[static_cast<size_t>(load->dst.group)]) continue;
    if (reader->kind == ir::NodeKind::Move) {
      out.moves.emplace(static_cast<const ir::Move*>(reader), load);
    } else {
      out.reads.emplace(static_cast<const ir::TileRead*>(reader), load);
    }
  }
  return out;
}

}  // namespace pto::backend
