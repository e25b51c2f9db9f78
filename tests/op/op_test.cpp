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
  const int64_t r_tile = sm::fitting_rows<float>(sm::kAnyRows, 1000, 2, pto::ChipProfile::default_profile().limits(pto::ir::MemSpace::Vec).bytes);
  CHECK(plan.tiling_data == std::vector<int64_t>{(300 + r_tile - 1) / r_tile});
  CHECK(plan.block_dim == std::min<int64_t>(plan.tiling_data[0], 48));
  CHECK(plan.tiling_key.get<sm::OpKey>()->buffers == 2);
  // a tiny shape: fewer row blocks than cores, so fewer blocks
  auto small = pto::Tensor<float>::random({5, 64}), out = pto::Tensor<float>::zeros({5, 64});
  sm::softmax_op<float>().get_workspace_size(small, out, exec);
  CHECK(exec.plan().block_dim == 1);
}

TEST_CASE("the_op_kernel_has_dynamic_rows_one_specialisation_serves_every_row_count") {
  const auto made = [] { return pto::runtime_stats().compiles + pto::runtime_stats().disk_loads; };
  auto run = [](int64_t rows) {
    auto x = pto::Tensor<float>::random({rows, 96}, static_cast<uint64_t>(rows), -4, 4), y = pto::Tensor<float>::zeros({rows, 96});
    auto want = pto::Tensor<float>::zeros({rows, 96});
    sm::reference(x, want);
    pto::OpExecutor exec;
    sm::softmax_op<float>().get_workspace_size(x, y, exec);
    sm::softmax_op<float>().run(exec);
    pto::synchronize();
    CHECK(pto::samples::max_abs_diff(y, want) <= sm::tolerance<float>());
  };
  run(600);  // the double-buffered key's kernel for 96 columns
  const uint64_t before = made();
  for (int64_t rows : {97, 1000, 3001, 64}) {
    CAPTURE(rows);
    run(rows);
  }
  CHECK(made() == before);  // every row count on the kernel compiled for 600 rows
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

// ---------------------------------------------------------------------------------- matmul op

#include "03_matmul/matmul.hpp"

namespace {

namespace mm = pto::samples::matmul;

TEST_CASE("two_phase_matmul_op_matches_the_reference") {
  struct Case {
    int64_t m, n, k;
  };
  for (auto c : {Case{256, 256, 512}, Case{100, 70, 30}, Case{129, 257, 200}}) {
    CAPTURE(c.m);
    CAPTURE(c.k);
    auto a = pto::Tensor<float>::random({c.m, c.k}, 1), b = pto::Tensor<float>::random({c.k, c.n}, 2);
    auto out = pto::Tensor<float>::zeros({c.m, c.n}), want = pto::Tensor<float>::zeros({c.m, c.n});
    mm::reference(a, b, want);
    pto::OpExecutor exec;
    CHECK(mm::matmul_op<float>().get_workspace_size(a, b, out, exec) == 0);
    mm::matmul_op<float>().run(exec);
    pto::synchronize();
    CHECK(pto::samples::max_abs_diff(out, want) <= mm::tolerance<float>(want, c.k));
  }
  auto a = pto::Tensor<pto::half>::random({64, 300}, 3), b = pto::Tensor<pto::half>::random({300, 96}, 4);
  auto out = pto::Tensor<pto::half>::zeros({64, 96}), want = pto::Tensor<pto::half>::zeros({64, 96});
  mm::reference(a, b, want);
  mm::matmul_op<pto::half>()(a, b, out);
  pto::synchronize();
  CHECK(pto::samples::max_abs_diff(out, want) <= mm::tolerance<pto::half>(want, 300));
}

TEST_CASE("the_matmul_tiling_picks_k_step_buffers_and_block_dim_from_shape_and_dtype") {
  // float: 128 x 128 x 4 B Left tiles, double-buffered, would overflow L0A (64 KiB): K step 64
  auto p = mm::plan_matmul<float>(1024, 1024, 1024);
  CHECK(mm::k_step_elems(p.tiling_key.get<mm::OpKey>()->k_step) == 64);
  CHECK(p.tiling_key.get<mm::OpKey>()->buffers == 2);
  CHECK(p.block_dim == 24);  // 64 output tiles, capped at the AIC count
  // half: the deepest step fits
  auto h = mm::plan_matmul<pto::half>(1024, 1024, 1024);
  CHECK(mm::k_step_elems(h.tiling_key.get<mm::OpKey>()->k_step) == 128);
  // one K step: no double buffering; few output tiles: fewer blocks
  auto s = mm::plan_matmul<float>(200, 100, 40);
  CHECK(s.tiling_key.get<mm::OpKey>()->buffers == 1);
  CHECK(s.block_dim == 2);
}

TEST_CASE("the_matmul_op_validates_shapes_before_anything_runs") {
  auto a = pto::Tensor<float>::random({8, 16}), b = pto::Tensor<float>::random({12, 8}), c = pto::Tensor<float>::zeros({8, 8});
  pto::OpExecutor exec;
  CHECK_THROWS_WITH_AS(mm::matmul_op<float>().get_workspace_size(a, b, c, exec), doctest::Contains("K must match"), pto::UserError);
  auto b2 = pto::Tensor<float>::random({16, 8}), c2 = pto::Tensor<float>::zeros({8, 9});
  CHECK_THROWS_WITH_AS(mm::matmul_op<float>().get_workspace_size(a, b2, c2, exec), doctest::Contains("c must be 8 x 8"), pto::UserError);
  auto v = pto::Tensor<float>::random({16});
  CHECK_THROWS_WITH_AS(mm::matmul_op<float>().get_workspace_size(a, b2, v, exec), doctest::Contains("must be 2-D"), pto::UserError);
  CHECK_FALSE(exec.ready());
}

}  // namespace
