// The JIT's inlined, vectorised transcendentals give pto::math's bits (pto/backend/Math.hpp) on a
// sweep of ~1M floats across the whole range, specials included, and pow on 600k pairs; the interpreter calls pto::math
// itself (the correctness_tests_interpreter run covers it). Their accuracy is
// tests/unit/math_accuracy_test.cpp's.
#include <bit>
#include <cmath>

#include "common.hpp"
#include "common/FloatSweep.hpp"
#include "pto/backend/Math.hpp"

namespace pto::correctness {
namespace {

struct MathFn {
  const char* name;
  float (*fn)(float);
  pl::TExpr<float> (*dsl)(const Tile<float>&);
};

const std::vector<MathFn>& functions() {
  static const std::vector<MathFn> fns = {
      {"exp", pto::math::exp, [](const Tile<float>& a) { return pl::exp(a); }},
      {"log", pto::math::log, [](const Tile<float>& a) { return pl::log(a); }},
      {"tanh", pto::math::tanh, [](const Tile<float>& a) { return pl::tanh(a); }},
      {"sigmoid", pto::math::sigmoid, [](const Tile<float>& a) { return pl::sigmoid(a); }},
      {"erf", pto::math::erf, [](const Tile<float>& a) { return pl::erf(a); }},
      {"sin", pto::math::sin, [](const Tile<float>& a) { return pl::sin(a); }},
      {"cos", pto::math::cos, [](const Tile<float>& a) { return pl::cos(a); }},
  };
  return fns;
}

using pto::test::float_sweep;

TEST_CASE("the JIT's vectorised transcendentals give pto::math's bits on the whole sweep") {
  const auto xs = float_sweep(4099);  // ~1M inputs
  const auto n = static_cast<int64_t>(xs.size());
  auto x = pto::Tensor<float>::zeros({n});
  for (int64_t i = 0; i < n; ++i) x[i] = xs[static_cast<size_t>(i)];
  for (const auto& f : functions()) {
    CAPTURE(std::string(f.name));
    const auto k = make_map_kernel<float, float>(std::string("math_") + f.name,
                                                  [dsl = f.dsl](const Tile<float>& a, const Tile<float>&) { return dsl(a); });
    auto z = pto::Tensor<float>::zeros({n});
    k[{.block_dim = 8}](x, x, z);
    pto::synchronize();
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; ++i) {
      const float want = f.fn(x[i]), got = z[i];
      const bool ok = std::isnan(want) ? std::isnan(got) : std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(got);
      if (!ok && bad++ == 0) first = i;
    }
    INFO("first mismatch at input " << (first >= 0 ? x[first] : 0.0f));
    CHECK(bad == 0);
  }
}

TEST_CASE("the JIT's vectorised pow gives pto::math::pow's bits on 600k argument pairs, specials included") {
  const auto pairs = pto::test::pow_pairs(600'000);
  const auto n = static_cast<int64_t>(pairs.size());
  auto x = pto::Tensor<float>::zeros({n});
  auto y = pto::Tensor<float>::zeros({n});
  for (int64_t i = 0; i < n; ++i) x[i] = pairs[static_cast<size_t>(i)].first, y[i] = pairs[static_cast<size_t>(i)].second;
  const auto k = make_map_kernel<float, float>("math_pow", [](const Tile<float>& a, const Tile<float>& b) { return pl::pow(a, b); });
  auto z = pto::Tensor<float>::zeros({n});
  k[{.block_dim = 8}](x, y, z);
  pto::synchronize();
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n; ++i) {
    const float want = pto::math::pow(x[i], y[i]), got = z[i];
    const bool ok = std::isnan(want) ? std::isnan(got) : std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(got);
    if (!ok && bad++ == 0) first = i;
  }
  INFO("first mismatch at pow(" << (first >= 0 ? x[first] : 0.0f) << ", " << (first >= 0 ? y[first] : 0.0f) << ")");
  CHECK(bad == 0);
}

}  // namespace
}  // namespace pto::correctness
