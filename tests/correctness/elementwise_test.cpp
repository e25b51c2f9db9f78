// Element-wise tile operators on every dtype against plain C++: binary and unary operators,
// scalar broadcast, fused expressions, and the sweep of shapes (aligned and tail) x block_dim.
#include "common.hpp"
#include "pto/backend/Math.hpp"

namespace pto::correctness {
namespace {

template <class T>
struct OpCase {
  std::string name;
  MapFn<T, T> dsl;
  std::function<compute_t<T>(compute_t<T>, compute_t<T>)> ref;
  Tol tol = kExact;
};

/// Tolerance of results that libm and LLVM may round differently: 2 ulp in float; for 16-bit
/// types the reference is rounded to T as well and may differ by one ulp of T.
template <class T>
Tol approx() {
  return Tol{std::is_same_v<T, float> ? 2 : 1, true};
}

template <class T>
std::vector<OpCase<T>> floating_cases() {
  using F = float;
  return {
      {"add", [](auto& a, auto& b) { return a + b; }, [](F a, F b) { return a + b; }},
      {"sub", [](auto& a, auto& b) { return a - b; }, [](F a, F b) { return a - b; }},
      {"mul", [](auto& a, auto& b) { return a * b; }, [](F a, F b) { return a * b; }},
      {"div", [](auto& a, auto& b) { return a / b; }, [](F a, F b) { return a / b; }, approx<T>()},
      {"max", [](auto& a, auto& b) { return pl::max(a, b); }, [](F a, F b) { return ref_max(a, b); }, kExact},
      {"min", [](auto& a, auto& b) { return pl::min(a, b); }, [](F a, F b) { return ref_min(a, b); }, kExact},
      {"neg", [](auto& a, auto&) { return -a; }, [](F a, F) { return -a; }},
      {"pl::neg", [](auto& a, auto&) { return pl::neg(a); }, [](F a, F) { return -a; }},
      {"abs", [](auto& a, auto&) { return pl::abs(a); }, [](F a, F) { return std::fabs(a); }},
      {"relu", [](auto& a, auto&) { return pl::relu(a); }, [](F a, F) { return ref_relu(a); }, kExact},
      // The transcendentals are pto::math's functions bit for bit on every engine (their accuracy
      // against the exact functions is math_test.cpp's).
      {"exp", [](auto& a, auto&) { return pl::exp(a); }, [](F a, F) { return pto::math::exp(a); }},
      {"log", [](auto& a, auto&) { return pl::log(a); }, [](F a, F) { return pto::math::log(a); }},
      {"sqrt", [](auto& a, auto&) { return pl::sqrt(a); }, [](F a, F) { return std::sqrt(a); }, approx<T>()},
      {"rsqrt", [](auto& a, auto&) { return pl::rsqrt(a); }, [](F a, F) { return 1.0f / std::sqrt(a); }, approx<T>()},
      {"tanh", [](auto& a, auto&) { return pl::tanh(a); }, [](F a, F) { return pto::math::tanh(a); }},
      {"sigmoid", [](auto& a, auto&) { return pl::sigmoid(a); }, [](F a, F) { return pto::math::sigmoid(a); }},
      {"erf", [](auto& a, auto&) { return pl::erf(a); }, [](F a, F) { return pto::math::erf(a); }},
      {"sin", [](auto& a, auto&) { return pl::sin(a); }, [](F a, F) { return pto::math::sin(a); }},
      {"cos", [](auto& a, auto&) { return pl::cos(a); }, [](F a, F) { return pto::math::cos(a); }},
      // pow is pto::math::pow bit for bit, a constant exponent included (LLVM folds the inlined
      // code with IEEE rounding; nothing is rewritten into x * x).
      {"pow", [](auto& a, auto& b) { return pl::pow(a, b); }, [](F a, F b) { return pto::math::pow(a, b); }, kExact},
      {"pow(tile, 2)", [](auto& a, auto&) { return pl::pow(a, 2.0f); }, [](F a, F) { return pto::math::pow(a, 2.0f); }, kExact},
      {"pow(2, tile)", [](auto& a, auto&) { return pl::pow(2, a); }, [](F a, F) { return pto::math::pow(2.0f, a); }, kExact},
      {"pow(abs(a), 0.5) * b", [](auto& a, auto& b) { return pl::pow(pl::abs(a), 0.5) * b; },
       [](F a, F b) { return pto::math::pow(std::fabs(a), 0.5f) * b; }, kExact},
      {"GELU (erf form)", [](auto& a, auto&) { return a * 0.5f * (1.0f + pl::erf(a * 0.70710678f)); },
       [](F a, F) { const F h = a * 0.5f; return h * (1.0f + pto::math::erf(a * 0.70710678f)); }},
      // Scalars broadcast to every element (float constants, int literals, doubles).
      {"tile * 2.5f", [](auto& a, auto&) { return a * 2.5f; }, [](F a, F) { return a * 2.5f; }},
      {"1 + tile", [](auto& a, auto&) { return 1 + a; }, [](F a, F) { return 1.0f + a; }},
      {"tile - 0.75", [](auto& a, auto&) { return a - 0.75; }, [](F a, F) { return a - 0.75f; }},
      {"3 / tile", [](auto& a, auto&) { return 3.0f / a; }, [](F a, F) { return 3.0f / a; }, approx<T>()},
      {"max(tile, 0.5)", [](auto& a, auto&) { return pl::max(a, 0.5f); }, [](F a, F) { return ref_max(a, 0.5f); }},
      {"min(-0.25, tile)", [](auto& a, auto&) { return pl::min(-0.25, a); }, [](F a, F) { return ref_min(-0.25f, a); }},
      // Fused: one instruction, rounded once at the end, intermediate values in float.
      {"a * b + a", [](auto& a, auto& b) { return a * b + a; }, [](F a, F b) { const F p = a * b; return p + a; }},
      {"max(a - b, -(a * 0.5))", [](auto& a, auto& b) { return pl::max(a - b, -(a * 0.5f)); },
       [](F a, F b) { return ref_max(a - b, -(a * 0.5f)); }, kExact},
      {"abs(a) * relu(b) - 1", [](auto& a, auto& b) { return pl::abs(a) * pl::relu(b) - 1; },
       [](F a, F b) { const F p = std::fabs(a) * ref_relu(b); return p - 1.0f; }},
      {"exp(a - b) / (1 + sqrt(abs(b)))", [](auto& a, auto& b) { return pl::exp(a - b) / (1 + pl::sqrt(pl::abs(b))); },
       [](F a, F b) { return pto::math::exp(a - b) / (1.0f + std::sqrt(std::fabs(b))); }},
  };
}

template <class T>
std::vector<OpCase<T>> integer_cases() {
  using I = int32_t;
  return {
      {"add", [](auto& a, auto& b) { return a + b; }, [](I a, I b) { return wrap_add(a, b); }},
      {"sub", [](auto& a, auto& b) { return a - b; }, [](I a, I b) { return wrap_sub(a, b); }},
      {"mul", [](auto& a, auto& b) { return a * b; }, [](I a, I b) { return wrap_mul(a, b); }},
      {"div", [](auto& a, auto& b) { return a / b; }, [](I a, I b) { return safe_div(a, b); }},
      {"max", [](auto& a, auto& b) { return pl::max(a, b); }, [](I a, I b) { return std::max(a, b); }},
      {"min", [](auto& a, auto& b) { return pl::min(a, b); }, [](I a, I b) { return std::min(a, b); }},
      {"neg", [](auto& a, auto&) { return -a; }, [](I a, I) { return wrap_neg(a); }},
      {"abs", [](auto& a, auto&) { return pl::abs(a); }, [](I a, I) { return a < 0 ? wrap_neg(a) : a; }},
      {"relu", [](auto& a, auto&) { return pl::relu(a); }, [](I a, I) { return std::max(a, 0); }},
      {"tile * 3", [](auto& a, auto&) { return a * 3; }, [](I a, I) { return wrap_mul(a, 3); }},
      {"7 - tile", [](auto& a, auto&) { return 7 - a; }, [](I a, I) { return wrap_sub(7, a); }},
      {"tile / 4", [](auto& a, auto&) { return a / 4; }, [](I a, I) { return a / 4; }},
      {"100 / tile", [](auto& a, auto&) { return 100 / a; }, [](I a, I) { return safe_div(100, a); }},
      {"max(tile, -5)", [](auto& a, auto&) { return pl::max(a, -5); }, [](I a, I) { return std::max(a, -5); }},
      {"a * b - a / 3", [](auto& a, auto& b) { return a * b - a / 3; }, [](I a, I b) { return wrap_sub(wrap_mul(a, b), a / 3); }},
      {"abs(a - b) + min(a, 2)", [](auto& a, auto& b) { return pl::abs(a - b) + pl::min(a, 2); },
       [](I a, I b) { const I d = wrap_sub(a, b); return wrap_add(d < 0 ? wrap_neg(d) : d, std::min(a, 2)); }},
  };
}

/// x and y of n elements: random in T's default range; the first specials^2 elements pair every
/// special value with every other, and the last ones pair specials again (in the tail tile).
template <class T>
std::pair<pto::Tensor<T>, pto::Tensor<T>> pair_data(int64_t n) {
  const auto [lo, hi] = default_range<T>();
  auto x = pto::Tensor<T>::random({n}, 1, lo, hi);
  auto y = pto::Tensor<T>::random({n}, 2, lo, hi);
  const auto sv = special_values<T>();
  const int64_t s = static_cast<int64_t>(sv.size());
  for (int64_t p = 0; p < s * s && p < n; ++p) {
    x[p] = sv[p / s];
    y[p] = sv[p % s];
  }
  for (int64_t k = 0; k < s && k < n; ++k) {
    x[n - 1 - k] = sv[k];
    y[n - 1 - k] = sv[(k * 5 + 3) % s];
  }
  return {std::move(x), std::move(y)};
}

template <class T>
void run_cases(const std::vector<OpCase<T>>& cases, int64_t n, int block_dim) {
  auto [x, y] = pair_data<T>(n);
  const auto x0 = copy_of(x), y0 = copy_of(y);
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CAPTURE(type_name<T>());
    const auto k = make_map_kernel<T, T>("op_" + type_name<T>(), c.dsl);
    auto z = pto::Tensor<T>::zeros({n});
    k[{.block_dim = block_dim}](x, y, z);
    pto::synchronize();
    check_all(
        z, [&](int64_t i) { return narrow<T>(c.ref(widen(x[i]), widen(y[i]))); }, c.tol,
        [&](int64_t i) { return show(x[i]) + ", " + show(y[i]); });
  }
  CHECK(bitwise_equal(x, x0));  // inputs are never written
  CHECK(bitwise_equal(y, y0));
}

}  // namespace

TEST_CASE_TEMPLATE("floating-point tile operators, scalar broadcast and fused expressions match plain C++ (n = 4099, 7 cores)", T,
                   float, half, bfloat16) {
  run_cases<T>(floating_cases<T>(), 4099, 7);
}

TEST_CASE_TEMPLATE("integer tile operators wrap like int32 arithmetic stored to T (n = 4099, 7 cores)", T, int32_t, int8_t) {
  run_cases<T>(integer_cases<T>(), 4099, 7);
}

TEST_CASE_TEMPLATE("an element-wise kernel is right for aligned and tail lengths on 1, 7 and 48 cores", T, float, half, bfloat16,
                   int32_t, int8_t) {
  // One kernel object: each length is one specialisation, block_dim is not part of it.
  const auto k = make_map_kernel<T, T>("sweep_" + type_name<T>(), [](const Tile<T>& a, const Tile<T>& b) { return pl::max(a + b, a - b); });
  for (int64_t n : {4096, 4099, 1024, 1025, 1, 7, 48 * 1024 + 8}) {
    auto [x, y] = pair_data<T>(n);
    for (int bd : {1, 7, 48}) {
      CAPTURE(n);
      CAPTURE(bd);
      auto z = pto::Tensor<T>::full({n}, T(3));
      k[{.block_dim = bd}](x, y, z);
      pto::synchronize();
      check_all(z, [&](int64_t i) {
        const auto a = widen(x[i]), b = widen(y[i]);
        if constexpr (is_float_v<T>) {
          return narrow<T>(ref_max(a + b, a - b));
        } else {
          return narrow<T>(std::max(wrap_add(a, b), wrap_sub(a, b)));
        }
      }, kExact);
    }
  }
}

TEST_CASE("tiles of other sizes (8, 1000, 8192 elements) cut the tensor correctly") {
  for (int64_t tile : {8, 1000, 8192}) {
    CAPTURE(tile);
    const auto k = make_map_kernel<float, float>("tile_size", [](const Tile<float>& a, const Tile<float>& b) { return a * b; }, tile);
    for (int64_t n : {4099, 20000}) {
      auto [x, y] = pair_data<float>(n);
      auto z = pto::Tensor<float>::zeros({n});
      k[{.block_dim = 5}](x, y, z);
      pto::synchronize();
      check_all(z, [&](int64_t i) { return x[i] * y[i]; });
    }
  }
}

TEST_CASE("run_sync computes the same as a queued launch") {
  const auto k = make_map_kernel<half, half>("run_sync", [](const Tile<half>& a, const Tile<half>& b) { return a - b * 2; });
  auto [x, y] = pair_data<half>(4099);
  auto z1 = pto::Tensor<half>::zeros({4099});
  auto z2 = pto::Tensor<half>::zeros({4099});
  k[{.block_dim = 3}].run_sync(x, y, z1);
  k[{.block_dim = 3}](x, y, z2);
  pto::synchronize();
  check_all(z1, [&](int64_t i) { const float p = static_cast<float>(y[i]) * 2.0f; return half(static_cast<float>(x[i]) - p); });
  CHECK(bitwise_equal(z1, z2));
}

}  // namespace pto::correctness
