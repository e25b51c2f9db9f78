#include "pto/backend/TileInlining.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "StmtScan.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

/// The operations of `e` (Binary, Unary, Cast, Select nodes).
int operation_count(const ir::Expr& e) {
  struct Counter : ir::Visitor {
    int n = 0;
#define PTO_COUNT(T)                              \
  void visit_node(const ir::T* op) override { \
    ++n;                                          \
    ir::Visitor::visit_node(op);                  \
  }
    PTO_COUNT(Binary)
    PTO_COUNT(Unary)
    PTO_COUNT(Cast)
    PTO_COUNT(Select)
#undef PTO_COUNT
  } c;
  c.visit(e);
  return c.n;
}

/// `e` with every read of group `tile` replaced by `value`.
ir::Expr substitute(const ir::Expr& e, int tile, const ir::Expr& value) {
  struct Substitute : ir::Mutator {
    int tile;
    ir::Expr value;
    using ir::Mutator::mutate_node;
    ir::Expr mutate_node(const ir::TileRead* op, const ir::Expr& self) override { return op->tile.group == tile ? value : self; }
  } s;
  s.tile = tile, s.value = value;
  return s.mutate(e);
}

bool plain_read(const ir::TileRead* l) { return !l->tile.window && !l->row_broadcast && !l->col_broadcast; }

struct Inliner {
  const ir::Kernel& k;
  const std::vector<const ir::StmtNode*>& instrs;  // every instruction of the kernel
  TileInlining& out;

  const ir::Expr& value(const ir::StmtNode* s) const { return out.value_of(s); }

  bool candidate(const ir::VecCompute* p) const {
    const auto& g = k.groups[static_cast<size_t>(p->dst.group)];
    return !p->dst.window && g.depth == 1 && g.space == ir::MemSpace::Vec && g.addrs.empty() && g.dtype == DType::f32 &&
           p->value->type.dtype == DType::f32 && operation_count(value(p)) <= TileInlining::kMaxInlinedOperations;
  }

  /// Inlines member `i` of `members` (a run's instructions in program order) if it qualifies.
  void consider(const std::vector<const ir::StmtNode*>& members, size_t i) {
    const auto* p = members[i]->kind == ir::NodeKind::VecCompute ? static_cast<const ir::VecCompute*>(members[i]) : nullptr;
    if (!p || !candidate(p)) return;
    const int t = p->dst.group;
    std::set<int> operands;
    for (const ir::TileRead* l : ir::tile_reads(value(p))) operands.insert(l->tile.group);
    if (operands.count(t)) return;  // P reads what T held before
    // Every read of T: a plain read by a later member (writes elsewhere are never read then).
    size_t last = 0;
    for (const ir::StmtNode* instr : instrs) {
      for (const auto& a : ir::tile_accesses(instr)) {
        if (a.tile.group != t || a.write) continue;
        const auto at = std::find(members.begin() + static_cast<std::ptrdiff_t>(i) + 1, members.end(), instr);
        if (at == members.end()) return;
        for (const ir::TileRead* l : ir::tile_reads(stmt_scan::expr_value(instr))) {
          if (l->tile.group == t && !plain_read(l)) return;
        }
        last = std::max(last, static_cast<size_t>(at - members.begin()));
      }
    }
    if (last == 0) return;  // nothing reads T
    for (size_t j = i + 1; j <= last; ++j) {
      const int written = stmt_scan::expr_dst(members[j]).group;
      if (written == t || operands.count(written)) return;  // T or P's operands change before a reader
    }
    const ir::Expr& pv = value(p);
    for (const ir::TileRead* l : ir::tile_reads(pv)) out.owner.emplace(l, p);
    for (size_t j = i + 1; j <= last; ++j) {
      const ir::Expr& v = value(members[j]);
      const ir::Expr replaced = substitute(v, t, pv);
      if (!replaced.same_as(v)) out.values[members[j]] = replaced;
    }
    out.inlined.insert(p);
  }
};

}  // namespace

const ir::Expr& TileInlining::value_of(const ir::StmtNode* s) const {
  const auto v = values.find(s);
  return v != values.end() ? v->second : stmt_scan::expr_value(s);
}

TileInlining find_tile_inlining(const ir::Kernel& k, const RowFusion& fusion, const StoreForwarding& forwarding) {
  TileInlining out;
  stmt_scan::InstrSurvey survey;
  if (fusion.runs.empty() || !stmt_scan::survey(k, survey)) return out;
  Inliner inliner{k, survey.instrs, out};
  for (const auto& [first, run] : fusion.runs) {
    std::vector<const ir::StmtNode*> members = run.fused;
    if (run.store) members.push_back(forwarding.stores.at(run.store));
    for (size_t i = 0; i < run.fused.size(); ++i) inliner.consider(members, i);
  }
  return out;
}

}  // namespace pto::backend
