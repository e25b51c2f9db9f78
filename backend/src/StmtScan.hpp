#pragma once
// What load elision and store forwarding (LoadElision.hpp, StoreForwarding.hpp) both ask of the
// statements between a copy and the instruction it feeds.
#include <array>
#include <unordered_map>
#include <vector>

#include "pto/ir/Kernel.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend::stmt_scan {

/// The same slot whatever the scalars hold: one variable (no assignment of it lies between the
/// two uses: the callers' scans stop at any statement that could change it) or one constant.
inline bool same_slot(const ir::Expr& a, const ir::Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b) return false;
  if (const auto* va = a.as<ir::Var>()) {
    const auto* vb = b.as<ir::Var>();
    return vb && vb->id == va->id;
  }
  const auto ia = ir::int_constant(a);
  return ia && ia == ir::int_constant(b);
}

/// Whether `s` may lie between two instructions that an analysis pairs or fuses: a check, or a
/// sync between the pipes of the core. It writes no tile, no GM and no scalar, and meets no other core.
inline bool between_pipes(const ir::Stmt& s) {
  if (s->kind == ir::NodeKind::Check) return true;
  const auto* sync = s.as<ir::Sync>();
  return sync && !ir::meets_other_cores(sync->op);
}

/// The destination, expression and extent of a tile expression instruction: a VecCompute or a RowReduce.
inline const ir::TileRef& expr_dst(const ir::StmtNode* s) {
  if (s->kind == ir::NodeKind::VecCompute) return static_cast<const ir::VecCompute*>(s)->dst;
  return static_cast<const ir::RowReduce*>(s)->dst;
}
inline const ir::Expr& expr_value(const ir::StmtNode* s) {
  if (s->kind == ir::NodeKind::VecCompute) return static_cast<const ir::VecCompute*>(s)->value;
  return static_cast<const ir::RowReduce*>(s)->value;
}
inline const std::array<ir::Expr, 2>& expr_extent(const ir::StmtNode* s) {
  if (s->kind == ir::NodeKind::VecCompute) return static_cast<const ir::VecCompute*>(s)->extent;
  return static_cast<const ir::RowReduce*>(s)->extent;
}

/// `body` with nested lists run straight through (insert_auto_mutex and insert_checks make them).
inline void flatten(const std::vector<ir::Stmt>& body, std::vector<ir::Stmt>& out) {
  for (const auto& s : body) {
    if (const auto* seq = s.as<ir::Seq>()) {
      flatten(seq->body, out);
    } else {
      out.push_back(s);
    }
  }
}

/// A walk that lists every instruction, counts how often each node occurs in the tree (a shared
/// node would be emitted in two places with one decision) and notes a debugging aid (a dump reads
/// tiles, so nothing is elided or forwarded).
struct InstrSurvey : ir::Visitor {
  bool blocked = false;
  std::vector<const ir::StmtNode*> instrs;
  std::unordered_map<const ir::StmtNode*, int> seen;
  const ir::StmtNode* current = nullptr;  // the instruction being walked

  bool once(const ir::StmtNode* s) const {
    const auto n = seen.find(s);
    return n != seen.end() && n->second == 1;
  }
  void visit_node(const ir::Debug* op) override {
    blocked = true;
    ir::Visitor::visit_node(op);
  }
#define PTO_INSTR(T)                         \
  void visit_node(const ir::T* op) override { \
    instrs.push_back(op);                    \
    ++seen[op];                              \
    const ir::StmtNode* outer = current;     \
    current = op;                            \
    ir::Visitor::visit_node(op);             \
    current = outer;                         \
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

/// Walks kernel `k` with `s`; false when there is nothing to decide (no body, or a debugging aid).
inline bool survey(const ir::Kernel& k, InstrSurvey& s) {
  if (!k.body) return false;
  s.visit(k.body);
  return !s.blocked;
}

}  // namespace pto::backend::stmt_scan
