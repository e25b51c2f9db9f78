#include "pto/ir/InstrClass.hpp"

#include <algorithm>

#include "pto/ir/Visitor.hpp"

namespace pto::ir {

const char* vec_op_name(VecOp op) {
  static constexpr const char* kNames[kVecOpCount] = {"binary", "mul", "div",            "exp",   "log",    "sqrt",
                                                      "rsqrt",  "scalar_operand", "unary", "cast", "select", "reduce"};
  return kNames[static_cast<int>(op)];
}

namespace {

/// Counts the operations of a tile expression by class. An operand that is not a tile (a
/// constant or a scalar) makes the scalar-operand form of the instruction (adds, muls, ...).
struct VecOpCounter : Visitor {
  VecOpCounts counts{};
  void add(VecOp op) {
    auto& c = counts[static_cast<int>(op)];
    if (c < 255) ++c;
  }
  void visit_node(const Binary* op) override {
    const bool scalar_operand = !op->a->type.tile || !op->b->type.tile;
    switch (op->op) {
      case BinaryOp::Div:
      case BinaryOp::Mod: add(VecOp::Div); break;
      case BinaryOp::Mul: add(scalar_operand ? VecOp::ScalarOperand : VecOp::Mul); break;
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Min:
      case BinaryOp::Max: add(scalar_operand ? VecOp::ScalarOperand : VecOp::Binary); break;
      default: add(VecOp::Binary); break;  // comparisons, and, or
    }
    Visitor::visit_node(op);
  }
  void visit_node(const Unary* op) override {
    switch (op->op) {
      case UnaryOp::Exp: add(VecOp::Exp); break;
      case UnaryOp::Log: add(VecOp::Log); break;
      case UnaryOp::Sqrt: add(VecOp::Sqrt); break;
      case UnaryOp::Rsqrt: add(VecOp::Rsqrt); break;
      case UnaryOp::Neg:
      case UnaryOp::Abs:
      case UnaryOp::Relu: add(VecOp::Unary); break;
    }
    Visitor::visit_node(op);
  }
  void visit_node(const Cast* op) override {
    add(VecOp::Cast);
    Visitor::visit_node(op);
  }
  void visit_node(const Select* op) override {
    add(VecOp::Select);
    Visitor::visit_node(op);
  }
};

}  // namespace

int elementwise_ops(const VecOpCounts& counts) {
  int n = 0;
  for (int i = 0; i < kVecOpCount; ++i) n += i == static_cast<int>(VecOp::Reduce) ? 0 : counts[i];
  return std::max(1, n);
}

VecOpCounts count_vec_ops(const Expr& e) {
  VecOpCounter c;
  c.visit(e);
  return c.counts;
}

}  // namespace pto::ir
