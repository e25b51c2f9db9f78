// The native baselines' row kernels (NativeKernels.hpp). Built with -O3 -ffast-math so that GCC
// vectorises the loops and calls libmvec's expf variants; target_clones makes one copy per ISA
// level and picks the best the host has when the program starts.
#include "NativeKernels.hpp"

#include <bit>
#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PTO_NATIVE_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PTO_NATIVE_CLONES
#endif

namespace pto::samples::native {

PTO_NATIVE_CLONES void exp_row(const float* x, float* y, int64_t n) {
  for (int64_t c = 0; c < n; ++c) y[c] = expf(x[c]);
}

PTO_NATIVE_CLONES void pow_row(const float* x, const float* y, float* z, int64_t n) {
  for (int64_t c = 0; c < n; ++c) z[c] = powf(x[c], y[c]);
}

PTO_NATIVE_CLONES void softmax_row(const float* x, float* y, int64_t n, float scale) {
  if (n <= 0) return;
  float m = x[0];
  for (int64_t c = 1; c < n; ++c) m = x[c] > m ? x[c] : m;
  const float shift = m * scale;
  float s = 0;
  for (int64_t c = 0; c < n; ++c) {
    const float e = expf(x[c] * scale - shift);
    y[c] = e;
    s += e;
  }
  const float inv = 1.0f / s;
  for (int64_t c = 0; c < n; ++c) y[c] *= inv;
}

PTO_NATIVE_CLONES void layernorm_row(const float* x, const float* gamma, const float* beta, float* y, int64_t n, float eps) {
  float sum = 0;
  for (int64_t c = 0; c < n; ++c) sum += x[c];
  const float mean = sum / static_cast<float>(n);
  float sq = 0;
  for (int64_t c = 0; c < n; ++c) sq += (x[c] - mean) * (x[c] - mean);
  const float rstd = 1.0f / sqrtf(sq / static_cast<float>(n) + eps);
  for (int64_t c = 0; c < n; ++c) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}

PTO_NATIVE_CLONES void add_row(const float* x, const float* y, float* z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
}

PTO_NATIVE_CLONES void affine_row(const float* x, float* y, int64_t n, float a, float b) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * a + b;
}

PTO_NATIVE_CLONES void bias_relu_row(float* y, const float* bias, int64_t n) {
  for (int64_t c = 0; c < n; ++c) {
    const float v = y[c] + bias[c];
    y[c] = v > 0.0f ? v : 0.0f;
  }
}

// Half: F16C, 8 elements an instruction, where the host has it. GCC 12 vectorises no _Float16
// conversion (its clones convert one element an instruction), which made the conversions the
// slowest part of the half baselines: softmax 4096x1024 f16 took 2.55 ms natively against 1.43 ms
// for f32, with half the bytes to read and write.
namespace {

void f16_to_f32_scalar(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(std::bit_cast<_Float16>(src[i]));
}

void f32_to_f16_scalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = std::bit_cast<uint16_t>(static_cast<_Float16>(src[i]));
}

#if defined(__x86_64__) && defined(__GNUC__)
constexpr int kNearestEven = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

__attribute__((target("avx,f16c"))) void f16_to_f32_f16c(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
}

__attribute__((target("avx,f16c"))) void f32_to_f16_f16c(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), kNearestEven));
  for (; i < n; ++i) dst[i] = _cvtss_sh(src[i], kNearestEven);
}

bool has_f16c() {
  static const bool yes = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return yes;
}
#define PTO_NATIVE_F16C 1
#endif

}  // namespace

void f16_to_f32(const uint16_t* src, float* dst, int64_t n) {
#ifdef PTO_NATIVE_F16C
  if (has_f16c()) return f16_to_f32_f16c(src, dst, n);
#endif
  f16_to_f32_scalar(src, dst, n);
}

void f32_to_f16(const float* src, uint16_t* dst, int64_t n) {
#ifdef PTO_NATIVE_F16C
  if (has_f16c()) return f32_to_f16_f16c(src, dst, n);
#endif
  f32_to_f16_scalar(src, dst, n);
}

PTO_NATIVE_CLONES void bf16_to_f32(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = std::bit_cast<float>(static_cast<uint32_t>(src[i]) << 16);
}

PTO_NATIVE_CLONES void f32_to_bf16(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t b = std::bit_cast<uint32_t>(src[i]);
    const uint32_t rounded = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;             // nearest even
    const bool nan = (b & 0x7fffffffu) > 0x7f800000u;
    dst[i] = static_cast<uint16_t>(nan ? (b >> 16) | 0x40u : rounded);        // NaN stays quiet NaN
  }
}

}  // namespace pto::samples::native
