// pl::vector_function against plain C++: registers (vf.load), several stores and reductions of
// shared registers, masked stores, views, on every floating dtype with tails and idle cores; the
// same steps as a vector function and as separate tile instructions give the same bits.
#include "common.hpp"
#include "pto/backend/Math.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kRows = 8, kCols = 64;

/// Per [8, 64] block: g = gelu_tanh(x); y = g, m = row_max(g), c = col_sum(g), z = x where x > 0
/// else z keeps its loaded value (w), all in one vector function.
template <class T>
auto gelu_kernel(bool as_vf) {
  return pl::jit({.name = std::string(as_vf ? "vf_gelu_" : "steps_gelu_") + type_name<T>()},
                 [as_vf](pl::Tensor<T> x, pl::Tensor<T> w, pl::Tensor<T> y, pl::Tensor<T> m, pl::Tensor<T> z) {
    auto xt = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    auto zt = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    auto yt = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    auto ut = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    auto mt = pl::make_tile<T>(pl::Vec, {kRows, 1});
    const auto rows = x.dim(0);
    for (auto b : pl::range(pl::get_block_idx(), pl::ceil_div(rows, kRows), pl::get_block_num())) {
      auto n = pl::min(kRows, rows - b * kRows);
      pl::load(xt, x.slice(b * kRows, n, 0, kCols));
      pl::load(zt, w.slice(b * kRows, n, 0, kCols));
      if (as_vf) {
        pl::vector_function([&](pl::VectorFunction& vf) {
          auto v = vf.load(xt);
          auto u = v * (1.0f + 0.044715f * v * v);
          auto g = 0.5f * v * (1.0f + pl::tanh(0.7978845608f * u));
          vf.store(yt, g);
          vf.row_max(mt, g);
          vf.store(zt, v, v > 0.0f);
        });
      } else {  // the same steps as tile instructions, through an intermediate tile
        ut = xt * (1.0f + 0.044715f * xt * xt);
        yt = 0.5f * xt * (1.0f + pl::tanh(0.7978845608f * ut));
        pl::row_max(mt, yt);
        zt = pl::select(xt > 0.0f, xt, zt);
      }
      pl::store(y.slice(b * kRows, n, 0, kCols), yt);
      pl::store(m.slice(b * kRows, n, 0, 1), mt);
      pl::store(z.slice(b * kRows, n, 0, kCols), zt);
    }
  });
}

float gelu_ref(float v) {
  const float u = v * (1.0f + 0.044715f * v * v);
  return 0.5f * v * (1.0f + pto::math::tanh(0.7978845608f * u));
}

TEST_CASE_TEMPLATE("a vector function's stores, masked store and row reduction match plain C++ and the same steps as tile "
                   "instructions (tails, idle cores)", T, float, half, bfloat16) {
  const int64_t rows = 27;  // three full blocks and a tail of 3, on 6 cores (two idle)
  auto x = pto::Tensor<T>::random({rows, kCols}, 21, -3.0, 3.0), w = pto::Tensor<T>::random({rows, kCols}, 22);
  auto run = [&](bool as_vf) {
    auto y = pto::Tensor<T>::zeros({rows, kCols}), m = pto::Tensor<T>::zeros({rows, 1}), z = pto::Tensor<T>::zeros({rows, kCols});
    gelu_kernel<T>(as_vf)[{.block_dim = 6}](x, w, y, m, z);
    pto::synchronize();
    return std::tuple{y, m, z};
  };
  const auto [y, m, z] = run(true);
  // The register chain computes in float and rounds once per store (16-bit tiles: once, at the end).
  check_all(y, [&](int64_t i) { return narrow<T>(gelu_ref(widen(x[i]))); }, kExact, [&](int64_t i) { return show(x[i]); });
  check_all(z, [&](int64_t i) { return widen(x[i]) > 0.0f ? x[i] : w[i]; }, kExact, [&](int64_t i) { return show(x[i]); });
  check_all(
      m,
      [&](int64_t r) {
        float best = -INFINITY;
        for (int64_t c = 0; c < kCols; ++c) best = std::max(best, gelu_ref(widen(x.at(r, c))));
        return narrow<T>(best);
      },
      kExact, [&](int64_t r) { return std::to_string(r); });
  if constexpr (std::is_same_v<T, float>) {  // float tiles: the intermediate tile rounds nothing away
    const auto [ys, ms, zs] = run(false);
    CHECK(bitwise_equal(y, ys));
    CHECK(bitwise_equal(m, ms));
    CHECK(bitwise_equal(z, zs));
  }
}

TEST_CASE("a vector function reads and writes tile views and reduces columns") {
  const auto k = pl::jit({.name = "vf_views"}, [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> s) {
    auto xt = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto yt = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto st = pl::make_tile<float>(pl::Vec, {1, kCols});
    pl::load(xt, x.slice(0, kRows, 0, kCols));
    yt = 0.0f;
    pl::vector_function([&](pl::VectorFunction& vf) {
      auto top = vf.load(xt.view(0, 4, 0, kCols));
      vf.store(yt.view(4, 4, 0, kCols), pl::exp(top));
      vf.col_sum(st, top * 2.0f);
    });
    pl::store(y.slice(0, kRows, 0, kCols), yt);
    pl::store(s.slice(0, 1, 0, kCols), st);
  });
  auto x = pto::Tensor<float>::random({kRows, kCols}, 23);
  auto y = pto::Tensor<float>::zeros({kRows, kCols}), s = pto::Tensor<float>::zeros({1, kCols});
  k[{.block_dim = 1}](x, y, s);
  pto::synchronize();
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) CHECK(y.at(r, c) == (r < 4 ? 0.0f : pto::math::exp(x.at(r - 4, c))));
  }
  for (int64_t c = 0; c < kCols; ++c) {
    float sum = 0;
    for (int64_t r = 0; r < 4; ++r) sum += x.at(r, c) * 2.0f;  // rows combined in order from the first
    CHECK(s.at(0, c) == sum);
  }
}

}  // namespace
}  // namespace pto::correctness
