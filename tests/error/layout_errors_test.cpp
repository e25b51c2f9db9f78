// Misuse of tile layouts: a layout the memory does not take on the chip (PyPTO Pro's two messages,
// a5 rejecting ZZ/NN in its cube buffers), a conversion no data path performs (ND into a ZN tile,
// an untiled Mat tile into L0, a DN Vec tile from a row-major window, an accumulator out to a
// column-major view) and tiles aliasing bytes in different layouts. Each names the kernel and the
// line (and the instruction's pipe). A chip profile's layout errors: tests/unit/chip_profile_test.cpp.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("a layout the memory does not take on the chip is an error with PyPTO Pro's message") {
  int line = 0;
  struct Case {
    const char* name;
    const char* chip;
    std::function<void()> declare;
    std::string phrase;
  };
  const std::vector<Case> cases = {
      {"layout_a5_left_zz", "a5", [&] { line = __LINE__; (void)pl::make_tile<half>(pl::Left, {32, 32}, pl::ZZ); },
       "Left tiles do not support ZZ layout on 'a5'; use the default NZ layout instead (tile group t0)"},
      {"layout_a5_right_nn", "a5", [&] { line = __LINE__; (void)pl::make_tile<half>(pl::Right, {32, 32}, pl::NN); },
       "Right tiles do not support NN layout on 'a5'; use the default ZN layout instead"},
      {"layout_a2_right_nz", "a2", [&] { line = __LINE__; (void)pl::make_tile<half>(pl::Right, {32, 32}, pl::NZ); },
       "Right tiles require layout in {ZN}, got NZ. Default for 'a2' is ZN (tile group t0)"},
      {"layout_a2_vec_nz", "a2", [&] { line = __LINE__; (void)pl::make_tile<half>(pl::Vec, {32, 32}, pl::NZ); },
       "Vec tiles require layout in {ND, DN}, got NZ. Default for 'a2' is ND"},
      {"layout_a2_acc_nd", "a2", [&] { line = __LINE__; (void)pl::make_tile<float>(pl::Acc, {32, 32}, {.layout = pl::ND}); },
       "Acc tiles require layout in {NZ}, got ND"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto k = pl::jit({.name = c.name, .chip = c.chip}, [&](pl::Tensor<half> x) {
      (void)x;
      c.declare();
    });
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](pto::Tensor<half>::zeros({64})); }), std::string("kernel '") + c.name + "'", c.phrase,
              PTO_AT(line));
  }
  check_runtime_usable();
}

TEST_CASE("a conversion no data path performs is an error naming the instruction, its pipe and line; the output stays intact") {
  int line = 0;
  struct Case {
    const char* name;
    std::function<void(const pl::Tensor<half>&, const pl::Tensor<float>&)> body;
    std::string phrase, pipe;
  };
  const std::vector<Case> cases = {
      {"layout_nd_into_zn",
       [&](const pl::Tensor<half>& x, const pl::Tensor<float>&) {
         auto t = pl::make_tile<half>(pl::Mat, {32, 32}, pl::ZN);
         line = __LINE__; pl::load(t, x.slice(0, 32, 0, 32));
       },
       "into ZN tile t0: TLOAD converts ND -> NZ and DN -> ZN only; declare the tile NZ (or pass a transposed view, which loads into ZN)",
       "MTE2"},
      {"layout_dn_into_nz",
       [&](const pl::Tensor<half>& x, const pl::Tensor<float>&) {
         auto t = pl::make_tile<half>(pl::Mat, {32, 32});
         line = __LINE__; pl::load(t, x.permute({1, 0}).slice(0, 32, 0, 32));
       },
       "load of a DN window of tensor arg0 into NZ tile t0: TLOAD converts ND -> NZ and DN -> ZN only; declare the tile ZN", "MTE2"},
      {"layout_nd_mat_into_left",
       [&](const pl::Tensor<half>& x, const pl::Tensor<float>&) {
         auto t = pl::make_tile<half>(pl::Mat, {32, 32}, pl::ND);
         auto l = pl::make_tile<half>(pl::Left, {32, 32});
         pl::load(t, x.slice(0, 32, 0, 32));
         line = __LINE__; pl::move(l, t);
       },
       "move of ND tile t0 into Left: MTE1 loads L0 from fractal tiles (NZ or ZN); declare t0 NZ (the Mat default) or ZN", "MTE1"},
      {"layout_dn_vec_from_rows",
       [&](const pl::Tensor<half>& x, const pl::Tensor<float>&) {
         auto t = pl::make_tile<half>(pl::Vec, {32, 32}, pl::DN);
         line = __LINE__; pl::load(t, x.slice(0, 32, 0, 32));
       },
       "load between a 32x32 DN tile (t0) and a row-major window of tensor arg0: MTE moves a DN tile to or from a column-major (DN) view only",
       "MTE2"},
      {"layout_acc_to_dn",
       [&](const pl::Tensor<half>&, const pl::Tensor<float>& y) {
         auto acc = pl::make_tile<float>(pl::Acc, {32, 32});
         line = __LINE__; pl::store(y.permute({1, 0}).slice(0, 32, 0, 32), acc);
       },
       "this window of tensor arg1 is column-major (DN), which TSTORE does not support (NZ2DN)", "FIX"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto k = pl::jit({.name = c.name}, [&](pl::Tensor<half> x, pl::Tensor<float> y) { c.body(x, y); });
    auto x = pto::Tensor<half>::zeros({32, 32});
    auto y = pto::Tensor<float>::full({32, 32}, 5.0f);
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](x, y); }), std::string("kernel '") + c.name + "'", c.phrase, c.pipe, PTO_AT(line));
    for (int64_t i = 0; i < y.numel(); ++i) REQUIRE(y[i] == 5.0f);
  }
  check_runtime_usable();
}

TEST_CASE("tiles placed at the same bytes in different layouts are an error; two ND tiles or a DN column and an ND row are not") {
  int line = 0;
  const auto k = pl::jit({.name = "layout_alias_mismatch"}, [&](pl::Tensor<half> x) {
    (void)x;
    (void)pl::make_tile<half>(pl::Mat, {32, 32}, {.layout = pl::NZ, .addrs = {0}});
    line = __LINE__; (void)pl::make_tile<half>(pl::Mat, {32, 32}, {.layout = pl::ND, .addrs = {0}});
  });
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](pto::Tensor<half>::zeros({64})); }), "kernel 'layout_alias_mismatch'",
            "tiles t0 (NZ 32x32) and t1 (ND 32x32) alias the same bytes of Mat in different layouts", PTO_AT(line));
  check_runtime_usable();
}

}  // namespace pto::error_test
