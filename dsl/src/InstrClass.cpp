#include "pto/ir/InstrClass.hpp"

#include <algorithm>
#include <unordered_set>

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
  std::unordered_set<const ExprNode*>* seen = nullptr;  // a vector function's operations computed already
  /// False for a node an earlier instruction of the same vector function computed (its register
  /// is reused: neither it nor its operands cost again).
  bool first_time(const ExprNode* n) { return !seen || seen->insert(n).second; }
  void add(VecOp op, int times = 1) {
    auto& c = counts[static_cast<int>(op)];
    c = static_cast<uint8_t>(std::min(255, c + times));
  }
  void visit_node(const Binary* op) override {
    if (!op->type.tile) return;  // scalar arithmetic (indices, pl::Float) is the scalar unit's, done once
    if (!first_time(op)) return;
    const bool scalar_operand = !op->a->type.tile || !op->b->type.tile;
    switch (op->op) {
      case BinaryOp::Div:
      case BinaryOp::Mod: add(VecOp::Div); break;
      case BinaryOp::Mul: add(scalar_operand ? VecOp::ScalarOperand : VecOp::Mul); break;
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Min:
      case BinaryOp::Max: add(scalar_operand ? VecOp::ScalarOperand : VecOp::Binary); break;
      case BinaryOp::Pow:  // no vector instruction: exp(y * log(x)) (assumption, docs/calibration.md)
        add(VecOp::Log), add(VecOp::Mul), add(VecOp::Exp);
        break;
      default: add(VecOp::Binary); break;  // comparisons, and, or, xor, shifts (assumption: the binary class)
    }
    Visitor::visit_node(op);
  }
  void visit_node(const Unary* op) override {
    if (!first_time(op)) return;
    switch (op->op) {
      case UnaryOp::Exp: add(VecOp::Exp); break;
      case UnaryOp::Log: add(VecOp::Log); break;
      case UnaryOp::Sqrt: add(VecOp::Sqrt); break;
      case UnaryOp::Rsqrt: add(VecOp::Rsqrt); break;
      case UnaryOp::Neg:
      case UnaryOp::Abs:
      case UnaryOp::Relu:
      case UnaryOp::Not: add(VecOp::Unary); break;
      // No single vector instruction and no published cost: each is charged as the sequence a
      // vector kernel would run (an assumption, docs/calibration.md).
      case UnaryOp::Sigmoid:  // 1 / (1 + exp(-x)): neg, exp, adds, div
        add(VecOp::Unary), add(VecOp::Exp), add(VecOp::ScalarOperand), add(VecOp::Div);
        break;
      case UnaryOp::Tanh:  // 2 sigmoid(2x) - 1: muls, neg, exp, adds, div, muls, adds
        add(VecOp::Unary), add(VecOp::Exp), add(VecOp::Div), add(VecOp::ScalarOperand, 3);
        break;
      case UnaryOp::Erf:  // Abramowitz-Stegun 7.1.26: abs, exp of -x*x, a degree-5 polynomial, a div, the sign
        add(VecOp::Unary, 2), add(VecOp::Exp), add(VecOp::Div), add(VecOp::Mul, 2), add(VecOp::ScalarOperand, 11);
        break;
      case UnaryOp::Sin:
      case UnaryOp::Cos:  // range reduction and a degree-9 odd/even polynomial in x*x
        add(VecOp::ScalarOperand, 12), add(VecOp::Mul, 2), add(VecOp::Cast, 2);
        break;
    }
    Visitor::visit_node(op);
  }
  void visit_node(const Cast* op) override {
    if (!op->type.tile) return;  // a scalar conversion: the scalar unit's
    if (!first_time(op)) return;
    add(VecOp::Cast);
    Visitor::visit_node(op);
  }
  void visit_node(const Select* op) override {
    if (!first_time(op)) return;
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

VecOpCounts count_vec_ops(const Expr& e, std::unordered_set<const ExprNode*>* computed) {
  VecOpCounter c;
  c.seen = computed;
  c.visit(e);
  return c.counts;
}

}  // namespace pto::ir
