// The cube's multiply (pto_rt_matmul) on every host ISA it has: AVX-512, AVX2 and portable give
// bit-identical results (float: one fused multiply-add chain per element in k order, which the
// reference below computes with std::fma; int8: wrapping int32 sums), on shapes that leave row,
// panel and column tails for every kernel, with and without accumulation, for f32, f16, bf16 and
// int8 inputs, with dense rows and with padded pitches whose padding would spoil any sum it
// entered. An ISA this host lacks is skipped (it falls back to the best it has).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <random>
#include <vector>

#include <pto/backend/KernelABI.hpp>
#include <pto/backend/MatmulIsa.hpp>
#include <pto/pto.hpp>

namespace {

struct Shape {
  int64_t m, n, k;
};
// Row tails of 1 to 5 rows (both SIMD kernels take 6 a call), one to four panels a call (AVX-512),
// partial last panels, odd k (int8 pairs).
constexpr Shape kShapes[] = {{1, 1, 1}, {7, 5, 3}, {13, 33, 17}, {16, 48, 64}, {37, 71, 29}, {128, 96, 40}, {9, 16, 1}, {23, 130, 24}};

template <class T>
std::vector<T> random_values(size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> small(-9, 9);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  std::vector<T> out(count);
  for (T& v : out) {
    if constexpr (std::is_same_v<T, int8_t>) v = static_cast<int8_t>(small(rng) * 14);
    else v = T(real(rng));
  }
  return out;
}

/// c (+)= a b as the cube's contract states it: per element, fused multiply-adds in k order onto 0
/// (float), then the old c added; int8 in wrapping int32.
template <class In, class Acc>
std::vector<Acc> reference(const std::vector<In>& a, const std::vector<In>& b, std::vector<Acc> c, Shape s, bool accumulate) {
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      Acc sum = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        if constexpr (std::is_same_v<Acc, int32_t>) {
          sum = static_cast<int32_t>(static_cast<uint32_t>(sum) + static_cast<uint32_t>(int32_t{a[i * s.k + p]} * int32_t{b[p * s.n + j]}));
        } else {
          sum = std::fma(static_cast<float>(a[i * s.k + p]), static_cast<float>(b[p * s.n + j]), sum);
        }
      }
      Acc& out = c[i * s.n + j];
      if constexpr (std::is_same_v<Acc, int32_t>) out = static_cast<int32_t>(static_cast<uint32_t>(accumulate ? out : 0) + static_cast<uint32_t>(sum));
      else out = accumulate ? out + sum : sum;
    }
  }
  return c;
}

/// A value that spoils any sum it enters: NaN for floats, the largest int8 / int32.
template <class T>
T poison() {
  if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::max();
  else return T(std::numeric_limits<float>::quiet_NaN());
}

/// A rows x cols matrix with `pad` elements of `fill` after each row (pitch cols + pad).
template <class T>
std::vector<T> padded(const std::vector<T>& dense, int64_t rows, int64_t cols, int64_t pad, T fill) {
  std::vector<T> out(static_cast<size_t>(rows * (cols + pad)), fill);
  for (int64_t r = 0; r < rows; ++r) std::copy_n(dense.begin() + r * cols, cols, out.begin() + r * (cols + pad));
  return out;
}

/// Whether this host can run `isa` (what CubeMatmul.cpp checks, asked independently).
bool host_has(pto::MatmulIsa isa) {
  switch (isa) {
    case pto::MatmulIsa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    case pto::MatmulIsa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default: return true;
  }
}

template <class In, class Acc>
void check_every_isa(pto::DType dtype) {
  std::mt19937 rng(1234);
  for (const Shape s : kShapes) {
    const auto a = random_values<In>(s.m * s.k, rng);
    const auto b = random_values<In>(s.k * s.n, rng);
    const auto start = random_values<std::conditional_t<std::is_same_v<Acc, int32_t>, int8_t, float>>(s.m * s.n, rng);
    for (const bool accumulate : {false, true}) {
      const std::vector<Acc> c0(start.begin(), start.end());
      const auto want = reference<In, Acc>(a, b, c0, s, accumulate);
      for (const pto::MatmulIsa isa : {pto::MatmulIsa::portable, pto::MatmulIsa::avx2, pto::MatmulIsa::avx512}) {
        pto::force_matmul_isa(isa);
        REQUIRE((pto::matmul_isa() == isa) == host_has(isa));  // forced when the host has it, else the host's best
        if (!host_has(isa)) continue;
        CAPTURE(pto::matmul_isa_name(isa));
        CAPTURE(s.m);
        CAPTURE(s.n);
        CAPTURE(s.k);
        CAPTURE(accumulate);
        // Dense, and rows `pad` apart of poison (A and B are read in place; 16-bit B, and float B
        // rows further apart than its width in whole panels, are packed by the first block of
        // rows when more than one block of rows reads them).
        for (const int64_t pad : {0, 3, 17}) {
          CAPTURE(pad);
          const auto a_in = padded(a, s.m, s.k, pad, poison<In>());
          const auto b_in = padded(b, s.k, s.n, pad, poison<In>());
          auto c = padded(c0, s.m, s.n, pad, poison<Acc>());
          pto::pto_rt_matmul(c.data(), a_in.data(), b_in.data(), s.m, s.n, s.k, s.k + pad, s.n + pad, s.n + pad, static_cast<int32_t>(dtype),
                             accumulate);
          const auto expect = padded(want, s.m, s.n, pad, poison<Acc>());
          CHECK(std::memcmp(c.data(), expect.data(), c.size() * sizeof(Acc)) == 0);  // bit-identical, the padding untouched
        }
      }
      pto::force_matmul_isa(pto::MatmulIsa::best);
    }
  }
}

}  // namespace

TEST_CASE("the cube's multiply is bit-identical on every host ISA, f32") { check_every_isa<float, float>(pto::DType::f32); }
TEST_CASE("the cube's multiply is bit-identical on every host ISA, f16") { check_every_isa<pto::half, float>(pto::DType::f16); }
TEST_CASE("the cube's multiply is bit-identical on every host ISA, bf16") { check_every_isa<pto::bfloat16, float>(pto::DType::bf16); }
TEST_CASE("the cube's multiply is bit-identical on every host ISA, int8") { check_every_isa<int8_t, int32_t>(pto::DType::i8); }

TEST_CASE("forcing a matmul ISA: each one the host has runs under its name; best undoes it") {
  const std::pair<pto::MatmulIsa, const char*> isas[] = {
      {pto::MatmulIsa::portable, "portable"}, {pto::MatmulIsa::avx2, "avx2"}, {pto::MatmulIsa::avx512, "avx512"}};
  pto::MatmulIsa best = pto::MatmulIsa::portable;
  for (const auto& [isa, name] : isas) {
    if (!host_has(isa)) continue;
    best = isa;
    pto::force_matmul_isa(isa);
    CHECK(pto::matmul_isa() == isa);
    CHECK(std::string(pto::matmul_isa_name(pto::matmul_isa())) == name);
  }
  pto::force_matmul_isa(pto::MatmulIsa::best);
  CHECK(pto::matmul_isa() == best);  // the widest the host has
}
