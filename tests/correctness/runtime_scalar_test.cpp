// Runtime float scalars (pl::Float): a kernel parameter broadcast into tile expressions, not part
// of the cache key, on every float dtype with tails and idle cores, against plain C++.
#include "common.hpp"

namespace pto::correctness {

TEST_CASE_TEMPLATE("pl::Float parameters: y = x * alpha + beta, every value on one compiled kernel", T, float, half, bfloat16) {
  constexpr int64_t tile = 256;
  const auto k = pl::jit({.name = "axpb"}, [](pl::Tensor<T> x, pl::Float alpha, pl::Float beta, pl::Tensor<T> y) {
    const int64_t n = x.numel();
    auto t = pl::make_tile<T>(pl::Vec, {tile});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, tile), pl::get_block_num())) {
      auto len = pl::min(tile, n - i * tile);
      pl::load(t, x.slice(i * tile, len));
      t = t * alpha + beta;
      pl::store(y.slice(i * tile, len), t);
    }
  });
  const int64_t n = 3 * tile + 37;  // a tail; 8 blocks for 4 tiles: idle cores
  auto x = pto::Tensor<T>::random({n}, 5, -4, 4);
  const uint64_t before = pto::runtime_stats().compiles;
  for (const auto& [alpha, beta] : {std::pair{0.5f, 1.0f}, std::pair{-3.25f, 0.0f}, std::pair{1e-5f, -2.0f}}) {
    CAPTURE(alpha);
    auto y = pto::Tensor<T>::zeros({n});
    k[{.block_dim = 8}](x, alpha, beta, y);
    pto::synchronize();
    check_all(y, [&](int64_t i) { const float p = widen(x[i]) * alpha; return narrow<T>(p + beta); });
  }
  CHECK(pto::runtime_stats().compiles == before + 1);  // one specialisation for every value
}

TEST_CASE("pl::Float from half and bfloat16 host values, and next to pl::Int parameters") {
  const auto k = pl::jit({.name = "scale_rows"}, [](pl::Tensor<float> x, pl::Int rows, pl::Float s, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 64});
    pl::load(t, x.slice(0, rows, 0, 64));
    t = pl::max(t * s, s);
    pl::store(y.slice(0, rows, 0, 64), t);
  });
  auto x = pto::Tensor<float>::random({4, 64}, 9, -2, 2);
  for (const float s : {static_cast<float>(pto::half(0.375f)), static_cast<float>(pto::bfloat16(-1.5f))}) {
    auto y = pto::Tensor<float>::full({4, 64}, 7.0f);
    if (s > 0) {
      k[{.block_dim = 1}](x, int64_t{3}, pto::half(0.375f), y);
    } else {
      k[{.block_dim = 1}](x, int64_t{3}, pto::bfloat16(-1.5f), y);
    }
    pto::synchronize();
    check_all(y, [&](int64_t i) { return i < 3 * 64 ? ref_max(x[i] * s, s) : 7.0f; });  // the 4th row is not written
  }
}

}  // namespace pto::correctness
