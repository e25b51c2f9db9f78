// IR construction: node types and constant folding in Binary::make, and the trace-time folding
// of pl::Int arithmetic built on it.
#include <doctest/doctest.h>

#include <limits>

#include <pto/pto.hpp>

#include "pto/ir/IntSemantics.hpp"

#include "pto/ir/Printer.hpp"

namespace ir = pto::ir;
namespace pl = pto::lang;
using pto::DType;

namespace {

ir::Expr imm(int64_t v) { return ir::IntImm::make(v); }
ir::Expr var(const char* name, int id = 0) { return ir::Var::make(name, id, ir::VarKind::Loop); }

int64_t value_of(const ir::Expr& e) {
  const auto* i = e.as<ir::IntImm>();
  REQUIRE(i != nullptr);
  return i->value;
}

ir::Expr bin(ir::BinaryOp op, ir::Expr a, ir::Expr b) { return ir::Binary::make(op, std::move(a), std::move(b)); }

}  // namespace

TEST_CASE("Binary::make folds arithmetic on two integer constants to an i64 IntImm, with the engines' semantics") {
  using ir::BinaryOp;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  struct Case {
    BinaryOp op;
    int64_t a, b, want;
  };
  const Case cases[] = {
      {BinaryOp::Add, 2, 3, 5},      {BinaryOp::Sub, 2, 7, -5},    {BinaryOp::Mul, -4, 6, -24},
      {BinaryOp::Div, 7, 2, 3},      {BinaryOp::Div, -7, 2, -3},   {BinaryOp::Mod, 7, 3, 1},
      {BinaryOp::Mod, -7, 3, -1},    {BinaryOp::Min, 4, -9, -9},   {BinaryOp::Max, 4, -9, 4},
      {BinaryOp::Add, INT64_C(1) << 40, 1, (INT64_C(1) << 40) + 1},
      // docs/semantics.md: wrapping, x / 0 = x % 0 = 0, MIN / -1 = MIN, x % -1 = 0
      {BinaryOp::Div, 7, 0, 0},      {BinaryOp::Mod, 7, 0, 0},     {BinaryOp::Div, kMin, -1, kMin},
      {BinaryOp::Mod, kMin, -1, 0},  {BinaryOp::Add, kMax, 1, kMin}, {BinaryOp::Sub, kMin, 1, kMax},
      {BinaryOp::Mul, kMax, 2, -2},
  };
  for (const auto& c : cases) {
    CAPTURE(ir::binary_op_name(c.op));
    CAPTURE(c.a);
    CAPTURE(c.b);
    const ir::Expr e = bin(c.op, imm(c.a), imm(c.b));
    REQUIRE(e->kind == ir::NodeKind::IntImm);
    CHECK(value_of(e) == c.want);
    CHECK(value_of(e) == ir::int_binary<int64_t>(c.op, c.a, c.b));  // the interpreter's evaluator
    CHECK(e->type == ir::Type{DType::i64, false});
  }
}

TEST_CASE("Binary::make folds comparisons and logic on constants to boolean IntImms") {
  using ir::BinaryOp;
  struct Case {
    BinaryOp op;
    int64_t a, b, want;
  };
  const Case cases[] = {
      {BinaryOp::LT, 1, 2, 1}, {BinaryOp::LT, 2, 2, 0}, {BinaryOp::LE, 2, 2, 1}, {BinaryOp::GT, 3, 2, 1},
      {BinaryOp::GE, 1, 2, 0}, {BinaryOp::EQ, 5, 5, 1}, {BinaryOp::NE, 5, 5, 0}, {BinaryOp::And, 1, 0, 0},
      {BinaryOp::Or, 1, 0, 1},
  };
  for (const auto& c : cases) {
    CAPTURE(ir::binary_op_name(c.op));
    const ir::Expr e = bin(c.op, imm(c.a), imm(c.b));
    REQUIRE(e->kind == ir::NodeKind::IntImm);
    CHECK(value_of(e) == c.want);
    CHECK(e->type == ir::Type{DType::boolean, false});
  }
}

TEST_CASE("Binary::make simplifies identities x+0, 0+x, x-0, x*1, 1*x, x/1 to the same node") {
  const ir::Expr x = var("x");
  CHECK(bin(ir::BinaryOp::Add, x, imm(0)).same_as(x));
  CHECK(bin(ir::BinaryOp::Add, imm(0), x).same_as(x));
  CHECK(bin(ir::BinaryOp::Sub, x, imm(0)).same_as(x));
  CHECK(bin(ir::BinaryOp::Mul, x, imm(1)).same_as(x));
  CHECK(bin(ir::BinaryOp::Mul, imm(1), x).same_as(x));
  CHECK(bin(ir::BinaryOp::Div, x, imm(1)).same_as(x));
}

TEST_CASE("Binary::make keeps non-identity operations on variables as Binary nodes") {
  const ir::Expr x = var("x");
  // 0 - x is a negation, not x; x * 0 and x / 2 are not simplified either.
  for (auto [op, k] : {std::pair{ir::BinaryOp::Sub, 0}, std::pair{ir::BinaryOp::Mul, 0}, std::pair{ir::BinaryOp::Div, 2},
                       std::pair{ir::BinaryOp::Add, 1}}) {
    CAPTURE(ir::binary_op_name(op));
    const ir::Expr e = op == ir::BinaryOp::Sub ? bin(op, imm(k), x) : bin(op, x, imm(k));
    const auto* b = e.as<ir::Binary>();
    REQUIRE(b != nullptr);
    CHECK(b->op == op);
    CHECK(e->type == ir::Type{DType::i64, false});
  }
  const ir::Expr cmp = bin(ir::BinaryOp::LT, x, imm(4));
  REQUIRE(cmp.as<ir::Binary>() != nullptr);
  CHECK(cmp->type == ir::Type{DType::boolean, false});
}

TEST_CASE("Binary::make on tile operands keeps the tile dtype; comparisons give a boolean tile") {
  const ir::Expr t = ir::TileRead::make({0, imm(0)}, DType::f16, false);
  const ir::Expr u = ir::TileRead::make({1, imm(0)}, DType::f16, false);
  const ir::Expr add = bin(ir::BinaryOp::Add, t, ir::FloatImm::make(2.5));
  CHECK(add->type == ir::Type{DType::f16, true});
  const ir::Expr radd = bin(ir::BinaryOp::Add, ir::FloatImm::make(2.5), t);
  CHECK(radd->type == ir::Type{DType::f16, true});
  // A tile plus a constant zero is not simplified away (it is an element-wise instruction).
  const ir::Expr plus0 = bin(ir::BinaryOp::Add, t, ir::IntImm::make(0, DType::i32));
  CHECK_FALSE(plus0.same_as(t));
  CHECK(bin(ir::BinaryOp::Mul, t, u)->type == ir::Type{DType::f16, true});
  CHECK(bin(ir::BinaryOp::LE, t, u)->type == ir::Type{DType::boolean, true});
  CHECK(ir::Unary::make(ir::UnaryOp::Exp, t)->type == ir::Type{DType::f16, true});
  CHECK(ir::Cast::make(DType::i8, t)->type == ir::Type{DType::i8, true});
  const ir::Expr sel = ir::Select::make(bin(ir::BinaryOp::LT, t, u), t, u);
  CHECK(sel->type == ir::Type{DType::f16, true});
}

TEST_CASE("Binary::make rejects tile operands of different dtypes as an internal error") {
  const ir::Expr t = ir::TileRead::make({0, imm(0)}, DType::f16, false);
  const ir::Expr u = ir::TileRead::make({1, imm(0)}, DType::f32, false);
  CHECK_THROWS_AS(bin(ir::BinaryOp::Add, t, u), pto::InternalError);
}

TEST_CASE("pl::Int arithmetic on trace-time constants folds to constants") {
  CHECK((pl::Int(3) + 4).constant() == 7);
  CHECK((pl::Int(10) - 15).constant() == -5);
  CHECK((pl::Int(6) * 7).constant() == 42);
  CHECK((pl::Int(17) / 5).constant() == 3);
  CHECK((pl::Int(17) % 5).constant() == 2);
  CHECK((-pl::Int(9)).constant() == -9);
  CHECK(pl::min(pl::Int(8192), pl::Int(4099) - 0).constant() == 4099);
  CHECK(pl::max(pl::Int(3), 11).constant() == 11);
  CHECK(pl::ceil_div(4099, 1024).constant() == 5);
  CHECK(pl::ceil_div(4096, 1024).constant() == 4);
  pl::Int acc = 5;
  acc += 6;
  CHECK(acc.constant() == 11);
}

TEST_CASE("pl::Int arithmetic on a runtime value builds IR and is not constant") {
  const pl::Int x(var("x", 3));
  const pl::Int y = x * 8 + 1;
  CHECK_FALSE(y.constant().has_value());
  CHECK(ir::to_string(y.expr()) == "((x * 8) + 1)");
  CHECK(ir::to_string(pl::ceil_div(x, 4).expr()) == "(((x + 4) - 1) / 4)");
  CHECK(ir::to_string(pl::min(x, 3).expr()) == "min(x, 3)");
  CHECK(ir::to_string((x < 3 && x >= 1).expr()) == "((x < 3) && (x >= 1))");
}

TEST_CASE("Binary::make folds INT64_MIN / -1 to INT64_MIN and INT64_MIN % -1 to 0 without trapping") {
  const int64_t lo = std::numeric_limits<int64_t>::min();
  CHECK(value_of(bin(ir::BinaryOp::Div, imm(lo), imm(-1))) == lo);
  CHECK(value_of(bin(ir::BinaryOp::Mod, imm(lo), imm(-1))) == 0);
}
