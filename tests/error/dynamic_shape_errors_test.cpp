// Misuse of dynamic dimensions: an argument of another rank or another declared static extent (at
// the launch call), a dynamic extent used as a C++ number or reshaped with view (at trace time),
// and a region or element past a dynamic extent (when the core runs: kernel, core, pipe,
// instruction, line, the launch's extent; the output untouched). The runtime stays usable.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("an argument whose rank or static extent differs from the parameter's declaration is a launch error") {
  const auto k = pl::jit({.name = "declared_rows"}, [](pl::Tensor<float, pl::DYNAMIC, 64> x) {
    auto t = pl::make_tile<float>(pl::Vec, {1, 64});
    pl::load(t, x.slice(0, 1, 0, 64));
  });
  int line = __LINE__ + 1;
  std::string msg = user_error([&] { k[{.block_dim = 1}](pto::Tensor<float>::zeros({4, 32})); });
  CHECK_HAS(msg, "kernel 'declared_rows'", "argument 0 is [4x32]; the kernel declares it pl::Tensor<f32, pl::DYNAMIC, 64>: dimension 1 must be 64",
            PTO_AT(line));
  line = __LINE__ + 1;
  msg = user_error([&] { k[{.block_dim = 1}](pto::Tensor<float>::zeros({64})); });
  CHECK_HAS(msg, "kernel 'declared_rows'", "argument 0 is a 1-D tensor [64]; the kernel declares it pl::Tensor<f32, pl::DYNAMIC, 64>, 2-D",
            PTO_AT(line));
  check_runtime_usable();
}

TEST_CASE("a dynamic extent used as a C++ number (dim, numel, shape) or reshaped with view is a trace-time error naming the line") {
  int line = 0;
  const auto use_dim = pl::jit({.name = "dynamic_dim"}, [&](pl::Tensor<float, pl::DYNAMIC> x) {
    line = __LINE__; const int64_t n = x.dim(0);
    (void)n;
  });
  CHECK_HAS(user_error([&] { use_dim[{.block_dim = 1}](pto::Tensor<float>::zeros({64})); }), "kernel 'dynamic_dim'",
            "dim: dimension 0 of tensor parameter 0 is dynamic (pl::DYNAMIC)", "use extent(0) (a pl::Int)", PTO_AT(line));
  const auto use_numel = pl::jit({.name = "dynamic_numel"}, [&](pl::Tensor<float, 8, pl::DYNAMIC> x) {
    line = __LINE__; const int64_t n = x.numel();
    (void)n;
  });
  CHECK_HAS(user_error([&] { use_numel[{.block_dim = 1}](pto::Tensor<float>::zeros({8, 64})); }), "kernel 'dynamic_numel'",
            "numel: dimension 1 of tensor parameter 0 is dynamic", PTO_AT(line));
  const auto use_view = pl::jit({.name = "dynamic_view"}, [&](pl::Tensor<float, pl::DYNAMIC, 64> x) {
    line = __LINE__; const auto v = x.view({64, 8});
    (void)v;
  });
  CHECK_HAS(user_error([&] { use_view[{.block_dim = 1}](pto::Tensor<float>::zeros({8, 64})); }), "kernel 'dynamic_view'",
            "view of tensor parameter 0, which has a dynamic dimension", "cut the region with slice", PTO_AT(line));
  check_runtime_usable();
}

TEST_CASE("a region past a dynamic extent stops the core with the launch's extent; the output is untouched") {
  int line = 0;
  const auto k = pl::jit({.name = "dynamic_oob"}, [&](pl::Tensor<float, pl::DYNAMIC> x, pl::Tensor<float, pl::DYNAMIC> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    line = __LINE__; pl::store(z.slice(0, 64), t);  // no tail handling: z shorter than 64 is out of bounds
  });
  auto x = pto::Tensor<float>::random({100}, 3);
  auto z = pto::Tensor<float>::full({50}, 8.0f);
  const auto z0 = copy_of(z);
  k[{.block_dim = 1}](x, z);
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'dynamic_oob'",
            "store out of bounds on tensor arg1: columns [0, 64) (offset 0, length 64) outside the tensor's 50 columns", "core: AIV 0",
            "pipe: MTE3", PTO_AT(line));
  CHECK(bitwise_equal(z, z0));
  // The same compiled kernel, a long enough output: fine.
  auto z2 = pto::Tensor<float>::zeros({64});
  CHECK_NOTHROW(k[{.block_dim = 1}](x, z2));
  CHECK_NOTHROW(pto::synchronize());
  check_runtime_usable();
}

TEST_CASE("getval past a dynamic tensor's runtime length stops the core naming the tensor and its length") {
  int line = 0;
  const auto k = pl::jit({.name = "dynamic_getval"}, [&](pl::Tensor<int32_t, pl::DYNAMIC> x, pl::Tensor<int32_t> out, pl::Int i) {
    line = __LINE__; pl::setval(out, 0, pl::getval(x, i));
  });
  auto x = pto::Tensor<int32_t>::random({10}, 1, -5, 5);
  auto out = pto::Tensor<int32_t>::full({1}, 42);
  k[{.block_dim = 1}](x, out, int64_t{10});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'dynamic_getval'", "getval: element offset 10 is outside the 10 elements of the tensor arg0",
            "pipe: S", PTO_AT(line));
  CHECK(out[0] == 42);
  check_runtime_usable();
}

}  // namespace pto::error_test
