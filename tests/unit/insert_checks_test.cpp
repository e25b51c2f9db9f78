// The insert_checks pass: runtime checks and tile-expression extents as explicit IR. What the
// checks report is covered end to end by tests/error; here, which checks the IR holds.
#include <doctest/doctest.h>

#include <string>

#include <pto/pto.hpp>

#include "pto/ir/Accesses.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"
#include "pto/runtime/Pipeline.hpp"

namespace {

namespace pl = pto::lang;
namespace ir = pto::ir;

/// The Check statements of a kernel as "kind#instr/axis", in program order.
std::string checks_of(const ir::Kernel& k) {
  struct Collect : ir::Visitor {
    std::string out;
    void visit_node(const ir::Check* c) override {
      out += std::string(out.empty() ? "" : " ") + pto::runtime_check_name(c->check) + "#" + std::to_string(c->instr) + "/" +
             std::to_string(c->axis);
    }
  } c;
  c.visit(k.body);
  return c.out;
}

/// Traces and prepares `body` (tensor parameters x: f32[8 x 64], y: f32[8 x 64]; scalar s0).
template <class Body>
std::shared_ptr<pto::CompiledKernel> prepared(Body&& body) {
  ir::Kernel traced = pto::trace_kernel(
      {.name = "checks", .specialization = "test", .tensors = {{"x", pto::DType::f32, 2, {8, 64}}, {"y", pto::DType::f32, 2, {8, 64}}}},
      [&] {
        auto& ctx = *pl::TraceContext::current();
        ir::Expr s = ctx.new_var("s0", ir::VarKind::Param, 0);
        ctx.kernel().scalars.push_back({"s0", s});
        body(pl::Tensor<float>(0, 2, {8, 64}), pl::Tensor<float>(1, 2, {8, 64}), pl::Int(s));
      });
  return pto::prepare_kernel(std::move(traced), pto::ChipProfile::default_profile(), {.auto_mutex = false, .interpret = true});
}

}  // namespace

TEST_CASE("insert_checks: a region known at trace time needs no check; a runtime one gets all four, in order") {
  const auto fixed = prepared([](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(t, x.slice(0, 8, 0, 64));
    pl::store(y.slice(0, 8, 0, 64), t);
  });
  // The load's region is constant and fits; the store still reads the tile's valid extent at run time.
  CHECK(checks_of(fixed->ir) == "store_beyond_valid#1/0 store_beyond_valid#1/1");

  const auto dynamic = prepared([](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int s) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(t, x.slice(0, 8, s, 8));
    pl::store(y.slice(0, 8, 0, 8), t);
  });
  CHECK(checks_of(dynamic->ir) ==
        "region_out_of_bounds#0/1 region_misaligned#0/1 store_beyond_valid#1/0 store_beyond_valid#1/1");
}

TEST_CASE("insert_checks: a tile expression runs over its lead's extent; one-row operands broadcast down the columns") {
  const auto k = prepared([](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int) {
    auto a = pl::make_tile<float>(pl::Vec, {8, 64});
    auto row = pl::make_tile<float>(pl::Vec, {1, 64});
    auto z = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(a, x.slice(0, 8, 0, 64));
    pl::load(row, x.slice(0, 1, 0, 64));
    z = row + a;  // the lead is `a` (the first multi-row operand), not `row`
    pl::store(y.slice(0, 8, 0, 64), z);
  });
  const std::string printed = ir::to_string(k->ir);
  CHECK(printed.find("vec t2[0] = (t1[0].colbcast + t0[0]) over [stored_rows(t0[0]), stored_cols(t0[0])]") != std::string::npos);
  // `row` needs only to cover the columns; the result fits by construction (capacities 8 x 64).
  CHECK(checks_of(k->ir) == "operand_smaller#2/1 store_beyond_valid#3/0 store_beyond_valid#3/1");
}

TEST_CASE("insert_checks: checks cost no instruction budget and no simulated time") {
  const auto k = prepared([](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int s) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    for (auto i : pl::range(0, s)) {
      pl::load(t, x.slice(0, 8, i * 8, 8));
      pl::store(y.slice(0, 8, i * 8, 8), t);
    }
  });
  // The loop body is two instructions plus the loop's own step, checks or not.
  struct Body : ir::Visitor {
    int64_t cost = -1;
    void visit_node(const ir::For* f) override { cost = ir::loop_iteration_cost(f->body); }
  } body;
  body.visit(k->ir.body);
  CHECK(body.cost == 3);
  CHECK(!checks_of(k->ir).empty());
}
