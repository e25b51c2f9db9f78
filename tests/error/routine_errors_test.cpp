// Misuse of the vector routines (gather, scatter, fillpad, sorting; pto/lang/Rearrange.hpp): at
// trace time a message naming the rule, the kernel and the line; at run time an index or extent
// error naming the core, pipe V, the instruction and the line, with tensors not written intact.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("vector routines misused at trace time: fillpad without a pad value, modes against their tiles, a pattern_mode "
          "outside 1..7, a gather cmp_mode, a routine on a Mat tile, mrgsort block_len") {
  int line = 0;
  const std::vector<TraceErrorCase> cases = {
      {"fillpad_no_pad", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Vec, {8, 8}), b = pl::make_tile<float>(pl::Vec, {8, 8});
         line = __LINE__; pl::fillpad(b, a);
       }, "fillpad writes the destination tile's pad value, and t1 has none: declare it with one, e.g. "
          "pl::make_tile<T>(pl::Vec, {rows, cols}, pl::TilePad::Zero)"},
      {"fillpad_inplace_two_tiles", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Vec, {8, 8}), b = pl::make_tile<float>(pl::Vec, {8, 8}, pl::TilePad::Zero);
         line = __LINE__; pl::fillpad(b, a, {.mode = pl::FillPadMode::INPLACE});
       }, "fillpad with FillPadMode::INPLACE fills one tile: pass the same tile as out and src"},
      {"fillpad_normal_shapes", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Vec, {8, 8}), b = pl::make_tile<float>(pl::Vec, {8, 16}, pl::TilePad::Zero);
         line = __LINE__; pl::fillpad(b, a);
       }, "fillpad with FillPadMode::NORMAL needs out and src of one shape, got [8, 16] and [8, 8]; FillPadMode::EXPAND pads into a larger tile"},
      {"gathermask_pattern", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Vec, {8, 8}), b = pl::make_tile<float>(pl::Vec, {8, 8});
         line = __LINE__; pl::gathermask(b, a, {.pattern_mode = 8});
       }, "gathermask: pattern_mode is 1..7 (1/2 even/odd columns, 3..6 one column of every 4, 7 all), got 8"},
      {"gather_cmp_mode", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Vec, {8, 8}), b = pl::make_tile<float>(pl::Vec, {8, 8});
         auto i = pl::make_tile<int32_t>(pl::Vec, {8, 8});
         line = __LINE__; pl::gather(b, a, i, {.cmp_mode = 1});
       }, "gather: cmp_mode 1 is not supported (PyPTO Pro documents only 0, no comparison)"},
      {"sort_on_mat", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Mat, {1, 32}), b = pl::make_tile<float>(pl::Vec, {1, 64});
         auto i = pl::make_tile<int32_t>(pl::Vec, {1, 32});
         line = __LINE__; pl::sort32(b, a, i);
       }, "sort32: src is a Mat tile; sort32 works on Vec (UB) tiles"},
      {"iota_on_mat", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Mat, {16, 16});
         line = __LINE__; pl::iota(a, 3);
       }, "iota: the destination is a Mat tile; iota works on Vec (UB) tiles"},
      {"mrgsort_block_len", [&](pl::Tensor<float>) {
         auto a = pl::make_tile<float>(pl::Vec, {1, 64}), b = pl::make_tile<float>(pl::Vec, {1, 64});
         line = __LINE__; pl::mrgsort(b, a, {.block_len = 3});
       }, "mrgsort: block_len counts tile elements and must be a positive multiple of one 8-byte record (2 elements of f32) and at most src's 64 columns, got 3"},
  };
  check_trace_errors(cases, line, __FILE__);
  check_runtime_usable();
}

TEST_CASE("vector routines at run time: a scatter index outside the destination, a gatherb offset past the source, mrgsort "
          "columns not a multiple of 4 x block_len: core, pipe V, the instruction and the line; the output tensor intact") {
  int line = 0;
  const auto k = pl::jit({.name = "routine_runtime"}, [&](pl::Tensor<float> x, pl::Tensor<int32_t> idx, pl::Tensor<float> z, pl::Int which) {
    auto s = pl::make_tile<float>(pl::Vec, {8, 16});
    auto d = pl::make_tile<float>(pl::Vec, {8, 16});
    auto i = pl::make_tile<int32_t>(pl::Vec, {8, 16});
    pl::load(s, x.slice(0, 8, 0, 16));
    pl::load(i, idx.slice(0, 8, 0, 16));
    pl::load(d, x.slice(0, 8, 0, 16));
    pl::if_(which == 0, [&] { line = __LINE__; pl::scatter(d, s, i); });
    pl::if_(which == 1, [&] {
      auto o = pl::make_tile<int32_t>(pl::Vec, {8, 8});
      pl::load(o, idx.slice(0, 8, 0, 2));  // 2 blocks of 8 f32 per row
      pl::gatherb(d, s, o);
    });
    pl::if_(which == 2, [&] { pl::mrgsort(d, s, {.block_len = 6}); });
    pl::store(z.slice(0, 8, 0, 16), d);
  });
  auto x = pto::Tensor<float>::random({8, 16}, 3);
  auto idx = pto::Tensor<int32_t>::zeros({8, 16});
  for (int64_t e = 0; e < 128; ++e) idx[e] = static_cast<int32_t>(e);
  idx[77] = 128;
  auto z = pto::Tensor<float>::full({8, 16}, 5.0f);
  const auto z0 = copy_of(z);
  std::string msg = user_error([&] { k[{.block_dim = 1}].run_sync(x, idx, z, int64_t{0}); });
  CHECK_HAS(msg, "kernel 'routine_runtime'", "scatter: index 128 (element 77 of the index tile) is outside the 128 elements it may address",
            "core: AIV 0", "pipe: V", "instruction: #", "scatter(", PTO_AT(line));
  CHECK(bitwise_equal(z, z0));
  for (int64_t e = 0; e < 128; ++e) idx[e] = static_cast<int32_t>(64 * (e / 16) + 32 * (e % 2));
  idx[16 * 4 + 1] = 500;  // past 8 x 16 x 4 - 32 = 480; element 4 * 8 + 1 of the offsets tile
  msg = user_error([&] { k[{.block_dim = 1}].run_sync(x, idx, z, int64_t{1}); });
  CHECK_HAS(msg, "gatherb: byte offset 500 (element 33 of the offsets tile) does not leave a 32-byte block inside the source's 512 valid bytes",
            "pipe: V");
  msg = user_error([&] { k[{.block_dim = 1}].run_sync(x, idx, z, int64_t{2}); });
  CHECK_HAS(msg, "mrgsort: 16 columns are not a multiple of 24", "pipe: V");
  CHECK(bitwise_equal(z, z0));
  check_runtime_usable();
}

}  // namespace pto::error_test
