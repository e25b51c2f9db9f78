// Misuse of pl::vector_function: another instruction inside it, a tile both loaded and stored, a
// vector function inside another. Each is a trace-time pto::UserError naming the kernel and line.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("inside a vector function only vf operations run: a load, a tile assignment or a loop is an error naming the line") {
  auto x = pto::Tensor<float>::zeros({8, 64});
  int line = 0;
  const auto load_inside = pl::jit({.name = "vf_with_load"}, [&](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::vector_function([&](pl::VectorFunction&) { line = __LINE__; pl::load(t, x.slice(0, 8, 0, 64)); });
  });
  CHECK_HAS(user_error([&] { load_inside[{.block_dim = 1}](x); }), "kernel 'vf_with_load'",
            "inside pl::vector_function only its vf operations run", "load t0[0] <- arg0", PTO_AT(line));
  const auto assign_inside = pl::jit({.name = "vf_with_assign"}, [&](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    auto u = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(t, x.slice(0, 8, 0, 64));
    pl::vector_function([&](pl::VectorFunction& vf) {
      auto v = vf.load(t);
      line = __LINE__; u = v * 2.0f;  // should be vf.store(u, v * 2.0f)
    });
  });
  CHECK_HAS(user_error([&] { assign_inside[{.block_dim = 1}](x); }), "inside pl::vector_function only its vf operations run",
            "move other instructions, loops and tile assignments out of the function");
  check_runtime_usable();
}

TEST_CASE("a vector function that stores into a tile it loads, or nests another, is an error") {
  auto x = pto::Tensor<float>::zeros({8, 64});
  int line = 0;
  const auto in_place = pl::jit({.name = "vf_in_place"}, [&](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(t, x.slice(0, 8, 0, 64));
    pl::vector_function([&](pl::VectorFunction& vf) {
      auto v = vf.load(t);
      line = __LINE__; vf.store(t, v + 1.0f);
    });
  });
  CHECK_HAS(user_error([&] { in_place[{.block_dim = 1}](x); }), "kernel 'vf_in_place'", "pl::vector_function stores into tile",
            "which it also loads", PTO_AT(line));
  const auto nested = pl::jit({.name = "vf_nested"}, [&](pl::Tensor<float> x) {
    pl::vector_function([&](pl::VectorFunction&) {
      line = __LINE__; pl::vector_function([&](pl::VectorFunction&) {});
    });
  });
  CHECK_HAS(user_error([&] { nested[{.block_dim = 1}](x); }), "pl::vector_function inside another vector function");
  check_runtime_usable();
}

}  // namespace pto::error_test
