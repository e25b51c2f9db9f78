// The generic IR Visitor and Mutator.
#include <doctest/doctest.h>

#include <map>

#include <pto/pto.hpp>

#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"

namespace ir = pto::ir;
using pto::DType;

namespace {

ir::Expr imm(int64_t v) { return ir::IntImm::make(v); }

struct Tree {
  ir::Expr i, n;
  ir::Expr tile_value;  // (g0[0] * 2.5) + g1[0].bcast: no IntImm except the slots
  ir::Expr var_only;    // i * n: no IntImm at all
  ir::Stmt body;
};

/// for i in range(0, n, 1) { load g0[0] <- t0[0 +: 1, i*n +: 8]; vec g2[0] = ...; store ...; if (i < 3) {...} }
Tree make_tree() {
  Tree t;
  t.i = ir::Var::make("i", 0, ir::VarKind::Loop);
  t.n = ir::Var::make("n", 1, ir::VarKind::Param, 0);
  t.var_only = ir::Binary::make(ir::BinaryOp::Mul, t.i, t.n);
  const ir::Expr a = ir::TileRead::make({0, imm(0)}, DType::f32, false);
  const ir::Expr bc = ir::TileRead::make({1, imm(0)}, DType::f32, true);
  t.tile_value = ir::Binary::make(ir::BinaryOp::Add, ir::Binary::make(ir::BinaryOp::Mul, a, ir::FloatImm::make(2.5)), bc);
  const ir::GMRegion r{0, {imm(1), imm(1024)}, {imm(0), t.var_only}, {imm(1), imm(8)}};
  const ir::Stmt load = ir::Load::make({0, imm(0)}, r, {0, {}});
  const ir::Stmt vec = ir::VecCompute::make({2, imm(0)}, t.tile_value, {1, {}});
  const ir::Stmt store = ir::Store::make(r, {2, imm(0)}, {2, {}});
  const ir::Stmt red = ir::RowReduce::make(ir::ReduceOp::Max, {1, imm(0)}, ir::Unary::make(ir::UnaryOp::Abs, a), {3, {}});
  const ir::Stmt branch = ir::IfThenElse::make(ir::Binary::make(ir::BinaryOp::LT, t.i, imm(3)), ir::Seq::make({red}), ir::Stmt{});
  t.body = ir::For::make(t.i, imm(0), t.n, imm(1), ir::Seq::make({load, vec, store, branch}), 4, {});
  return t;
}

/// Counts the nodes of each kind that a walk reaches.
class KindCounter : public ir::Visitor {
 public:
  std::map<ir::NodeKind, int> counts;
  std::vector<int64_t> ints;

 protected:
  using ir::Visitor::visit_node;
  void visit_node(const ir::IntImm* op) override {
    ++counts[op->kind];
    ints.push_back(op->value);
  }
  void visit_node(const ir::FloatImm* op) override { ++counts[op->kind]; }
  void visit_node(const ir::Var* op) override { ++counts[op->kind]; }
  void visit_node(const ir::Binary* op) override {
    ++counts[op->kind];
    ir::Visitor::visit_node(op);
  }
  void visit_node(const ir::TileRead* op) override {
    ++counts[op->kind];
    ir::Visitor::visit_node(op);
  }
  void visit_node(const ir::Load* op) override {
    ++counts[op->kind];
    ir::Visitor::visit_node(op);
  }
  void visit_node(const ir::Store* op) override {
    ++counts[op->kind];
    ir::Visitor::visit_node(op);
  }
  void visit_node(const ir::For* op) override {
    ++counts[op->kind];
    ir::Visitor::visit_node(op);
  }
};

/// Adds `delta` to every IntImm of dtype i64.
class ShiftInts : public ir::Mutator {
 public:
  explicit ShiftInts(int64_t delta) : delta_(delta) {}

 protected:
  using ir::Mutator::mutate_node;
  ir::Expr mutate_node(const ir::IntImm* op, const ir::Expr& self) override {
    if (op->type.dtype != DType::i64) return self;
    return ir::IntImm::make(op->value + delta_, op->type.dtype);
  }

 private:
  int64_t delta_;
};

/// Replaces the Var named `name` with a constant.
class Bind : public ir::Mutator {
 public:
  Bind(std::string name, int64_t v) : name_(std::move(name)), v_(v) {}

 protected:
  using ir::Mutator::mutate_node;
  ir::Expr mutate_node(const ir::Var* op, const ir::Expr& self) override { return op->name == name_ ? imm(v_) : self; }

 private:
  std::string name_;
  int64_t v_;
};

}  // namespace

TEST_CASE("the Visitor reaches every node of loops, regions, tile slots and branches") {
  const Tree t = make_tree();
  KindCounter c;
  c.visit(t.body);
  CHECK(c.counts[ir::NodeKind::For] == 1);
  CHECK(c.counts[ir::NodeKind::Load] == 1);
  CHECK(c.counts[ir::NodeKind::Store] == 1);
  // Tile reads: a, bc in the vec; a in the reduction.
  CHECK(c.counts[ir::NodeKind::TileRead] == 3);
  CHECK(c.counts[ir::NodeKind::FloatImm] == 1);
  // Vars: n (loop end), i*n twice (load and store region), i in the branch condition.
  CHECK(c.counts[ir::NodeKind::Var] == 6);
  // Binary: i*n twice, (a*2.5), (+ bc), (i < 3).
  CHECK(c.counts[ir::NodeKind::Binary] == 5);
  // IntImms, in walk order: loop begin 0, step 1; load: slot 0, region view 1, 1024, offset 0, extents 1, 8;
  // vec: dst slot 0, a slot 0, bc slot 0; store: region 1, 1024, 0, 1, 8, src slot 0; if: 3; reduce: dst slot 0, a slot 0.
  const std::vector<int64_t> want = {0, 1, 0, 1, 1024, 0, 1, 8, 0, 0, 0, 1, 1024, 0, 1, 8, 0, 3, 0, 0};
  CHECK(c.ints == want);
}

TEST_CASE("the Visitor ignores empty handles") {
  KindCounter c;
  c.visit(ir::Expr{});
  c.visit(ir::Stmt{});
  CHECK(c.counts.empty());
}

TEST_CASE("a Mutator that changes nothing returns the very same tree") {
  const Tree t = make_tree();
  Bind unbound("no_such_var", 1);
  const ir::Stmt same = unbound.mutate(t.body);
  CHECK(same.same_as(t.body));
  const ir::Expr e = unbound.mutate(t.tile_value);
  CHECK(e.same_as(t.tile_value));
}

TEST_CASE("a Mutator rewriting IntImm leaves rebuilds their parents and shares untouched subtrees") {
  const Tree t = make_tree();
  ShiftInts shift(100);
  const ir::Stmt out = shift.mutate(t.body);
  REQUIRE_FALSE(out.same_as(t.body));
  CHECK(ir::to_string(out) ==
        "for i in range(100, n, 101) {\n"
        "  #0 load g0[100] <- t0[100 +: 101, (i * n) +: 108]\n"
        "  #1 vec g2[100] = ((g0[100] * 2.5) + g1[100].bcast)\n"
        "  #2 store t0[100 +: 101, (i * n) +: 108] <- g2[100]\n"
        "  if (i < 103) {\n"
        "    #3 row_max g1[100] <- abs(g0[100])\n"
        "  }\n"
        "}\n");
  // The original is immutable and unchanged.
  CHECK(ir::to_string(t.body).rfind("for i in range(0, n, 1) {\n", 0) == 0);
  // Subtrees without IntImm leaves are shared, not copied.
  const auto* loop = out.as<ir::For>();
  REQUIRE(loop != nullptr);
  CHECK(loop->end.same_as(t.n));
  CHECK(loop->var.same_as(t.i));
  const auto* load = loop->body.as<ir::Seq>()->body[0].as<ir::Load>();
  REQUIRE(load != nullptr);
  CHECK(load->src.offset[1].same_as(t.var_only));
  // Instruction ids and locations survive the rebuild.
  CHECK(load->id == 0);
  CHECK(loop->instr == 4);
}

TEST_CASE("a Mutator binding a variable to a constant folds the rebuilt arithmetic") {
  const ir::Expr i = ir::Var::make("i", 0, ir::VarKind::Loop);
  const ir::Expr e = ir::Binary::make(ir::BinaryOp::Add, ir::Binary::make(ir::BinaryOp::Mul, i, imm(8)), imm(3));
  Bind bind("i", 5);
  const ir::Expr out = bind.mutate(e);
  const auto* v = out.as<ir::IntImm>();
  REQUIRE(v != nullptr);
  CHECK(v->value == 43);
  // Another variable stays symbolic, and the untouched operand is shared.
  const ir::Expr j = ir::Var::make("j", 1, ir::VarKind::Loop);
  const ir::Expr mixed = ir::Binary::make(ir::BinaryOp::Sub, i, j);
  const ir::Expr m = bind.mutate(mixed);
  const auto* b = m.as<ir::Binary>();
  REQUIRE(b != nullptr);
  CHECK(b->b.same_as(j));
  CHECK(ir::to_string(m) == "(5 - j)");
}
