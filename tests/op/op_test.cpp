// The operator layer: validation, tiling, two-phase calls, results.
#include <doctest/doctest.h>

#include "02_softmax/softmax.hpp"

namespace {

namespace sm = pto::samples::softmax;

TEST_CASE("two_phase_softmax_op_matches_the_reference") {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{300, 1000}, {7, 64}, {1024, 256}}) {
    CAPTURE(rows);
    auto x = pto::Tensor<float>::random({rows, cols}, 3, -4, 4), y = pto::Tensor<float>::zeros({rows, cols});
    auto want = pto::Tensor<float>::zeros({rows, cols});
    sm::reference(x, want);
    pto::OpExecutor exec;
    CHECK(sm::softmax_op<float>().get_workspace_size(x, y, exec) == 0);
    REQUIRE(exec.ready());
    sm::softmax_op<float>().run(exec);
    pto::synchronize();
    CHECK(pto::samples::max_abs_diff(y, want) <= sm::tolerance<float>());
  }
}

TEST_CASE("the_tiling_function_picks_block_dim_key_and_tiling_data_from_the_shape") {
  auto x = pto::Tensor<float>::random({300, 1000}), y = pto::Tensor<float>::zeros({300, 1000});
  pto::OpExecutor exec;
  sm::softmax_op<float>().get_workspace_size(x, y, exec);
  const auto& plan = exec.plan();
  const int64_t r_tile = sm::fitting_rows<float>(300, 1000, 2, pto::ChipProfile::default_profile().limits(pto::ir::MemSpace::Vec).bytes);
  CHECK(plan.tiling_data == std::vector<int64_t>{(300 + r_tile - 1) / r_tile});
  CHECK(plan.block_dim == std::min<int64_t>(plan.tiling_data[0], 48));
  CHECK(plan.tiling_key.get<sm::OpKey>()->buffers == 2);
  // a tiny shape: fewer row blocks than cores, so fewer blocks
  auto small = pto::Tensor<float>::random({5, 64}), out = pto::Tensor<float>::zeros({5, 64});
  sm::softmax_op<float>().get_workspace_size(small, out, exec);
  CHECK(exec.plan().block_dim == 1);
}

TEST_CASE("the_op_validates_before_anything_runs") {
  auto x1 = pto::Tensor<float>::random({100}), y1 = pto::Tensor<float>::zeros({100});
  pto::OpExecutor exec;
  CHECK_THROWS_WITH_AS(sm::softmax_op<float>().get_workspace_size(x1, y1, exec), doctest::Contains("x must be 2-D"), pto::UserError);
  CHECK_FALSE(exec.ready());
  auto x = pto::Tensor<float>::random({4, 64}), y = pto::Tensor<float>::zeros({4, 32});
  CHECK_THROWS_WITH_AS(sm::softmax_op<float>().get_workspace_size(x, y, exec), doctest::Contains("y must have x's shape"),
                       pto::UserError);
  auto wide = pto::Tensor<float>::random({2, 40000}), wide_y = pto::Tensor<float>::zeros({2, 40000});
  CHECK_THROWS_WITH_AS(sm::softmax_op<float>().get_workspace_size(wide, wide_y, exec), doctest::Contains("more than the 196608 B"),
                       pto::UserError);
  pto::OpExecutor unbound;
  CHECK_THROWS_WITH_AS(sm::softmax_op<float>().run(unbound), doctest::Contains("before get_workspace_size"), pto::UserError);
}

TEST_CASE("the_op_and_a_direct_launch_with_its_plan_give_the_same_bits") {
  auto x = pto::Tensor<pto::half>::random({200, 300}), y1 = pto::Tensor<pto::half>::zeros({200, 300}), y2 = pto::Tensor<pto::half>::zeros({200, 300});
  pto::OpExecutor exec;
  sm::softmax_op<pto::half>().get_workspace_size(x, y1, exec);
  sm::softmax_op<pto::half>().run(exec);
  const auto& plan = exec.plan();
  sm::softmax_op_kernel<pto::half>()[{.block_dim = plan.block_dim, .tiling_key = plan.tiling_key}](x, y2, plan.tiling_data[0]);
  pto::synchronize();
  CHECK(pto::samples::max_abs_diff(y1, y2) == 0);
}

}  // namespace
