// The cube's multiply for the emulator (pto_rt_matmul, KernelABI.hpp): register-blocked float
// micro-kernels chosen at run time: AVX-512 (6 rows x 4 panels of 16 columns in zmm, float B read
// in place, or packed by the first block of rows when its rows lie a wide pitch apart), AVX2/FMA
// (6 rows x 1 panel in ymm pairs, B packed into panels), or portable. Every element is one chain
// of fused multiply-adds in k order (docs/semantics.md), so all three give bit-identical results
// (tests/unit/cube_matmul_isa_test.cpp). Half and bfloat16 inputs are widened to float (their
// products are exact in float, as in the cube): on AVX-512, A a block of rows at a time by the
// calls for the block before, and B by the first block of rows when more than one uses it (else
// row by row inside the micro-kernel); elsewhere A whole first, B while it is packed. int8
// multiplies into int32 through vpmaddwd on k-pairs (AVX-512BW or AVX2), or a plain loop.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "pto/backend/KernelABI.hpp"
#include "pto/backend/MatmulIsa.hpp"
#include "pto/support/DType.hpp"

namespace pto {
namespace {

constexpr int kMR = 6;   // rows of C per AVX2 micro-kernel call
constexpr int kNR = 16;  // columns of a packed panel: one AVX2 call (two ymm), one zmm
// The AVX-512 register block: 6 x 64 of C in 24 zmm accumulators, 4 B rows and 1 broadcast (29 of
// the 32 zmm). Measured against 8 x 32 (16 accumulators), 8 x 48, 12 x 32, 4 x 64, 5 x 64 and
// 7 x 64 on the float matmul sample's calls (m 128, n 128, k 64, A and B in GM 2048 apart), one
// host thread, 6 alternating rounds on a Zen 5 VM: 6 x 64 190-203 GFLOP/s, 4 x 64 181-201, 8 x 48
// 186-199, 8 x 32 164-188 (that core's FMA peak: 220); two host threads, 6 x 64 330-348 against
// 282-329 (f16, bf16 and int8 within noise). Fewer rows read fewer A streams (rows a GM pitch
// apart, one L1 set) and broadcast less per FMA; 12 x 32 (12 A pointers) was slowest.
constexpr int kMR512 = 6;      // rows of C per AVX-512 micro-kernel call
constexpr int kPanels512 = 4;  // panels of 16 columns per AVX-512 call

std::atomic<MatmulIsa> forced_isa{MatmulIsa::best};

/// The ISA the kernels run: the forced one (tests) if the host has it, else the best it has.
MatmulIsa active_isa() {
  static const MatmulIsa best = [] {
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
      return MatmulIsa::avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return MatmulIsa::avx2;
    return MatmulIsa::portable;
  }();
  const MatmulIsa forced = forced_isa.load(std::memory_order_relaxed);
  return forced == MatmulIsa::best || forced > best ? best : forced;
}

struct Scratch {
  std::vector<float> a;  // 16-bit A widened to float: whole (AVX2, portable), or two blocks of rows (AVX-512)
  std::vector<float> b;  // B packed into panels (AVX2 and portable paths)
  std::vector<float> b_rows;  // B as float rows, packed by the first block of rows (matmul_float)
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

/// The element operations of an AVX-512 micro-kernel (micro_avx512), one zmm of 16 lanes each.
struct FloatZmm {  // float A broadcast, float B row, fused multiply-add
  using A = float;
  using B = float;
  using C = float;
  using Vec = __m512;
  __attribute__((target("avx512f"))) static Vec zero() { return _mm512_setzero_ps(); }
  __attribute__((target("avx512f"))) static Vec load_b(const B* row, __mmask16 mask) { return _mm512_maskz_loadu_ps(mask, row); }
  __attribute__((target("avx512f"))) static Vec broadcast(A a) { return _mm512_set1_ps(a); }
  __attribute__((target("avx512f"))) static Vec madd(Vec acc, Vec a, Vec b) { return _mm512_fmadd_ps(a, b, acc); }
  __attribute__((target("avx512f"))) static Vec add_c(Vec v, const C* c, __mmask16 mask) { return _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, c)); }
  __attribute__((target("avx512f"))) static void store(C* c, __mmask16 mask, Vec v) { _mm512_mask_storeu_ps(c, mask, v); }
};
/// 16 16-bit floats at `src` (lanes past `mask` zero) widened exactly to float: half by
/// vcvtph2ps, bfloat16 by a 16-bit shift.
template <class Half>
__attribute__((target("avx512f,avx512bw,avx512vl"))) __m512 widen16(const uint16_t* src, __mmask16 mask) {
  // The all-ones maskz forms: GCC 12 warns that the plain forms' _mm512_undefined_* operand may be
  // used uninitialized.
  const __m256i h = _mm256_maskz_loadu_epi16(mask, src);
  if constexpr (std::is_same_v<Half, half>) {
    return _mm512_maskz_cvtph_ps(0xffff, h);
  } else {
    return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, h), 16));
  }
}
/// 16-bit float B read in place and widened exactly per row (widen16); A as FloatZmm (widened
/// by the call for the previous block of rows' first panels: micro_avx512's WidenA). Used for a
/// single block of rows, and by the first of several, which packs B for the others as float
/// (micro_avx512's COPY; see matmul_float).
template <class Half>
struct HalfBZmm : FloatZmm {
  using B = uint16_t;
  __attribute__((target("avx512f,avx512bw,avx512vl"))) static Vec load_b(const B* row, __mmask16 mask) { return widen16<Half>(row, mask); }
};
// vpdpwssd (AVX512-VNNI) in place of vpmaddwd + vpaddd: no faster on Zen 5 (a standalone 6 x 64
// loop of 64 k-pairs: 825-834 against 802-817 ns a call), so the kernel keeps the AVX512-BW pair.
struct Int8PairsZmm {  // an int32 word of two int16 k-neighbours of A, a packed k-pair row of B (32 int16), vpmaddwd
  using A = int32_t;
  using B = int16_t;
  using C = int32_t;
  using Vec = __m512i;
  __attribute__((target("avx512f"))) static Vec zero() { return _mm512_setzero_si512(); }
  __attribute__((target("avx512f"))) static Vec load_b(const B* row, __mmask16) { return _mm512_loadu_si512(row); }  // zero padded
  __attribute__((target("avx512f"))) static Vec broadcast(A a) { return _mm512_set1_epi32(a); }
  __attribute__((target("avx512f,avx512bw"))) static Vec madd(Vec acc, Vec a, Vec b) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b)); }
  __attribute__((target("avx512f"))) static Vec add_c(Vec v, const C* c, __mmask16 mask) {  // int32 sums wrap, as the cube's do
    return _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(mask, c));
  }
  __attribute__((target("avx512f"))) static void store(C* c, __mmask16 mask, Vec v) { _mm512_mask_storeu_epi32(c, mask, v); }
};

/// What an AVX-512 micro-kernel call writes besides C, and 16-bit A it widens (micro_avx512's
/// COPY and WidenA).
struct MicroSide {
  float* b_rows = nullptr;  // COPY: B's rows as float
  int64_t b_pitch = 0;
  const uint16_t* a16 = nullptr;  // WidenA: a16_rows rows of A as 16-bit floats, widened into a_rows
  int64_t a16_pitch = 0;
  int a16_rows = 0;
  float* a_rows = nullptr;
  int64_t a_pitch = 0;
};

/// Widens A's k steps [p0, p0 + 16) (those below k) of side.a16_rows rows from side.a16 into
/// side.a_rows (whole zmm stores: side.a_pitch is a multiple of 16).
template <class Half>
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void widen_a_steps(const MicroSide& side, int64_t p0, int64_t k) {
  const auto in_k = static_cast<__mmask16>(k - p0 >= kNR ? 0xffff : (1u << (k - p0)) - 1);
  for (int r = 0; r < side.a16_rows; ++r) {
    const uint16_t* row = side.a16 + r * side.a16_pitch + p0;
    _mm_prefetch(reinterpret_cast<const char*>(row + kMR512 * side.a16_pitch), _MM_HINT_T0);  // the block after (never faults)
    _mm512_storeu_ps(side.a_rows + r * side.a_pitch + p0, widen16<Half>(row, in_k));
  }
}

/// Widens all of A's k steps for side (widen_a_steps): the first block of rows, before any call.
template <class Half>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void widen_a_rows(const MicroSide& side, int64_t k) {
  for (int64_t p = 0; p < k; p += kNR) widen_a_steps<Half>(side, p, k);
}

/// AVX-512: rows x (PANELS x 16) of C, one zmm accumulator per row and panel, k steps of one A
/// element a row (row r's at `a[r * lda + p]`). B's row p of panel q is at
/// `b + p * row_stride + q * panel_stride`: packed panels, or float B in place (row_stride ldb,
/// panel_stride 16). `cols` counts the columns of the last panel; its B loads (float) and C
/// loads and stores are masked to them.
///
/// COPY (float or 16-bit float B): each B row loaded is also stored, as float, at
/// `side.b_rows + p * side.b_pitch + q * kNR` (whole zmm, zeros past `cols`): the first block of
/// rows packs B (a wide pitch apart in GM, its move into L0B forwarded; or 16-bit, widened as it
/// is loaded) for the later blocks while its FMAs wait on B's lines. It also asks
/// for the same row of the next PANELS panels (the next call's B), which overlaps those misses
/// with this call's FMAs; past the last panel the hint touches the row's next columns or the next
/// row (a prefetch never faults).
///
/// WidenA (half or bfloat16; void: none): the call also widens the next block of rows of 16-bit A
/// (MicroSide) into float rows for the calls that multiply them, 16 k steps every 16 k steps, so
/// the conversion and A's misses overlap the FMAs.
template <class Ops, int MR, int PANELS, bool COPY = false, class WidenA = void>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void micro_avx512(int64_t k, const typename Ops::A* a, int64_t lda, const typename Ops::B* b,
                                                              int64_t row_stride, int64_t panel_stride, typename Ops::C* c, int64_t ldc,
                                                              int64_t cols, bool accumulate, const MicroSide& side) {
  using Vec = typename Ops::Vec;
  float* const b_rows = side.b_rows;  // in registers: GCC reloaded them from `side` every k step
  const int64_t b_pitch = side.b_pitch;
  const auto last_mask = static_cast<__mmask16>(cols >= kNR ? 0xffff : (1u << cols) - 1);
  const auto mask = [&](int q) { return q + 1 < PANELS ? static_cast<__mmask16>(0xffff) : last_mask; };
  Vec acc[MR][PANELS];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int q = 0; q < PANELS; ++q) acc[r][q] = Ops::zero();
  }
  for (int64_t p = 0; p < k; ++p) {
    if constexpr (!std::is_void_v<WidenA>) {
      if ((p & (kNR - 1)) == 0) widen_a_steps<WidenA>(side, p, k);
    }
    Vec bv[PANELS];
#pragma GCC unroll 4
    for (int q = 0; q < PANELS; ++q) bv[q] = Ops::load_b(b + p * row_stride + q * panel_stride, mask(q));
    if constexpr (COPY) {
#pragma GCC unroll 4
      for (int q = 0; q < PANELS; ++q) _mm512_storeu_ps(b_rows + p * b_pitch + q * kNR, bv[q]);
#pragma GCC unroll 4
      for (int q = 0; q < PANELS; ++q) _mm_prefetch(reinterpret_cast<const char*>(b + p * row_stride + (PANELS + q) * panel_stride), _MM_HINT_T0);
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const Vec av = Ops::broadcast(a[r * lda + p]);
#pragma GCC unroll 4
      for (int q = 0; q < PANELS; ++q) acc[r][q] = Ops::madd(acc[r][q], av, bv[q]);
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < PANELS; ++q) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      typename Ops::C* out = c + r * ldc + q * kNR;
      Ops::store(out, mask(q), accumulate ? Ops::add_c(acc[r][q], out, mask(q)) : acc[r][q]);
    }
  }
}

template <class Ops>
using Micro512 = void (*)(int64_t, const typename Ops::A*, int64_t, const typename Ops::B*, int64_t, int64_t, typename Ops::C*, int64_t,
                          int64_t, bool, const MicroSide&);

template <int MR>
void micro_portable(int64_t k, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc, int64_t cols, bool accumulate) {
  float acc[MR * kNR] = {};
  for (int64_t p = 0; p < k; ++p) {
    for (int r = 0; r < MR; ++r) {
      const float av = a[r * lda + p];
      for (int j = 0; j < kNR; ++j) acc[r * kNR + j] = std::fma(av, bp[p * kNR + j], acc[r * kNR + j]);  // fused, as the SIMD paths
    }
  }
  write_block(acc, MR, cols, c, ldc, accumulate);
}

using Micro = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, int64_t, bool);

/// The micro-kernels by their row count: kByRows<Pick, N>[rows - 1] is Pick<rows>::fn, rows 1..N.
template <template <int> class Pick, std::size_t... Rows>
constexpr auto by_rows(std::index_sequence<Rows...>) {
  return std::array{Pick<static_cast<int>(Rows) + 1>::fn...};
}
template <template <int> class Pick, int N>
constexpr auto kByRows = by_rows<Pick>(std::make_index_sequence<N>{});

template <int MR> struct PickAvx2 { static constexpr Micro fn = &micro_avx2<MR>; };
template <int MR> struct PickPortable { static constexpr Micro fn = &micro_portable<MR>; };
template <class Ops, int PANELS, class WidenA>
struct Pick512 {
  template <int MR>
  struct Rows {
    static constexpr Micro512<Ops> fn = &micro_avx512<Ops, MR, PANELS, false, WidenA>;
  };
};
/// The AVX-512 kernels by their panel count, 1..kPanels512 (as kByRows by rows).
template <class Ops, class WidenA, std::size_t... Panels>
constexpr auto table_by_panels(std::index_sequence<Panels...>) {  // [panels - 1][rows - 1]
  return std::array{kByRows<Pick512<Ops, static_cast<int>(Panels) + 1, WidenA>::template Rows, kMR512>...};
}
template <class Ops, class WidenA, std::size_t... Panels>
constexpr auto packing_by_panels(std::index_sequence<Panels...>) {  // a whole block of rows
  return std::array<Micro512<Ops>, sizeof...(Panels)>{&micro_avx512<Ops, kMR512, static_cast<int>(Panels) + 1, true, WidenA>...};
}
/// micro512_table<Ops, WidenA>[panels - 1][rows - 1].
template <class Ops, class WidenA = void>
constexpr auto micro512_table = table_by_panels<Ops, WidenA>(std::make_index_sequence<kPanels512>{});
/// The packing micro-kernels for a whole block of rows (float or 16-bit B): micro512_packing<Ops, WidenA>[panels - 1].
template <class Ops, class WidenA = void>
constexpr auto micro512_packing = packing_by_panels<Ops, WidenA>(std::make_index_sequence<kPanels512>{});

/// Whether the host converts 16-bit floats with AVX2 + F16C (widen_row_avx2).
bool has_f16c() {
  static const bool fast = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return fast;
}

/// Walks C in micro-kernel blocks of up to MR rows and PANELS panels:
/// `block(i, rows, j, count)` for rows [i, i + rows) and panels [j, j + count).
template <int MR, int PANELS, class Block>
void for_each_block(int64_t m, int64_t n, const Block& block) {
  const int64_t panels = (n + kNR - 1) / kNR;
  for (int64_t i = 0; i < m; i += MR) {
    const int rows = static_cast<int>(std::min<int64_t>(MR, m - i));
    for (int64_t j = 0; j < panels; j += PANELS) block(i, rows, j, static_cast<int>(std::min<int64_t>(PANELS, panels - j)));
  }
}

/// Widens the first multiple of 8 of `n` 16-bit floats at `src` to float at `dst` (half with F16C,
/// bfloat16 by a 16-bit shift); returns how many it widened. One call a row: a call per 8
/// elements was 18% of the f16 matmul sample's time.
template <class Half>
__attribute__((target("avx2,f16c"))) int64_t widen_row_avx2(const uint16_t* src, float* dst, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j));
    if constexpr (std::is_same_v<Half, half>) {
      _mm256_storeu_ps(dst + j, _mm256_cvtph_ps(h));
    } else {
      _mm256_storeu_ps(dst + j, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
    }
  }
  return j;
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
    const auto* bits = reinterpret_cast<const uint16_t*>(in);
    int64_t j = fast ? widen_row_avx2<Half>(bits, o, cols) : 0;
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
        if (fast) c = widen_row_avx2<T>(reinterpret_cast<const uint16_t*>(src), row, cols);
        for (; c < cols; ++c) row[c] = static_cast<float>(src[c]);
      }
      std::fill(row + c, row + kNR, 0.0f);
    }
  }
}

/// The 16-bit float type micro_avx512 widens A from (WidenA): void for float A.
template <class TA>
using WidenType = std::conditional_t<std::is_same_v<TA, float>, void, TA>;

/// c (+)= a b: `a` of TA (m x k, pitch lda), `b` of TB (k x n, pitch ldb), TA and TB float or
/// both one 16-bit float type. AVX-512 reads float B in place (whole zmm loads; dropping the
/// packing took the f32 matmul sample at 1024^3 / 2048^3 from 326 / 304 to 360 / 345 GFLOP/s, one
/// run each). 16-bit B that one block of rows uses is widened in the loop; B that several use is
/// widened by the first block as it multiplies and packed for the others (below): against a pass
/// of its own before the first block, paired with f32 in one process (BM_DtypePairedMatmul),
/// f16 1024^3 went from 0.94-0.97 of f32's speed to 0.95-0.98, 2048^3 from 0.93-0.95 to
/// 0.98-1.02, bfloat16 1024^3 from 0.95 to 0.98. Float A is read in place; 16-bit A is widened a
/// block of rows at a time, by the call for the block before's first panels as it multiplies
/// (micro_avx512's WidenA), prefetching the block after. Against widening each block in a pass of
/// its own before its first call (prefetching the next block's lines first), paired with f32 in
/// one process, two rounds of each build: f16 1024^3 went from 0.976-0.993 of f32's speed to
/// 1.022-1.040, 2048^3 from 1.004-1.029 to 1.068-1.088, bfloat16 1024^3 from 0.961-0.992 to
/// 1.027-1.058. Widening a block's own rows in its first call, 16 k steps ahead, was slower (f16
/// 2048^3 0.82-0.87: A's misses stall the FMAs). 16-bit B, and float B whose pitch is more than
/// its width rounded to whole panels (B in GM, its move into L0B forwarded: LoadElision.cpp),
/// that several blocks of rows use is packed by the first block of rows as it multiplies
/// (micro_avx512's COPY), as float rows of that width; the later blocks read the packed rows.
/// That first block's calls are the slow ones: replaying the f32 matmul sample's 2048^3 calls on
/// one host thread, about 1,700 TSC cycles a call against 500 for a later block's, because B's
/// lines come from beyond L2 (all calls reading one B tile, kept hot: 700 cycles, and the sample at
/// 2048^3 7% faster, paired in one process). Prefetches have not recovered it: B's rows 24 or 48
/// rows ahead within that block (nothing outside the noise, `pto bench`, two runs a build); or the
/// next call's B (a per-accumulator stride predictor, which the interleaved cores' turns follow),
/// prefetched by the later blocks' calls in a burst before each or spread over its k steps, T0, T1
/// or NTA: the first block's calls ran 2x faster and the later ones 6-18% slower, their own misses
/// waiting behind the prefetches, so no net gain (in-process alternation, 100 rounds). The AVX2 and
/// portable paths widen A whole and read B packed into panels.
template <class TA, class TB>
void matmul_float(float* c, const TA* a, const TB* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                  bool accumulate) {
  const MatmulIsa isa = active_isa();
  const auto last_cols = [&](int64_t j) { return std::min<int64_t>(kNR, n - j * kNR); };
  if (isa == MatmulIsa::avx512) {
    using Ops = std::conditional_t<std::is_same_v<TB, float>, FloatZmm, HalfBZmm<TB>>;
    const auto* bp = reinterpret_cast<const typename Ops::B*>(b);
    constexpr bool kFloatA = std::is_same_v<TA, float>;
    // 16-bit A, widened to float rows in scratch.a, two blocks of rows: the first block before
    // the loop, each next one by the call for the block before's first panels as it multiplies
    // (micro_avx512's WidenA).
    // One MicroSide for every call, its fields set in place: copied whole per call (16-byte loads
    // of 8-byte stores, which the store buffer does not forward), matmul_float's own share of the
    // f16 sample's profile was 3.4%, set in place 1.3% (f32's: 1.0%).
    const int64_t a_pitch = kFloatA ? lda : (k + kNR - 1) / kNR * kNR;
    const auto a_buffer = [&](int64_t i) { return scratch.a.data() + (i / kMR512 % 2) * kMR512 * a_pitch; };
    MicroSide side;
    side.a16_pitch = lda, side.a_pitch = a_pitch;
    const auto widen_next = [&](int64_t i) {  // side: widening rows [i, i + kMR512) into their buffer
      side.a16 = reinterpret_cast<const uint16_t*>(a + i * lda), side.a_rows = a_buffer(i);
      side.a16_rows = static_cast<int>(std::clamp<int64_t>(m - i, 0, kMR512));
    };
    if constexpr (!kFloatA) {
      scratch.a.resize(static_cast<size_t>(2 * kMR512 * a_pitch));
      widen_next(0);
      widen_a_rows<TA>(side, k);
    }
    // B that several blocks of rows use, 16-bit or float rows wider apart than its width rounded
    // to whole panels (GM): the first block packs it as float rows that far apart. 16-bit B is
    // widened once so (in the loop for every block of rows, vcvtph2ps shares the FMA ports on
    // Zen 4: f16 matmul 1024^3 ran at 0.92 of f32's speed; widened whole in a pass of its own
    // before the first block, at 0.92-0.97, paired in one process, BM_DtypePairedMatmul).
    const int64_t packed_pitch = (n + kNR - 1) / kNR * kNR;
    float* packed = nullptr;
    if (m > kMR512 && (!std::is_same_v<TB, float> || ldb > packed_pitch)) {
      scratch.b_rows.resize(static_cast<size_t>(k * packed_pitch));
      packed = scratch.b_rows.data();
    }
    for_each_block<kMR512, kPanels512>(m, n, [&](int64_t i, int rows, int64_t j, int count) {
      const float* a_rows = kFloatA ? reinterpret_cast<const float*>(a + i * lda) : a_buffer(i);  // rows [i, i + rows) as float
      const bool widens = !kFloatA && j == 0 && i + kMR512 < m;
      if (widens) widen_next(i + kMR512);
      // Picks the kernel from table<WidenA>, with A widened by this call or not.
      const auto pick = [&](const auto& plain, const auto& widening) { return widens ? widening : plain; };
      const int64_t cols = last_cols(j + count - 1);
      if (packed && i == 0) {
        side.b_rows = packed + j * kNR, side.b_pitch = packed_pitch;
        return pick(micro512_packing<Ops>, micro512_packing<Ops, WidenType<TA>>)[count - 1](k, a_rows, a_pitch, bp + j * kNR, ldb, kNR,
                                                                                            c + j * kNR, ldc, cols, accumulate, side);
      }
      if (packed) {
        return pick(micro512_table<FloatZmm>, micro512_table<FloatZmm, WidenType<TA>>)[count - 1][rows - 1](
            k, a_rows, a_pitch, packed + j * kNR, packed_pitch, kNR, c + i * ldc + j * kNR, ldc, cols, accumulate, side);
      }
      pick(micro512_table<Ops>, micro512_table<Ops, WidenType<TA>>)[count - 1][rows - 1](k, a_rows, a_pitch, bp + j * kNR, ldb, kNR,
                                                                                         c + i * ldc + j * kNR, ldc, cols, accumulate, side);
    });
    return;
  }
  const float* af = nullptr;
  if constexpr (std::is_same_v<TA, float>) {
    af = a;
  } else {
    af = widen<TA>(a, m, k, lda, scratch.a), lda = k;
  }
  pack_b(b, k, n, ldb);
  for_each_block<kMR, 1>(m, n, [&](int64_t i, int rows, int64_t j, int) {
    const Micro micro = isa == MatmulIsa::avx2 ? kByRows<PickAvx2, kMR>[rows - 1] : kByRows<PickPortable, kMR>[rows - 1];
    micro(k, af + i * lda, lda, scratch.b.data() + j * k * kNR, c + i * ldc + j * kNR, ldc, last_cols(j), accumulate);
  });
}

/// int8: any order of the int32 sum gives the same (wrapping) result, so the fast path is free to
/// pair up k. A's rows are packed as int32 words holding two k-neighbours as int16, B as panels of
/// kNR columns holding, per pair of k rows, the two values of each column side by side as int16:
/// one vpmaddwd then multiplies and adds a pair for 8 columns (int8 products fit int16 sums).
struct PackedI8 {
  std::vector<int32_t> a;  // [m][pairs]
  std::vector<int16_t> b;  // [panels][pairs][kNR][2]
  static int64_t pairs(int64_t k) { return (k + 1) / 2; }
  static int64_t panel_stride(int64_t k) { return pairs(k) * kNR * 2; }  // int16 elements from one panel of b to the next
};
thread_local PackedI8 packed_i8;

/// Packs A and B for the int8 kernels (both SIMD paths; AVX2 is the least either host has): A's
/// rows as int16 (sign-extended), so each int32 word holds the k-neighbours 2q (low half) and
/// 2q + 1; B's panels as, per pair of k rows, the two values of each column side by side as int16.
/// Zeros past k and past n (odd k, a partial last panel). 16 values of a row at a time (AVX2
/// sign extension; B's two rows interleaved byte-wise first), the tails element by element.
/// Written element by element, the packing took more of the int8 sample's time than its
/// multiplies (26% and 21% of BM_DtypePairedMatmul<int8_t>'s profile; now 6.5% and 27%): f32 time
/// over int8 time 0.79-0.86 before, 1.45-1.47 after (Zen 5, paired in one process).
__attribute__((target("avx2"))) void pack_i8(const int8_t* a, const int8_t* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb) {
  const int64_t pairs = PackedI8::pairs(k), panels = (n + kNR - 1) / kNR, panel_stride = PackedI8::panel_stride(k);
  const auto word = [](int8_t lo, int8_t hi) {
    return static_cast<int32_t>(static_cast<uint16_t>(int16_t{lo}) | (static_cast<uint32_t>(static_cast<uint16_t>(int16_t{hi})) << 16));
  };
  packed_i8.a.resize(static_cast<size_t>(m * pairs));
  for (int64_t r = 0; r < m; ++r) {
    const int8_t* src = a + r * lda;
    int32_t* dst = packed_i8.a.data() + r * pairs;
    int64_t p = 0;
    for (; p + 16 <= k; p += 16) {  // 16 k steps: 8 words
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + p / 2), _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + p))));
    }
    for (; p < k; p += 2) dst[p / 2] = word(src[p], p + 1 < k ? src[p + 1] : int8_t{0});
  }
  packed_i8.b.resize(static_cast<size_t>(panels * panel_stride));  // every element written below
  for (int64_t q = 0; q < pairs; ++q) {
    const int8_t* even = b + 2 * q * ldb;
    const int8_t* odd = 2 * q + 1 < k ? even + ldb : nullptr;
    for (int64_t j = 0; j < panels; ++j) {
      int16_t* dst = packed_i8.b.data() + j * panel_stride + q * kNR * 2;
      const int64_t cols = std::min<int64_t>(kNR, n - j * kNR);
      if (odd && cols == kNR) {
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(even + j * kNR));
        const __m128i o = _mm_loadu_si128(reinterpret_cast<const __m128i*>(odd + j * kNR));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(e, o)));       // columns 0-7
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + kNR), _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(e, o)));  // 8-15
        continue;
      }
      for (int64_t c = 0; c < kNR; ++c) {
        dst[2 * c] = c < cols ? even[j * kNR + c] : int16_t{0};
        dst[2 * c + 1] = c < cols && odd ? odd[j * kNR + c] : int16_t{0};
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
  const MatmulIsa isa = active_isa();
  if (isa == MatmulIsa::portable) return matmul_i8_portable(c, a, b, m, n, k, lda, ldb, ldc, accumulate);
  pack_i8(a, b, m, n, k, lda, ldb);
  const int64_t pairs = PackedI8::pairs(k), panel_stride = PackedI8::panel_stride(k);
  const auto last_cols = [&](int64_t j) { return std::min<int64_t>(kNR, n - j * kNR); };
  if (isa == MatmulIsa::avx512) {
    for_each_block<kMR512, kPanels512>(m, n, [&](int64_t i, int rows, int64_t j, int count) {
      micro512_table<Int8PairsZmm>[count - 1][rows - 1](pairs, packed_i8.a.data() + i * pairs, pairs, packed_i8.b.data() + j * panel_stride,
                                                        kNR * 2, panel_stride, c + i * ldc + j * kNR, ldc, last_cols(j + count - 1),
                                                        accumulate, MicroSide{});
    });
    return;
  }
  for_each_block<kMR, 1>(m, n, [&](int64_t i, int rows, int64_t j, int) {
    kByRows<PickI8, kMR>[rows - 1](pairs, packed_i8.a.data() + i * pairs, packed_i8.b.data() + j * panel_stride, c + i * ldc + j * kNR, ldc,
                               last_cols(j), accumulate);
  });
}

}  // namespace

void force_matmul_isa(MatmulIsa isa) { forced_isa.store(isa, std::memory_order_relaxed); }

MatmulIsa matmul_isa() { return active_isa(); }

const char* matmul_isa_name(MatmulIsa isa) {
  switch (isa) {
    case MatmulIsa::portable: return "portable";
    case MatmulIsa::avx2: return "avx2";
    case MatmulIsa::avx512: return "avx512";
    case MatmulIsa::best: break;
  }
  return matmul_isa_name(active_isa());
}

extern "C" void pto_rt_matmul(void* c, const void* a, const void* b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                              int64_t ldc, int32_t in_dtype, int32_t accumulate) {
  if (m <= 0 || n <= 0) return;
  auto* cf = static_cast<float*>(c);
  switch (static_cast<DType>(in_dtype)) {
    case DType::f32:
      return matmul_float(cf, static_cast<const float*>(a), static_cast<const float*>(b), m, n, k, lda, ldb, ldc, accumulate != 0);
    case DType::f16:
      return matmul_float(cf, static_cast<const half*>(a), static_cast<const half*>(b), m, n, k, lda, ldb, ldc, accumulate != 0);
    case DType::bf16:
      return matmul_float(cf, static_cast<const bfloat16*>(a), static_cast<const bfloat16*>(b), m, n, k, lda, ldb, ldc, accumulate != 0);
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
