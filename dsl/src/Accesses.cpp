#include "pto/ir/Accesses.hpp"

#include "pto/ir/Visitor.hpp"

namespace pto::ir {
std::vector<const TileRead*> tile_reads(const Expr& e) {
  struct Collector : Visitor {
    std::vector<const TileRead*> out;
    void visit_node(const TileRead* op) override { out.push_back(op); }
  } c;
  c.visit(e);
  return std::move(c.out);
}

namespace {

void reads(const Expr& e, std::vector<TileAccess>& out) {
  for (const auto* r : tile_reads(e)) out.push_back({r->tile, false});
}

}  // namespace

std::vector<TileAccess> tile_accesses(const StmtNode* s) {
  std::vector<TileAccess> out;
  switch (s->kind) {
    case NodeKind::Load: out.push_back({static_cast<const Load*>(s)->dst, true}); break;
    case NodeKind::Store: out.push_back({static_cast<const Store*>(s)->src, false}); break;
    case NodeKind::VecCompute: {
      const auto* op = static_cast<const VecCompute*>(s);
      out.push_back({op->dst, true});
      reads(op->value, out);
      break;
    }
    case NodeKind::RowReduce: {
      const auto* op = static_cast<const RowReduce*>(s);
      out.push_back({op->dst, true});
      reads(op->value, out);
      break;
    }
    case NodeKind::VecRoutine: {
      const auto* op = static_cast<const VecRoutine*>(s);
      for (size_t i = 0; i < op->operands.size(); ++i) out.push_back({op->operands[i], static_cast<int>(i) < op->writes});
      break;
    }
    case NodeKind::Move: {
      const auto* op = static_cast<const Move*>(s);
      out.push_back({op->dst, true, op->attrs.cross_core});
      out.push_back({op->src, false});
      break;
    }
    case NodeKind::Matmul: {
      const auto* op = static_cast<const Matmul*>(s);
      out.push_back({op->dst, true});
      out.push_back({op->a, false});
      out.push_back({op->b, false});
      if (op->accumulate) out.push_back({op->dst, false});
      if (op->bias.group >= 0) out.push_back({op->bias, false});
      break;
    }
    case NodeKind::ElemAccess: {
      const auto* op = static_cast<const ElemAccess*>(s);
      if (op->tile.group >= 0) out.push_back({op->tile, op->write});
      break;
    }
    case NodeKind::Debug: {
      const auto* op = static_cast<const Debug*>(s);
      if (op->tile.group >= 0) out.push_back({op->tile, false});
      break;
    }
    default: break;
  }
  return out;
}

int64_t loop_iteration_cost(const Stmt& body) {
  struct Counter : Visitor {
    int64_t n = 1;
    void visit_node(const For*) override { ++n; }
    void visit_node(const Load*) override { ++n; }
    void visit_node(const Store*) override { ++n; }
    void visit_node(const VecCompute*) override { ++n; }
    void visit_node(const RowReduce*) override { ++n; }
    void visit_node(const VecRoutine*) override { ++n; }
    void visit_node(const Move*) override { ++n; }
    void visit_node(const SetValid*) override { ++n; }
    void visit_node(const ElemAccess*) override { ++n; }
    void visit_node(const Matmul*) override { ++n; }
    void visit_node(const Debug*) override { ++n; }
    void visit_node(const Sync*) override { ++n; }
  } c;
  c.visit(body);
  return c.n;
}

}  // namespace pto::ir
