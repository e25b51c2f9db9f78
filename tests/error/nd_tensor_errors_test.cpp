// Misuse of N-D tensors and strided views: an index past its dimension (when the core runs:
// kernel, core, pipe, line, the dimension and its extent; the output untouched), a 2-D slice of
// a 3-D tensor, select / permute out of range, getval of a non-contiguous argument, an atomic
// store into a column-strided view, a non-contiguous argument for dynamic dimensions.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("an index past its dimension stops the core naming the dimension and its extent; the output is untouched") {
  int line = 0;
  const auto k = pl::jit({.name = "nd_index_oob"}, [&](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int b) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 64});
    pl::load(t, x[0].slice(0, 4, 0, 64));
    line = __LINE__; pl::store(y[b].slice(0, 4, 0, 64), t);
  });
  auto x = pto::Tensor<float>::random({3, 4, 64}, 1);
  auto y = pto::Tensor<float>::full({3, 4, 64}, 2.0f);
  const auto y0 = copy_of(y);
  k[{.block_dim = 1}](x, y, int64_t{3});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'nd_index_oob'",
            "store out of bounds on tensor arg1: index 3 of dimension 0 is outside its extent 3", "core: AIV 0", "pipe: MTE3", PTO_AT(line));
  CHECK(bitwise_equal(y, y0));
  check_runtime_usable();
}

TEST_CASE("N-D misuse at trace time: a 2-D slice of a 3-D tensor, select and permute out of range") {
  int line = 0;
  const std::vector<std::pair<std::function<void(pl::Tensor<float>)>, std::string>> cases = {
      {[&](pl::Tensor<float> x) { line = __LINE__; (void)x.slice(0, 1, 0, 64); },
       "slice(row, rows, col, cols) needs a 2-D tensor; this one is 3-D (x[i] or select(d, i) fixes a dimension"},
      {[&](pl::Tensor<float> x) { line = __LINE__; (void)x.select(3, 0); }, "select of dimension 3 of a 3-D tensor"},
      {[&](pl::Tensor<float> x) { line = __LINE__; (void)x.permute({0, 0, 1}); }, "permute: the dimensions must be a permutation of 0..2"},
      {[&](pl::Tensor<float> x) { line = __LINE__; (void)x[0][0].select(0, 0); }, "select needs a tensor of 2 or more dimensions, this one is 1-D"},
  };
  int i = 0;
  for (const auto& [body, phrase] : cases) {
    CAPTURE(phrase);
    const auto k = pl::jit({.name = "nd_trace_" + std::to_string(i++)}, [&](pl::Tensor<float> x) { body(x); });
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](pto::Tensor<float>::zeros({2, 4, 64})); }), phrase, PTO_AT(line));
  }
  check_runtime_usable();
}

TEST_CASE("getval of a non-contiguous argument, an atomic store into a column-strided view, and a view for dynamic dimensions "
          "are errors at the launch call") {
  const auto get = pl::jit({.name = "nd_getval_view"}, [](pl::Tensor<float> x, pl::Tensor<float> y) { pl::setval(y, 0, pl::getval(x, 1)); });
  auto base = pto::Tensor<float>::random({4, 8}, 2);
  auto y = pto::Tensor<float>::zeros({4});
  CHECK_HAS(user_error([&] { get[{.block_dim = 1}](base.permute({1, 0}), y); }), "kernel 'nd_getval_view'",
            "getval of tensor arg0, a non-contiguous view (permute, narrow or select on the host)");

  const auto atomic = pl::jit({.name = "nd_atomic_transposed"}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 8});
    t = 1.0f;
    pl::store(x.permute({1, 0}).slice(0, 8, 0, 8), t, {.atomic = pl::AtomicType::AtomicAdd});
  });
  auto m = pto::Tensor<float>::zeros({8, 8});
  CHECK_HAS(user_error([&] { atomic[{.block_dim = 1}](m); }), "kernel 'nd_atomic_transposed'",
            "an atomic-add store needs a region whose columns are contiguous");

  const auto dyn = pl::jit({.name = "nd_dynamic_view"}, [](pl::Tensor<float, pl::DYNAMIC, 4> x) { (void)x; });
  CHECK_HAS(user_error([&] { dyn[{.block_dim = 1}](base.narrow(1, 0, 4)); }), "kernel 'nd_dynamic_view'",
            "argument 0 is a non-contiguous view (permute, narrow or select) given for a parameter with dynamic dimensions");
  CHECK_NOTHROW(dyn[{.block_dim = 1}](pto::Tensor<float>::zeros({3, 4})));
  pto::synchronize();
  check_runtime_usable();
}

TEST_CASE("pl::make_tensor misuse: a negative stride (at trace time or when the core runs), a view past the tensor, a view of a view") {
  int line = 0;
  const auto constant = pl::jit({.name = "make_tensor_negative"}, [&](pl::Tensor<float> x) {
    line = __LINE__; (void)pl::make_tensor(x, {4, 8}, {-8, 1});
  });
  CHECK_HAS(user_error([&] { constant[{.block_dim = 1}](pto::Tensor<float>::zeros({64})); }), "kernel 'make_tensor_negative'",
            "make_tensor: stride -8 of dimension 0 is negative", PTO_AT(line));
  const auto of_view = pl::jit({.name = "make_tensor_of_view"}, [&](pl::Tensor<float> x) {
    line = __LINE__; (void)pl::make_tensor(x[0], {4, 8}, {8, 1});
  });
  CHECK_HAS(user_error([&] { of_view[{.block_dim = 1}](pto::Tensor<float>::zeros({2, 64})); }), "make_tensor takes a tensor parameter itself",
            PTO_AT(line));

  const auto k = pl::jit({.name = "make_tensor_runtime"}, [&](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int stride, pl::Int offset) {
    const auto m = pl::make_tensor(x, {4, 8}, {stride, 1}, offset);
    auto t = pl::make_tile<float>(pl::Vec, {4, 8});
    pl::load(t, m.slice(0, 4, 0, 8));
    line = __LINE__; pl::store(y.slice(0, 4, 0, 8), t);
  });
  auto x = pto::Tensor<float>::random({64}, 3);
  auto y = pto::Tensor<float>::full({4, 8}, 1.0f);
  const auto y0 = copy_of(y);
  k[{.block_dim = 1}](x, y, int64_t{-8}, int64_t{40});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'make_tensor_runtime'", "load through a view of tensor arg0 with a negative stride -8",
            "pipe: MTE2");
  k[{.block_dim = 1}](x, y, int64_t{16}, int64_t{8});  // rows at 8, 24, 40, 56: the last ends at 64 + 0... element 63 + 1 = 64: inside
  CHECK_NOTHROW(pto::synchronize());
  auto y2 = pto::Tensor<float>::full({4, 8}, 1.0f);
  const auto y20 = copy_of(y2);
  k[{.block_dim = 1}](x, y2, int64_t{16}, int64_t{9});  // the last row ends at element 65 of 64
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'make_tensor_runtime'",
            "load out of bounds on tensor arg0: elements [9, 65) of the pl::make_tensor view are outside the tensor's 64 elements");
  CHECK(bitwise_equal(y2, y20));
  (void)y0;
  check_runtime_usable();
}

TEST_CASE("host views check their arguments") {
  auto t = pto::Tensor<float>::zeros({4, 8});
  CHECK_HAS(user_error([&] { (void)t.narrow(1, 6, 4); }), "narrow: [6, 10) is outside dimension 1 of extent 8");
  CHECK_HAS(user_error([&] { (void)t.permute({1, 1}); }), "permute: dimensions must be a permutation of 0..1");
  CHECK_HAS(user_error([&] { (void)t.select(0, 0).select(0, 1); }), "select needs a tensor of 2 or more dimensions");
}

}  // namespace pto::error_test
