// PyPTO Pro's spellings (pto/lang/PyptoForms.hpp) against the language's own forms and plain C++:
// destination-passing vector ops give bit for bit what the tile expressions give; expand_* and
// sum/max/min follow PyPTO Pro's documented examples; loads and stores by offsets move the tile's
// valid shape (its capacity until set_validshape declares a tail).
#include "common.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kR = 8, kC = 64;
constexpr int kOps = 14;

/// Block i of `out` (rows [8i, 8i + 8)) holds op i applied to x (and y or 2.5).
template <bool Destination>
auto make_ops_kernel() {
  return pl::jit({.name = Destination ? "pypto_dest_ops" : "expr_ops"}, [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> out) {
    auto a = pl::make_tile<float>(pl::Vec, {kR, kC});
    auto b = pl::make_tile<float>(pl::Vec, {kR, kC});
    auto o = pl::make_tile<float>(pl::Vec, {kR, kC});
    pl::load(a, x.slice(0, kR, 0, kC));
    pl::load(b, y.slice(0, kR, 0, kC));
    for (int op = 0; op < kOps; ++op) {
      if constexpr (Destination) {
        switch (op) {
          case 0: pl::add(o, a, b); break;
          case 1: pl::sub(o, a, 2.5f); break;
          case 2: pl::mul(o, a, b); break;
          case 3: pl::div(o, a, b); break;
          case 4: pl::maximum(o, a, b); break;
          case 5: pl::minimum(o, a, 2.5f); break;
          case 6: pl::abs(o, b); break;
          case 7: pl::neg(o, a); break;
          case 8: pl::relu(o, b); break;
          case 9: pl::exp(o, b); break;
          case 10: pl::log(o, a); break;
          case 11: pl::sqrt(o, a); break;
          case 12: pl::rsqrt(o, a); break;
          default: pl::recip(o, a); break;
        }
      } else {
        switch (op) {
          case 0: o = a + b; break;
          case 1: o = a - 2.5f; break;
          case 2: o = a * b; break;
          case 3: o = a / b; break;
          case 4: o = pl::max(a, b); break;
          case 5: o = pl::min(a, 2.5f); break;
          case 6: o = pl::abs(b); break;
          case 7: o = -a; break;
          case 8: o = pl::relu(b); break;
          case 9: o = pl::exp(b); break;
          case 10: o = pl::log(a); break;
          case 11: o = pl::sqrt(a); break;
          case 12: o = pl::rsqrt(a); break;
          default: o = 1.0f / a; break;
        }
      }
      pl::store(out.slice(op * kR, kR, 0, kC), o);
    }
  });
}

}  // namespace

TEST_CASE("destination-passing ops (add/sub/mul/div/maximum/minimum, tile or scalar; abs/neg/relu/exp/log/sqrt/rsqrt/recip) "
          "compute bit for bit what the tile expressions do, and what plain C++ does") {
  auto x = Tensor<float>::random({kR, kC}, 5, 0.25, 4.0);  // positive: log, sqrt, rsqrt, recip
  auto y = Tensor<float>::random({kR, kC}, 6, -3.0, 3.0);
  for (int64_t i = 0; i < kR * kC; i += 7) y[i] = y[i] == 0 ? 1.0f : y[i];
  auto dest = Tensor<float>::zeros({kOps * kR, kC}), expr = Tensor<float>::zeros({kOps * kR, kC});
  make_ops_kernel<true>()[{.block_dim = 1}].run_sync(x, y, dest);
  make_ops_kernel<false>()[{.block_dim = 1}].run_sync(x, y, expr);
  CHECK(bitwise_equal(dest, expr));
  const int64_t n = kR * kC;
  auto at = [&](int op, int64_t i) { return dest[op * n + i]; };
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float a = x[i], b = y[i];
    wrong += at(0, i) != a + b;
    wrong += at(1, i) != a - 2.5f;
    wrong += at(2, i) != a * b;
    wrong += at(3, i) != a / b;
    wrong += at(4, i) != std::max(a, b);
    wrong += at(5, i) != std::min(a, 2.5f);
    wrong += at(6, i) != std::fabs(b);
    wrong += at(7, i) != -a;
    wrong += at(8, i) != std::max(b, 0.0f);
    auto close = [](float got, double want) { return std::fabs(got - want) <= 4e-7 * std::fabs(want) + 1e-30; };
    wrong += !close(at(9, i), std::exp(static_cast<double>(b)));
    wrong += !close(at(10, i), std::log(static_cast<double>(a)));
    wrong += !close(at(11, i), std::sqrt(static_cast<double>(a)));
    wrong += !close(at(12, i), 1.0 / std::sqrt(static_cast<double>(a)));
    wrong += at(13, i) != 1.0f / a;
  }
  CHECK(wrong == 0);
}

TEST_CASE("sum(out, src, tmp) and expand_sub(out, src, vec) as PyPTO Pro's examples use them: x minus its row means, "
          "and minus a [1, cols] row with dim 1; max(out, src, tmp)") {
  const auto k = pl::jit({.name = "pypto_expand"}, [](pl::Tensor<float> a, pl::Tensor<float> row, pl::Tensor<float> centred,
                                                     pl::Tensor<float> shifted, pl::Tensor<float> maxima) {
    auto tile_a = pl::make_tile<float>(pl::Vec, {64, 128});
    auto tmp = pl::make_tile<float>(pl::Vec, {64, 128});
    auto sums = pl::make_tile<float>(pl::Vec, {64, 1});
    auto v = pl::make_tile<float>(pl::Vec, {1, 128});
    auto out = pl::make_tile<float>(pl::Vec, {64, 128});
    pl::load(tile_a, a, {0, 0});
    pl::sum(sums, tile_a, tmp);
    pl::mul(sums, sums, 1.0f / 128);
    pl::expand_sub(out, tile_a, sums);  // dim 0: minus each row's mean
    pl::store(centred, out, {0, 0});
    pl::load(v, row, {0, 0});
    pl::expand_sub(out, tile_a, v, 1);  // dim 1: minus the row vector, down every column
    pl::store(shifted, out, {0, 0});
    pl::max(sums, tile_a, tmp);
    pl::expand_sub(out, tile_a, sums);  // minus each row's maximum
    pl::store(maxima, out, {0, 0});
  });
  auto a = Tensor<float>::random({64, 128}, 9, -8.0, 8.0);
  auto row = Tensor<float>::random({1, 128}, 10, -2.0, 2.0);
  auto centred = Tensor<float>::zeros({64, 128}), shifted = Tensor<float>::zeros({64, 128});
  auto maxima = Tensor<float>::zeros({64, 128});
  k[{.block_dim = 1}].run_sync(a, row, centred, shifted, maxima);
  int64_t wrong = 0;
  for (int64_t r = 0; r < 64; ++r) {
    double sum = 0;
    float mx = a[r * 128];
    for (int64_t c = 0; c < 128; ++c) sum += a[r * 128 + c], mx = std::max(mx, a[r * 128 + c]);
    const double mean = sum / 128;
    for (int64_t c = 0; c < 128; ++c) {
      wrong += std::fabs(centred[r * 128 + c] - (a[r * 128 + c] - mean)) > 1e-5;  // a float row sum of 128 terms
      wrong += shifted[r * 128 + c] != a[r * 128 + c] - row[c];
      wrong += maxima[r * 128 + c] != a[r * 128 + c] - mx;
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("load / store / load_tile / store_tile by offsets move the tile's valid shape: set_validshape declares the tails, "
          "a fresh tile moves its whole shape") {
  // z = x + y over a 70 x 100 tensor in 16 x 32 tiles; the last row and column of tiles are tails.
  const auto k = pl::jit({.name = "pypto_offsets"}, [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
    const int64_t R = x.dim(0), C = x.dim(1);
    const int64_t tr = (R + 15) / 16, tc = (C + 31) / 32;
    auto xt = pl::make_tile<float>(pl::Vec, {16, 32});
    auto yt = pl::make_tile<float>(pl::Vec, {16, 32});
    auto zt = pl::make_tile<float>(pl::Vec, {16, 32});
    for (auto t : pl::range(pl::get_block_idx(), tr * tc, pl::get_block_num())) {
      auto i = t / tc, j = t % tc;
      auto rows = pl::min(16, R - i * 16), cols = pl::min(32, C - j * 32);
      pl::set_validshape(xt, rows, cols);
      pl::load_tile(xt, x, {i, j});
      pl::set_validshape(yt, rows, cols);
      pl::load(yt, y, {i * 16, j * 32});
      pl::add(zt, xt, yt);
      pl::store_tile(z, zt, {i, j});
    }
  });
  auto x = Tensor<float>::random({70, 100}, 11), y = Tensor<float>::random({70, 100}, 12);
  for (int bd : {1, 3}) {
    CAPTURE(bd);
    auto z = Tensor<float>::full({70, 100}, -7.0f);
    const auto p = k[{.block_dim = bd}].run_sync(x, y, z);
    int64_t wrong = 0;
    for (int64_t i = 0; i < 70 * 100; ++i) wrong += z[i] != x[i] + y[i];
    CHECK(wrong == 0);
    CHECK(p.races.empty());
  }
  // A fresh tile (nothing written, no set_validshape) moves its whole 16 x 32 shape.
  const auto whole = pl::jit({.name = "pypto_fresh_tile"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 32});
    pl::load(t, x, {16, 32});
    pl::store(z, t, {0, 0});
  });
  auto z = Tensor<float>::full({70, 100}, -7.0f);
  whole[{.block_dim = 1}].run_sync(x, z);
  int64_t wrong = 0;
  for (int64_t r = 0; r < 70; ++r) {
    for (int64_t c = 0; c < 100; ++c) wrong += z[r * 100 + c] != (r < 16 && c < 32 ? x[(r + 16) * 100 + c + 32] : -7.0f);
  }
  CHECK(wrong == 0);
}

}  // namespace pto::correctness

namespace pto::correctness {
namespace {

/// out[8 x 64] += x block b's rows [8b, 8b + 8), for every block b, with atomic-add stores.
template <class T>
auto make_block_sum() {
  return pl::jit({.name = "atomic_block_sum_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> out) {
    auto t = pl::make_tile<T>(pl::Vec, {8, 64});
    pl::load(t, x, {pl::get_block_idx() * 8, 0});
    pl::store(out, t, {0, 0}, {.atomic = pl::AtomicType::AtomicAdd});
  });
}

}  // namespace

TEST_CASE_TEMPLATE("atomic-add stores (PyPTO Pro's AtomicType.AtomicAdd) let every block accumulate into one region: "
                   "a cross-block sum, exact for int32, race-free", T, float, int32_t, half) {
  CAPTURE(type_name<T>());
  constexpr int blocks = 8;
  auto x = test_data<T>({blocks * 8, 64}, 21, -4, 4, false);
  auto out = pto::Tensor<T>::full({8, 64}, T(1));  // the initial value the adds land on
  const auto p = make_block_sum<T>()[{.block_dim = blocks}].run_sync(x, out);
  INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
  CHECK(p.races.empty());
  int64_t wrong = 0;
  for (int64_t i = 0; i < 8 * 64; ++i) {
    double want = 1, magnitude = 1;
    for (int b = 0; b < blocks; ++b) {
      want += static_cast<double>(widen(x[b * 8 * 64 + i]));
      magnitude += std::fabs(static_cast<double>(widen(x[b * 8 * 64 + i])));
    }
    const double got = static_cast<double>(widen(out[i]));
    // Floats: the blocks add in any order; each add rounds once to T.
    const double eps = std::is_same_v<T, float> ? 0x1p-24 : (std::is_same_v<T, half> ? 0x1p-11 : 0.0);
    wrong += std::fabs(got - want) > blocks * eps * magnitude;
  }
  CHECK(wrong == 0);
}

TEST_CASE("an atomic-add store and a plain store of the same region from different blocks still race") {
  const auto k = pl::jit({.name = "atomic_vs_plain"}, [](pl::Tensor<float> x, pl::Tensor<float> out) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(t, x, {pl::get_block_idx() * 8, 0});
    pl::if_(pl::get_block_idx() == 0, [&] { pl::store(out, t, {0, 0}); },
            [&] { pl::store(out, t, {0, 0}, {.atomic = pl::AtomicType::AtomicAdd}); });
  });
  auto x = test_data<float>({16, 64}, 22, -4, 4, false);
  auto out = pto::Tensor<float>::zeros({8, 64});
  const auto p = k[{.block_dim = 2}].run_sync(x, out);
  REQUIRE_FALSE(p.races.empty());
  CHECK(p.races.front().message().find("between blocks") != std::string::npos);
}

}  // namespace pto::correctness

namespace pto::correctness {

/// The AIC's acc = A[m x k] x B[k x n] (the top-left corners of a and b), through Mat into Left and Right.
template <class In, class Acc>
void product(const pl::Tile<Acc>& acc, const pl::Tensor<In>& a, const pl::Tensor<In>& b, int64_t m, int64_t k, int64_t n) {
  auto am = pl::make_tile<In>(pl::Mat, {m, k});
  auto bm = pl::make_tile<In>(pl::Mat, {k, n});
  auto l = pl::make_tile<In>(pl::Left, {m, k});
  auto r = pl::make_tile<In>(pl::Right, {k, n});
  pl::load(am, a.slice(0, m, 0, k));
  pl::load(bm, b.slice(0, k, 0, n));
  pl::move(l, am);
  pl::move(r, bm);
  pl::matmul(acc, l, r);
}

TEST_CASE("store with relu_pre_mode = NormalRelu writes x > 0 ? x : 0 (NaN and -0 give +0): from Vec, from a float Acc into "
          "half (FIX), and with an atomic add") {
  const auto k = pl::jit({.name = "relu_store"}, [](pl::Tensor<float> x, pl::Tensor<float> plain, pl::Tensor<float> summed) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(t, x, {0, 0});
    pl::store(plain, t, {0, 0}, {.relu_pre_mode = pl::ReluPreMode::NormalRelu});
    pl::store(summed, t, {0, 0}, {.atomic = pl::AtomicType::AtomicAdd, .relu_pre_mode = pl::ReluPreMode::NormalRelu});
  });
  auto x = test_data<float>({8, 64}, 40, -4, 4, true);  // with specials (NaN, +-inf, -0)
  auto plain = Tensor<float>::full({8, 64}, 9.0f), summed = Tensor<float>::full({8, 64}, 1.0f);
  k[{.block_dim = 1}].run_sync(x, plain, summed);
  int64_t wrong = 0;
  for (int64_t i = 0; i < 8 * 64; ++i) {
    const float want = x[i] > 0 ? x[i] : 0.0f;
    wrong += std::bit_cast<uint32_t>(plain[i]) != std::bit_cast<uint32_t>(want);
    wrong += summed[i] != 1.0f + want;
  }
  CHECK(wrong == 0);

  // matmul C = A x B (f16 in, f32 Acc), stored as half through FIX with the relu.
  const auto mm = pl::jit({.name = "relu_store_acc"}, [](pl::Tensor<half> a, pl::Tensor<half> b, pl::Tensor<half> c) {
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    product(acc, a, b, 16, 32, 16);
    pl::store(c.slice(0, 16, 0, 16), acc, {.relu_pre_mode = pl::ReluPreMode::NormalRelu});
  });
  auto a = Tensor<half>::random({16, 32}, 41, -1.0, 1.0), b = Tensor<half>::random({32, 16}, 42, -1.0, 1.0);
  auto c = Tensor<half>::zeros({16, 16});
  mm[{.block_dim = 1}].run_sync(a, b, c);
  int64_t negatives = 0;
  wrong = 0;
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      float s = 0;
      for (int64_t kk = 0; kk < 32; ++kk) s += static_cast<float>(a[i * 32 + kk]) * static_cast<float>(b[kk * 16 + j]);
      negatives += s < 0;
      const float got = static_cast<float>(c[i * 16 + j]);
      wrong += s <= 0 ? got != 0.0f : std::fabs(got - s) > 1e-3f * (1 + std::fabs(s));
    }
  }
  CHECK(negatives > 0);
  CHECK(wrong == 0);
}

}  // namespace pto::correctness

namespace pto::correctness {

TEST_CASE("store with scale (PyPTO Pro's per-tensor quantisation on FIX): relu, then x * scale in float, then the conversion; "
          "a trace-time or runtime scale, from a float and an int32 Acc, plain and atomic") {
  // C = A x B (f16 in, f32 Acc), stored four ways through FIX.
  const auto k = pl::jit({.name = "scaled_store"}, [](pl::Tensor<half> a, pl::Tensor<half> b, pl::Tensor<float> f, pl::Tensor<int8_t> q,
                                                      pl::Tensor<half> h, pl::Tensor<float> sum, pl::Float alpha) {
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    product(acc, a, b, 16, 32, 16);
    pl::store(f, acc, {0, 0}, {.scale = 0.25});
    pl::store(q, acc, {0, 0}, {.relu_pre_mode = pl::ReluPreMode::NormalRelu, .scale = alpha});
    pl::store(h, acc, {0, 0}, {.scale = alpha, .phase = pl::STPhase::Final});
    pl::store(sum, acc, {0, 0}, {.atomic = pl::AtomicType::AtomicAdd, .scale = -2.0});
  });
  auto a = Tensor<half>::random({16, 32}, 60, -2.0, 2.0), b = Tensor<half>::random({32, 16}, 61, -2.0, 2.0);
  auto f = Tensor<float>::zeros({16, 16}), sum = Tensor<float>::full({16, 16}, 1.0f);
  auto q = Tensor<int8_t>::zeros({16, 16});
  auto h = Tensor<half>::zeros({16, 16});
  const float alpha = 3.7f;
  k[{.block_dim = 1}].run_sync(a, b, f, q, h, sum, alpha);
  int64_t wrong = 0, negatives = 0;
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < 32; ++kk) s += static_cast<double>(static_cast<float>(a[i * 32 + kk])) * static_cast<float>(b[kk * 16 + j]);
      const float x = f[i * 16 + j] * 4.0f;  // the accumulator as the chip holds it (f = x * 0.25, exact)
      wrong += std::fabs(x - s) > 1e-5 * (1 + std::fabs(s));
      const float r = (x > 0 ? x : 0.0f) * alpha;  // relu first, then the scale
      const float sat = std::min(127.0f, std::max(-128.0f, std::trunc(r)));  // pl::cast's float -> int rule
      negatives += x < 0;
      wrong += q[i * 16 + j] != static_cast<int8_t>(sat);
      wrong += std::bit_cast<uint16_t>(h[i * 16 + j]) != std::bit_cast<uint16_t>(half(x * alpha));
      wrong += sum[i * 16 + j] != 1.0f + x * -2.0f;
    }
  }
  CHECK(negatives > 0);
  CHECK(wrong == 0);

  // int8 matmul into an int32 Acc, dequantised to half on the way out (FIX) with a runtime scale.
  const auto mm = pl::jit({.name = "scaled_store_acc"}, [](pl::Tensor<int8_t> a, pl::Tensor<int8_t> b, pl::Tensor<half> c, pl::Float s) {
    auto acc = pl::make_tile<int32_t>(pl::Acc, {16, 32});
    product(acc, a, b, 16, 32, 32);
    pl::store(c.slice(0, 16, 0, 32), acc, {.scale = s});
  });
  auto ai = Tensor<int8_t>::random({16, 32}, 61, -100, 100), bi = Tensor<int8_t>::random({32, 32}, 62, -100, 100);
  auto c = Tensor<half>::zeros({16, 32});
  const float scale = 1.0f / 1024;
  mm[{.block_dim = 1}].run_sync(ai, bi, c, scale);
  wrong = 0;
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 32; ++j) {
      int32_t s = 0;
      for (int64_t kk = 0; kk < 32; ++kk) s += int32_t(ai[i * 32 + kk]) * int32_t(bi[kk * 32 + j]);
      wrong += std::bit_cast<uint16_t>(c[i * 32 + j]) != std::bit_cast<uint16_t>(half(static_cast<float>(s) * scale));
    }
  }
  CHECK(wrong == 0);
}

}  // namespace pto::correctness

namespace pto::correctness {

TEST_CASE_TEMPLATE("matmul with a bias tile (pto-isa TMATMUL_BIAS): acc = bias (every row) + A x B, float and int8", T, half, int8_t) {
  using Acc = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, float>;
  CAPTURE(type_name<T>());
  const auto k = pl::jit({.name = "matmul_bias_" + type_name<T>()}, [](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<Acc> bias, pl::Tensor<Acc> c) {
    auto am = pl::make_tile<T>(pl::Mat, {16, 32});
    auto bm = pl::make_tile<T>(pl::Mat, {32, 32});
    auto biasm = pl::make_tile<Acc>(pl::Mat, {1, 32});
    auto l = pl::make_tile<T>(pl::Left, {16, 32});
    auto r = pl::make_tile<T>(pl::Right, {32, 32});
    auto acc = pl::make_tile<Acc>(pl::Acc, {16, 32});
    pl::load(am, a, {0, 0});
    pl::load(bm, b, {0, 0});
    pl::load(biasm, bias, {0, 0});
    pl::move(l, am);
    pl::move(r, bm);
    pl::matmul(acc, l, r, biasm);
    pl::store(c, acc, {0, 0});
    pl::matmul_acc(acc, l, r);  // accumulates onto the biased result
    pl::store(c, acc, {16, 0});
  });
  auto a = test_data<T>({16, 32}, 70, -8, 8, false), b = test_data<T>({32, 32}, 71, -8, 8, false);
  auto bias = test_data<Acc>({1, 32}, 72, -100, 100, false);
  auto c = Tensor<Acc>::zeros({32, 32});
  const auto p = k[{.block_dim = 1}].run_sync(a, b, bias, c);
  CHECK(p.races.empty());
  int64_t wrong = 0;
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 32; ++j) {
      double s = 0, mag = 0;
      for (int64_t q = 0; q < 32; ++q) {
        const double t = static_cast<double>(widen(a[i * 32 + q])) * static_cast<double>(widen(b[q * 32 + j]));
        s += t;
        mag += std::fabs(t);
      }
      const double once = static_cast<double>(bias[j]) + s, twice = once + s;
      const double tol = std::is_same_v<Acc, float> ? 64 * 0x1p-24 * (2 * mag + std::fabs(static_cast<double>(bias[j]))) : 0.0;
      wrong += std::fabs(static_cast<double>(c[i * 32 + j]) - once) > tol;
      wrong += std::fabs(static_cast<double>(c[(16 + i) * 32 + j]) - twice) > 2 * tol;
    }
  }
  CHECK(wrong == 0);
}

}  // namespace pto::correctness

namespace pto::correctness {

TEST_CASE("PyPTO Pro's fused and composite ops (axpy, fused_mul_add[_relu], mul_add_dst, add/sub_relu[_cast], addc, mul_cast, "
          "expands) compute their documented formulas, out first") {
  const auto k = pl::jit({.name = "composite_ops"}, [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> c,
                                                        pl::Tensor<float> out, pl::Tensor<half> out_h) {
    auto ta = pl::make_tile<float>(pl::Vec, {8, 64});
    auto tb = pl::make_tile<float>(pl::Vec, {8, 64});
    auto tc = pl::make_tile<float>(pl::Vec, {8, 64});
    auto o = pl::make_tile<float>(pl::Vec, {8, 64});
    auto h = pl::make_tile<half>(pl::Vec, {8, 64});
    pl::load(ta, a, {0, 0});
    pl::load(tb, b, {0, 0});
    pl::load(tc, c, {0, 0});
    auto store = [&](int i) { pl::store(out, o, {8 * i, 0}); };
    o = tc;
    pl::axpy(o, ta, 2.0f);  // 2a + c
    store(0);
    o = tc;
    pl::fused_mul_add(o, ta, tb);  // a * c + b
    store(1);
    o = tc;
    pl::fused_mul_add_relu(o, ta, tb);  // relu(c * a + b)
    store(2);
    o = tc;
    pl::mul_add_dst(o, ta, tb);  // a * b + c
    store(3);
    pl::add_relu(o, ta, tb);
    store(4);
    pl::sub_relu(o, ta, tb);
    store(5);
    pl::addc(o, ta, tb, tc);
    store(6);
    pl::expands(o, -1.5f);
    store(7);
    pl::add_relu_cast(h, ta, tb);
    pl::store(out_h, h, {0, 0});
    pl::sub_relu_cast(h, ta, tb);
    pl::store(out_h, h, {8, 0});
    pl::mul_cast(h, ta, tb);
    pl::store(out_h, h, {16, 0});
  });
  auto a = test_data<float>({8, 64}, 80, -4, 4, false), b = test_data<float>({8, 64}, 81, -4, 4, false);
  auto c = test_data<float>({8, 64}, 82, -4, 4, false);
  auto out = Tensor<float>::zeros({64, 64});
  auto out_h = Tensor<half>::zeros({24, 64});
  k[{.block_dim = 1}].run_sync(a, b, c, out, out_h);
  int64_t wrong = 0;
  auto relu = [](float x) { return x > 0 ? x : 0.0f; };
  for (int64_t i = 0; i < 8 * 64; ++i) {
    const float want[8] = {a[i] * 2.0f + c[i], a[i] * c[i] + b[i], relu(c[i] * a[i] + b[i]), a[i] * b[i] + c[i],
                           relu(a[i] + b[i]), relu(a[i] - b[i]), a[i] + b[i] + c[i], -1.5f};
    for (int e = 0; e < 8; ++e) wrong += out[e * 512 + i] != want[e];
    const half want_h[3] = {half(relu(a[i] + b[i])), half(relu(a[i] - b[i])), half(a[i] * b[i])};
    for (int e = 0; e < 3; ++e) wrong += std::bit_cast<uint16_t>(out_h[e * 512 + i]) != std::bit_cast<uint16_t>(want_h[e]);
  }
  CHECK(wrong == 0);
}

namespace {
/// The plain reference of PyPTO Pro's partial ops: op(a, b) where both are valid, else the full one.
template <class T>
T part_ref(int op, T a, T b) {
  const auto x = widen(a), y = widen(b);
  if constexpr (is_float_v<T>) {
    switch (op) {
      case 0: return narrow<T>(x + y);
      case 1: return narrow<T>(ref_max(x, y));
      case 2: return narrow<T>(ref_min(x, y));
      default: return narrow<T>(x * y);
    }
  } else {
    switch (op) {
      case 0: return narrow<T>(wrap_add(x, y));
      case 1: return narrow<T>(std::max(x, y));
      case 2: return narrow<T>(std::min(x, y));
      default: return narrow<T>(static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y)));
    }
  }
}
}  // namespace

TEST_CASE_TEMPLATE("partadd/partmax/partmin/partmul (PyPTO Pro's partial ops): op(src0, src1) inside the smaller valid "
                   "extent, the full operand elsewhere; either operand may be the partial one, decided at run time",
                   T, float, half, int32_t) {
  constexpr int64_t R = 16, C = 64;
  // Block b handles rows [R b, R b + R) of x and y with op b % 4; src1 (or src0, when `first`)
  // holds only its first `rows` x `cols` (set_validshape before a load by offsets, as PyPTO Pro's
  // partadd example does).
  const auto k = pl::jit({.name = "part_ops"}, [](pl::Tensor<T> x, pl::Tensor<T> y, pl::Int rows, pl::Int cols, pl::Int first,
                                                   pl::Tensor<T> z) {
    auto g0 = pl::make_tile_group<T>(pl::Vec, {R, C}, {0});
    auto g1 = pl::make_tile_group<T>(pl::Vec, {R, C}, {1});
    auto go = pl::make_tile_group<T>(pl::Vec, {R, C}, {2});
    const auto b = pl::get_block_idx();
    auto a = g0.current(), c = g1.current(), o = go.current();
    pl::if_(first == 1, [&] { pl::set_validshape(a, rows, cols); }, [&] { pl::set_validshape(a, R, C); });
    pl::if_(first == 1, [&] { pl::set_validshape(c, R, C); }, [&] { pl::set_validshape(c, rows, cols); });
    pl::load(a, x, {b * R, 0});
    pl::load(c, y, {b * R, 0});
    pl::if_(b % 4 == 0, [&] { pl::partadd(o, a, c); });
    pl::if_(b % 4 == 1, [&] { pl::partmax(o, a, c); });
    pl::if_(b % 4 == 2, [&] { pl::partmin(o, a, c); });
    pl::if_(b % 4 == 3, [&] { pl::partmul(o, a, c); });
    pl::store(z, o, {b * R, 0});
  });
  constexpr int64_t blocks = 8;
  auto x = test_data<T>({blocks * R, C}, 90, -8, 8, false), y = test_data<T>({blocks * R, C}, 91, -8, 8, false);
  using Case = std::tuple<int64_t, int64_t, int64_t>;
  for (const auto& [rows, cols, first] : {Case{R, C, 0}, Case{5, 64, 0}, Case{16, 24, 0}, Case{3, 17, 0}, Case{1, 1, 0},
                                          Case{7, 40, 1}, Case{R, 1, 1}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    CAPTURE(first);
    auto z = Tensor<T>::zeros({blocks * R, C});
    k[{.block_dim = blocks}].run_sync(x, y, rows, cols, first, z);
    int64_t wrong = 0;
    for (int64_t i = 0; i < blocks * R; ++i) {
      for (int64_t j = 0; j < C; ++j) {
        const int64_t e = i * C + j;
        const bool inside = i % R < rows && j < cols;
        const T full = first ? y[e] : x[e];
        const T want = inside ? part_ref<T>(static_cast<int>(i / R % 4), x[e], y[e]) : full;
        wrong += std::memcmp(&z[e], &want, sizeof(T)) != 0;
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("expands with a runtime scalar: a pl::Float into float tiles, a pl::Int into int and float tiles") {
  const auto k = pl::jit({.name = "expands_runtime"}, [](pl::Float f, pl::Int n, pl::Tensor<float> a, pl::Tensor<int32_t> b,
                                                          pl::Tensor<half> c) {
    auto ta = pl::make_tile<float>(pl::Vec, {8, 64});
    auto tb = pl::make_tile<int32_t>(pl::Vec, {8, 64});
    auto tc = pl::make_tile<half>(pl::Vec, {8, 64});
    pl::expands(ta, f);
    pl::store(a, ta, {0, 0});
    pl::expands(ta, n * 3);
    pl::store(a, ta, {8, 0});
    pl::expands(tb, n - 1);
    pl::store(b, tb, {0, 0});
    pl::expands(tc, f);
    pl::store(c, tc, {0, 0});
  });
  for (const auto& [f, n] : {std::pair{-2.75f, int64_t{7}}, std::pair{1e-3f, int64_t{-40000}}}) {
    auto a = Tensor<float>::zeros({16, 64});
    auto b = Tensor<int32_t>::zeros({8, 64});
    auto c = Tensor<half>::zeros({8, 64});
    k[{.block_dim = 1}].run_sync(f, n, a, b, c);
    int64_t wrong = 0;
    for (int64_t i = 0; i < 8 * 64; ++i) {
      wrong += a[i] != f;
      wrong += a[512 + i] != static_cast<float>(n * 3);
      wrong += b[i] != static_cast<int32_t>(n - 1);
      wrong += std::bit_cast<uint16_t>(c[i]) != std::bit_cast<uint16_t>(half(f));
    }
    CHECK(wrong == 0);
  }
}

}  // namespace pto::correctness
