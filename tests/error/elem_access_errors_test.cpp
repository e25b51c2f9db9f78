// Misuse of getval / setval (pto/lang/ElemAccess.hpp): a constant offset outside the tile or
// tensor and a tile outside Vec at trace time; a runtime offset outside at run time, naming the
// core, pipe S, the instruction and the line, with the tensors it did not write intact.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("getval / setval misused at trace time: a constant offset past the tile or the tensor, a negative one, a Mat tile") {
  int line = 0;
  const std::vector<TraceErrorCase> cases = {
      {"getval_past_tile", [&](pl::Tensor<float>) {
         auto t = pl::make_tile<float>(pl::Vec, {4, 8});
         line = __LINE__; pl::getval(t, 32);
       }, "getval: element offset 32 is outside the 32 elements of the tile"},
      {"setval_past_tensor", [&](pl::Tensor<float> x) {
         line = __LINE__; pl::setval(x, 64, 1.0f);
       }, "setval: element offset 64 is outside the 64 elements of the tensor"},
      {"setval_negative", [&](pl::Tensor<float>) {
         auto t = pl::make_tile<float>(pl::Vec, {4, 8});
         line = __LINE__; pl::setval(t, -1, 2);
       }, "setval: element offset -1 is outside the 32 elements of the tile"},
      {"getval_mat", [&](pl::Tensor<float>) {
         auto t = pl::make_tile<float>(pl::Mat, {16, 16});
         line = __LINE__; pl::getval(t, 0);
       }, "getval of a Mat tile: getval reads and writes Vec (UB) tiles or GM tensors"},
  };
  check_trace_errors(cases, line, __FILE__);
  check_runtime_usable();
}

TEST_CASE("getval / setval at a runtime offset outside the tile or the tensor: core, pipe S, the instruction and the line; the "
          "tensors not written intact, and the runtime usable") {
  int tile_line = 0, tensor_line = 0;
  const auto k = pl::jit({.name = "elem_runtime"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int at, pl::Int which) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 8});
    pl::load(t, x.slice(0, 4, 0, 8));
    pl::pipe_barrier(pl::Pipe::ALL);
    pl::if_(which == 0, [&] { tile_line = __LINE__; pl::setval(z, 0, pl::getval(t, at)); });
    pl::if_(which == 1, [&] { tensor_line = __LINE__; pl::setval(z, at, 1.0f); });
  });
  auto x = pto::Tensor<float>::random({8, 8}, 3);
  auto z = pto::Tensor<float>::full({2, 8}, 5.0f);
  const auto z0 = copy_of(z);
  std::string msg = user_error([&] { k[{.block_dim = 1}].run_sync(x, z, int64_t{32}, int64_t{0}); });
  CHECK_HAS(msg, "kernel 'elem_runtime'", "getval: element offset 32 is outside the 32 elements of the tile", "core: AIV 0", "pipe: S",
            "instruction: #", "getval", PTO_AT(tile_line));
  CHECK(bitwise_equal(z, z0));
  msg = user_error([&] { k[{.block_dim = 1}].run_sync(x, z, int64_t{-3}, int64_t{1}); });
  CHECK_HAS(msg, "setval: element offset -3 is outside the 16 elements of the tensor arg1", "pipe: S", "setval", PTO_AT(tensor_line));
  CHECK(bitwise_equal(z, z0));
  k[{.block_dim = 1}].run_sync(x, z, int64_t{31}, int64_t{0});
  CHECK(z[0] == x[3 * 8 + 7]);
  check_runtime_usable();
}

}  // namespace pto::error_test
