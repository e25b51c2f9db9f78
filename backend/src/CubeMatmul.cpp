// The cube's multiply for the emulator (pto_rt_matmul, KernelABI.hpp): a register-blocked
// 6x16 float micro-kernel over a packed copy of the Right tile, with an AVX2/FMA build chosen at
// run time and a portable one otherwise. Half and bfloat16 inputs are widened to float (their
// products are exact in float, as in the cube): A first, B while it is packed. int8 multiplies
// into int32 through vpmaddwd on k-pairs (AVX2), or a plain loop.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "pto/backend/KernelABI.hpp"
#include "pto/support/DType.hpp"

namespace pto {
namespace {

constexpr int kMR = 6;   // rows of C per micro-kernel call
constexpr int kNR = 16;  // columns of C per micro-kernel call (two 8-wide vectors)

struct Scratch {
  std::vector<float> a, b;  // A widened to float; B packed into panels
};
thread_local Scratch scratch;

/// Writes a rows x cols block of `acc` (pitch kNR) into c, adding c's values when `accumulate`.
void write_block(const float* acc, int rows, int64_t cols, float* c, int64_t ldc, bool accumulate) {
  for (int r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) c[r * ldc + j] = accumulate ? c[r * ldc + j] + acc[r * kNR + j] : acc[r * kNR + j];
  }
}

template <int MR>
__attribute__((target("avx2,fma"))) void micro_avx2(int64_t k, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc,
                                                    int64_t cols, bool accumulate) {
  __m256 lo[MR], hi[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const __m256 b0 = _mm256_loadu_ps(bp + p * kNR), b1 = _mm256_loadu_ps(bp + p * kNR + 8);
  #pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + p);
      lo[r] = _mm256_fmadd_ps(av, b0, lo[r]);
      hi[r] = _mm256_fmadd_ps(av, b1, hi[r]);
    }
  }
  if (cols == kNR) {
  #pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
      float* row = c + r * ldc;
      if (accumulate) {
        lo[r] = _mm256_add_ps(lo[r], _mm256_loadu_ps(row));
        hi[r] = _mm256_add_ps(hi[r], _mm256_loadu_ps(row + 8));
      }
      _mm256_storeu_ps(row, lo[r]);
      _mm256_storeu_ps(row + 8, hi[r]);
    }
    return;
  }
  alignas(32) float tmp[MR * kNR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    _mm256_store_ps(tmp + r * kNR, lo[r]);
    _mm256_store_ps(tmp + r * kNR + 8, hi[r]);
  }
  write_block(tmp, MR, cols, c, ldc, accumulate);
}

template <int MR>
void micro_portable(int64_t k, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc, int64_t cols, bool accumulate) {
  float acc[MR * kNR] = {};
  for (int64_t p = 0; p < k; ++p) {
    for (int r = 0; r < MR; ++r) {
      const float av = a[r * lda + p];
      for (int j = 0; j < kNR; ++j) acc[r * kNR + j] += av * bp[p * kNR + j];
    }
  }
  write_block(acc, MR, cols, c, ldc, accumulate);
}

using Micro = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, int64_t, bool);

template <template <int> class Pick>
auto select_micro(int rows) -> std::remove_const_t<decltype(Pick<1>::fn)> {
  switch (rows) {
    case 1: return Pick<1>::fn;
    case 2: return Pick<2>::fn;
    case 3: return Pick<3>::fn;
    case 4: return Pick<4>::fn;
    case 5: return Pick<5>::fn;
    default: return Pick<6>::fn;
  }
}
template <int MR> struct PickAvx2 { static constexpr Micro fn = &micro_avx2<MR>; };
template <int MR> struct PickPortable { static constexpr Micro fn = &micro_portable<MR>; };

/// Whether the host converts 16-bit floats with AVX2 + F16C (widen8_avx2).
bool has_f16c() {
  static const bool fast = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return fast;
}

/// Walks C in micro-kernel blocks: `block(i, rows, j)` for rows [i, i + rows) and panel j.
template <class Block>
void for_each_block(int64_t m, int64_t n, const Block& block) {
  const int64_t panels = (n + kNR - 1) / kNR;
  for (int64_t i = 0; i < m; i += kMR) {
    const int rows = static_cast<int>(std::min<int64_t>(kMR, m - i));
    for (int64_t j = 0; j < panels; ++j) block(i, rows, j);
  }
}

/// Widens 8 16-bit floats at `src` to float at `dst`: half with F16C, bfloat16 by a 16-bit shift.
template <class Half>
__attribute__((target("avx2,f16c"))) void widen8_avx2(const uint16_t* src, float* dst) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  if constexpr (std::is_same_v<Half, half>) {
    _mm256_storeu_ps(dst, _mm256_cvtph_ps(h));
  } else {
    _mm256_storeu_ps(dst, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
  }
}

/// Widens a rows x cols block of 16-bit floats (pitch ld) into out (pitch cols).
template <class Half>
const float* widen(const void* src, int64_t rows, int64_t cols, int64_t ld, std::vector<float>& out) {
  const bool fast = has_f16c();
  out.resize(static_cast<size_t>(rows * cols));
  const auto* s = static_cast<const Half*>(src);
  for (int64_t r = 0; r < rows; ++r) {
    const Half* in = s + r * ld;
    float* o = out.data() + r * cols;
    int64_t j = 0;
    if (fast) {
      for (; j + 8 <= cols; j += 8) widen8_avx2<Half>(reinterpret_cast<const uint16_t*>(in + j), o + j);
    }
    for (; j < cols; ++j) o[j] = static_cast<float>(in[j]);
  }
  return out.data();
}

/// Packs b (k x n of T, pitch ldb) into scratch.b as panels of kNR float columns, zero padded:
/// panel j holds k rows of kNR. Half and bfloat16 are widened on the way (exact).
template <class T>
void pack_b(const T* b, int64_t k, int64_t n, int64_t ldb) {
  const bool fast = has_f16c();
  const int64_t panels = (n + kNR - 1) / kNR;
  scratch.b.resize(static_cast<size_t>(panels * k * kNR));
  for (int64_t j = 0; j < panels; ++j) {
    float* dst = scratch.b.data() + j * k * kNR;
    const int64_t cols = std::min<int64_t>(kNR, n - j * kNR);
    for (int64_t p = 0; p < k; ++p) {
      const T* src = b + p * ldb + j * kNR;
      float* row = dst + p * kNR;
      int64_t c = 0;
      if constexpr (std::is_same_v<T, float>) {
        std::memcpy(row, src, static_cast<size_t>(cols) * sizeof(float));
        c = cols;
      } else {
        if (fast) {
          for (; c + 8 <= cols; c += 8) widen8_avx2<T>(reinterpret_cast<const uint16_t*>(src + c), row + c);
        }
        for (; c < cols; ++c) row[c] = static_cast<float>(src[c]);
      }
      std::fill(row + c, row + kNR, 0.0f);
    }
  }
}

/// c (+)= a b: `a` float (m x k, pitch lda), `b` of T (k x n, pitch ldb), packed first.
template <class T>
void matmul_float(float* c, const float* a, const T* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                  bool accumulate) {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  pack_b(b, k, n, ldb);
  for_each_block(m, n, [&](int64_t i, int rows, int64_t j) {
    const Micro micro = avx2 ? select_micro<PickAvx2>(rows) : select_micro<PickPortable>(rows);
    micro(k, a + i * lda, lda, scratch.b.data() + j * k * kNR, c + i * ldc + j * kNR, ldc, std::min<int64_t>(kNR, n - j * kNR), accumulate);
  });
}

/// int8: any order of the int32 sum gives the same (wrapping) result, so the fast path is free to
/// pair up k. A's rows are packed as int32 words holding two k-neighbours as int16, B as panels of
/// kNR columns holding, per pair of k rows, the two values of each column side by side as int16:
/// one vpmaddwd then multiplies and adds a pair for 8 columns (int8 products fit int16 sums).
struct PackedI8 {
  std::vector<int32_t> a;  // [m][pairs]
  std::vector<int16_t> b;  // [panels][pairs][kNR][2]
};
thread_local PackedI8 packed_i8;

void pack_i8(const int8_t* a, const int8_t* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb) {
  const int64_t pairs = (k + 1) / 2, panels = (n + kNR - 1) / kNR;
  packed_i8.a.resize(static_cast<size_t>(m * pairs));
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t q = 0; q < pairs; ++q) {
      const int64_t p = 2 * q;
      const auto lo = static_cast<uint16_t>(static_cast<int16_t>(a[r * lda + p]));
      const auto hi = static_cast<uint16_t>(p + 1 < k ? static_cast<int16_t>(a[r * lda + p + 1]) : int16_t{0});
      packed_i8.a[static_cast<size_t>(r * pairs + q)] = static_cast<int32_t>(lo | (static_cast<uint32_t>(hi) << 16));
    }
  }
  packed_i8.b.assign(static_cast<size_t>(panels * pairs * kNR * 2), 0);
  for (int64_t j = 0; j < panels; ++j) {
    const int64_t cols = std::min<int64_t>(kNR, n - j * kNR);
    for (int64_t q = 0; q < pairs; ++q) {
      int16_t* dst = packed_i8.b.data() + (j * pairs + q) * kNR * 2;
      for (int64_t c = 0; c < cols; ++c) {
        dst[2 * c] = b[2 * q * ldb + j * kNR + c];
        if (2 * q + 1 < k) dst[2 * c + 1] = b[(2 * q + 1) * ldb + j * kNR + c];
      }
    }
  }
}

template <int MR>
__attribute__((target("avx2"))) void micro_i8_avx2(int64_t pairs, const int32_t* ap, const int16_t* bp, int32_t* c, int64_t ldc,
                                                   int64_t cols, bool accumulate) {
  __m256i lo[MR], hi[MR];  // columns 0-7 and 8-15 of each row
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) lo[r] = hi[r] = _mm256_setzero_si256();
  for (int64_t q = 0; q < pairs; ++q) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp + q * kNR * 2));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp + q * kNR * 2 + 16));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i av = _mm256_set1_epi32(ap[r * pairs + q]);
      lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(av, b0));
      hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(av, b1));
    }
  }
  alignas(32) int32_t tmp[kNR];
  for (int r = 0; r < MR; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), lo[r]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp + 8), hi[r]);
    int32_t* row = c + r * ldc;
    for (int64_t j = 0; j < cols; ++j) {  // int32 sums wrap, as the cube's do
      row[j] = static_cast<int32_t>(static_cast<uint32_t>(accumulate ? row[j] : 0) + static_cast<uint32_t>(tmp[j]));
    }
  }
}

using MicroI8 = void (*)(int64_t, const int32_t*, const int16_t*, int32_t*, int64_t, int64_t, bool);
template <int MR> struct PickI8 { static constexpr MicroI8 fn = &micro_i8_avx2<MR>; };

void matmul_i8_portable(int32_t* c, const int8_t* a, const int8_t* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                        int64_t ldc, bool accumulate) {
  for (int64_t i = 0; i < m; ++i) {
    int32_t* row = c + i * ldc;
    if (!accumulate) std::fill(row, row + n, 0);
    for (int64_t p = 0; p < k; ++p) {
      const auto av = static_cast<uint32_t>(static_cast<int32_t>(a[i * lda + p]));
      const int8_t* brow = b + p * ldb;
      for (int64_t j = 0; j < n; ++j) {
        row[j] = static_cast<int32_t>(static_cast<uint32_t>(row[j]) + av * static_cast<uint32_t>(static_cast<int32_t>(brow[j])));
      }
    }
  }
}

void matmul_i8(int32_t* c, const int8_t* a, const int8_t* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
               bool accumulate) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (!avx2) return matmul_i8_portable(c, a, b, m, n, k, lda, ldb, ldc, accumulate);
  pack_i8(a, b, m, n, k, lda, ldb);
  const int64_t pairs = (k + 1) / 2;
  for_each_block(m, n, [&](int64_t i, int rows, int64_t j) {
    select_micro<PickI8>(rows)(pairs, packed_i8.a.data() + i * pairs, packed_i8.b.data() + j * pairs * kNR * 2, c + i * ldc + j * kNR,
                               ldc, std::min<int64_t>(kNR, n - j * kNR), accumulate);
  });
}

}  // namespace

extern "C" void pto_rt_matmul(void* c, const void* a, const void* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                              int64_t ldc, int32_t in_dtype, int32_t accumulate) {
  if (m <= 0 || n <= 0) return;
  auto* cf = static_cast<float*>(c);
  switch (static_cast<DType>(in_dtype)) {
    case DType::f32:
      return matmul_float(cf, static_cast<const float*>(a), static_cast<const float*>(b), m, n, k, lda, ldb, ldc, accumulate != 0);
    case DType::f16:  // A widened, B widened into its packed panels
      return matmul_float(cf, widen<half>(a, m, k, lda, scratch.a), static_cast<const half*>(b), m, n, k, k, ldb, ldc, accumulate != 0);
    case DType::bf16:
      return matmul_float(cf, widen<bfloat16>(a, m, k, lda, scratch.a), static_cast<const bfloat16*>(b), m, n, k, k, ldb, ldc,
                          accumulate != 0);
    case DType::i8:
      return matmul_i8(static_cast<int32_t*>(c), static_cast<const int8_t*>(a), static_cast<const int8_t*>(b), m, n, k, lda, ldb, ldc,
                       accumulate != 0);
    default: return;
  }
}

extern "C" void pto_rt_matmul_bias_start(void* c, const void* bias, int64_t m, int64_t n, int64_t ldc) {
  for (int64_t r = 0; r < m; ++r) std::memcpy(static_cast<uint8_t*>(c) + r * ldc * 4, bias, static_cast<size_t>(n) * 4);
}

}  // namespace pto
