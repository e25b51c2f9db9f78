#include "pto/backend/StoreForwarding.hpp"

#include <vector>

#include "StmtScan.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

bool candidate_compute(const ir::Kernel& k, const ir::VecCompute* v) {
  const auto& g = k.groups[static_cast<size_t>(v->dst.group)];
  return !v->dst.window && g.space == ir::MemSpace::Vec && g.addrs.empty();
}

bool plain_store(const ir::Kernel& k, const ir::Store* s) {
  const bool unit_columns = !s->dst.stride[1] || ir::int_constant(s->dst.stride[1]) == 1;
  return !s->atomic_add && !s->relu && !s->scale && !s->src.window && unit_columns &&
         k.tensors[static_cast<size_t>(s->dst.tensor)].dtype == k.groups[static_cast<size_t>(s->src.group)].dtype;
}

/// One walk: the pairs, every instruction and how often each occurs.
struct Survey : stmt_scan::InstrSurvey {
  explicit Survey(const ir::Kernel& kernel) : k(kernel) {}
  const ir::Kernel& k;
  std::unordered_map<const ir::Store*, const ir::VecCompute*> pairs;
  std::unordered_set<const ir::VecCompute*> paired;

  void visit_node(const ir::Seq* op) override {
    std::vector<ir::Stmt> flat;
    stmt_scan::flatten(op->body, flat);
    for (size_t i = 0; i < flat.size(); ++i) {
      const auto* v = flat[i].as<ir::VecCompute>();
      if (!v || !candidate_compute(k, v)) continue;
      size_t j = i + 1;
      while (j < flat.size() && stmt_scan::between_pipes(flat[j])) ++j;
      const auto* s = j < flat.size() ? flat[j].as<ir::Store>() : nullptr;
      if (s && s->src.group == v->dst.group && stmt_scan::same_slot(s->src.slot, v->dst.slot) && plain_store(k, s)) {
        pairs.emplace(s, v);
        paired.insert(v);
      }
    }
    for (const auto& s : flat) visit(s);  // not the nested lists again: their statements are here
  }
  /// `instr`'s access of its group is one side of a pair that occurs once.
  bool in_pair(const ir::StmtNode* instr, bool write) const {
    if (!once(instr)) return false;
    if (write) return instr->kind == ir::NodeKind::VecCompute && paired.count(static_cast<const ir::VecCompute*>(instr));
    if (instr->kind != ir::NodeKind::Store) return false;
    const auto p = pairs.find(static_cast<const ir::Store*>(instr));
    return p != pairs.end() && once(p->second);
  }
};

}  // namespace

StoreForwarding find_store_forwarding(const ir::Kernel& k) {
  StoreForwarding out;
  Survey s(k);
  if (!stmt_scan::survey(k, s)) return out;
  std::vector<bool> ok(k.groups.size(), true);
  for (const auto* instr : s.instrs) {
    for (const auto& a : ir::tile_accesses(instr)) {
      if (!s.in_pair(instr, a.write)) ok[static_cast<size_t>(a.tile.group)] = false;
    }
  }
  for (const auto& [store, compute] : s.pairs) {
    if (!ok[static_cast<size_t>(compute->dst.group)]) continue;  // (in_pair: both occur once)
    out.stores.emplace(store, compute);
    out.computes.insert(compute);
  }
  return out;
}

}  // namespace pto::backend
