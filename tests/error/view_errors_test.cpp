// Misuse of tile views: a window past the tile (at trace time for constant offsets, at run time
// for runtime ones: kernel, core, pipe, instruction and line, the output untouched), a view given
// to an instruction that takes whole tiles, a view of a non-Vec tile, extents out of range.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("a view past its tile at constant offsets is a trace-time error naming the tile, the axis and the line") {
  int line = 0;
  const auto k = pl::jit({.name = "view_past_tile"}, [&](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    pl::load(t, x.slice(0, 16, 0, 64));
    line = __LINE__; t.view(10, 8, 0, 64) = 1.0f;
  });
  auto x = pto::Tensor<float>::zeros({16, 64});
  const std::string msg = user_error([&] { k[{.block_dim = 1}](x); });
  CHECK_HAS(msg, "kernel 'view_past_tile'", "view rows 10 +: 8 of the 16 x 64 tile", "reach past its 16 rows", PTO_AT(line));
  check_runtime_usable();
}

TEST_CASE("a view past its tile at a runtime offset is reported by synchronize; the output is untouched") {
  int line = 0;
  const auto k = pl::jit({.name = "view_runtime_past"}, [&](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    pl::load(t, x.slice(0, 16, 0, 64));
    for (auto i : pl::range(0, 3)) {
      line = __LINE__; t.view(i * 8, 8, 0, 64) = t.view(0, 8, 0, 64) * 2;  // i = 2: rows 16..23
    }
    pl::store(y.slice(0, 16, 0, 64), t);
  });
  auto x = pto::Tensor<float>::random({16, 64}, 3);
  auto y = pto::Tensor<float>::full({16, 64}, 5.0f);
  const auto y0 = copy_of(y);
  k[{.block_dim = 2}](x, y);
  const std::string msg = user_error([] { pto::synchronize(); });
  CHECK_HAS(msg, "kernel 'view_runtime_past'", "a tile view's rows [16, 24) (offset 16, length 8) is outside the tile's 16 rows",
            "core: AIV 0", "pipe: V", PTO_AT(line));
  CHECK(bitwise_equal(y, y0));
  check_runtime_usable();
}

TEST_CASE("a view written from a partly overlapping view of the same row (a shift along the row) is reported; the same "
          "window, or other rows, are fine") {
  int line = 0;
  const auto k = pl::jit({.name = "view_shift"}, [&](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int shift) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    pl::load(t, x.slice(0, 16, 0, 64));
    t.view(1, 15, 0, 64) = t.view(0, 15, 0, 64) * 2;  // other rows: defined (rows run in order)
    t.view(0, 16, 0, 32) = t.view(0, 16, 0, 32) + 1;   // the written window itself: defined
    line = __LINE__; t.view(0, 16, shift, 32) = t.view(0, 16, 0, 32) + 1;
    pl::store(y.slice(0, 16, 0, 64), t);
  });
  auto x = pto::Tensor<float>::random({16, 64}, 4);
  auto y = pto::Tensor<float>::full({16, 64}, 5.0f);
  const auto y0 = copy_of(y);
  k[{.block_dim = 1}](x, y, int64_t{1});
  const std::string msg = user_error([] { pto::synchronize(); });
  CHECK_HAS(msg, "kernel 'view_shift'", "writes columns from 1 of a tile view and reads the same row of the same slot from column 0",
            "a partial overlap", "pipe: V", PTO_AT(line));
  CHECK(bitwise_equal(y, y0));
  k[{.block_dim = 1}](x, y, int64_t{32});  // columns 32..63 from 0..31: no column in common
  pto::synchronize();
  for (int64_t r = 0; r < 16; ++r) {
    // Rows run in order, so row r took row r - 1 after it was doubled itself: x[0] * 2^r.
    const float doubled = std::ldexp(x.at(0, 5), static_cast<int>(r));
    CHECK(y.at(r, 5) == doubled + 1);
    CHECK(y.at(r, 37) == doubled + 1 + 1);
  }
  check_runtime_usable();
}

TEST_CASE("a view given to pl::load, pl::store or a valid-extent query is an error: they take whole tiles") {
  auto x = pto::Tensor<float>::zeros({16, 64});
  int line = 0;
  const auto load = pl::jit({.name = "view_load"}, [&](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    line = __LINE__; pl::load(t.view(0, 8, 0, 64), x.slice(0, 8, 0, 64));
  });
  CHECK_HAS(user_error([&] { load[{.block_dim = 1}](x); }), "kernel 'view_load'", "a view of tile", "takes whole tiles", PTO_AT(line));
  const auto store = pl::jit({.name = "view_store"}, [&](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    t = 0.0f;
    line = __LINE__; pl::store(x.slice(0, 8, 0, 64), t.view(0, 8, 0, 64));
  });
  CHECK_HAS(user_error([&] { store[{.block_dim = 1}](x); }), "kernel 'view_store'", "takes whole tiles", PTO_AT(line));
  check_runtime_usable();
}

TEST_CASE("a view of a Mat tile, or with extents of 0 or past the tile, is a trace-time error") {
  auto x = pto::Tensor<float>::zeros({16, 64});
  const auto mat = pl::jit({.name = "view_of_mat"}, [](pl::Tensor<float> x) {
    auto m = pl::make_tile<float>(pl::Mat, {16, 64});
    pl::load(m, x.slice(0, 16, 0, 64));
    auto v = m.view(0, 8, 0, 64);
    (void)v;
  });
  CHECK_HAS(user_error([&] { mat[{.block_dim = 1}](x); }), "a view of the Mat tile", "tile expressions, which run on Vec tiles");
  const auto empty = pl::jit({.name = "view_empty"}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    t.view(0, 0, 0, 64) = 1.0f;
  });
  CHECK_HAS(user_error([&] { empty[{.block_dim = 1}](x); }), "view of 0 x 64 of the 16 x 64 tile", "at least 1 and at most the tile's");
  const auto wide = pl::jit({.name = "view_wide"}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    t.view(0, 8, 0, 32).view(0, 8, 0, 64) = 1.0f;
  });
  CHECK_HAS(user_error([&] { wide[{.block_dim = 1}](x); }), "view of 8 x 64 of the 8 x 32 view");
  check_runtime_usable();
}

}  // namespace pto::error_test
