#include "pto/ir/Accesses.hpp"

#include "pto/ir/Visitor.hpp"

namespace pto::ir {
namespace {

struct ReadCollector : Visitor {
  std::vector<TileAccess>* out;
  void visit_node(const TileRead* op) override { out->push_back({op->tile, false}); }
};

void reads(const Expr& e, std::vector<TileAccess>& out) {
  ReadCollector c;
  c.out = &out;
  c.visit(e);
}

struct OpCounter : Visitor {
  int ops = 0;
  void visit_node(const Binary* op) override { ++ops; Visitor::visit_node(op); }
  void visit_node(const Unary* op) override { ++ops; Visitor::visit_node(op); }
  void visit_node(const Cast* op) override { ++ops; Visitor::visit_node(op); }
  void visit_node(const Select* op) override { ++ops; Visitor::visit_node(op); }
};

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
    case NodeKind::Move: {
      const auto* op = static_cast<const Move*>(s);
      out.push_back({op->dst, true});
      out.push_back({op->src, false});
      break;
    }
    case NodeKind::Matmul: {
      const auto* op = static_cast<const Matmul*>(s);
      out.push_back({op->dst, true});
      out.push_back({op->a, false});
      out.push_back({op->b, false});
      if (op->accumulate) out.push_back({op->dst, false});
      break;
    }
    default: break;
  }
  return out;
}

int vector_op_count(const Expr& e) {
  OpCounter c;
  c.visit(e);
  return std::max(1, c.ops);
}

}  // namespace pto::ir
