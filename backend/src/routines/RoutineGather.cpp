// Routines that move elements by index or mask: gather, gatherb, gathermask, scatter
// (RoutineRun.hpp).
#include "RoutineRun.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace pto::routines {

/// The least and greatest of n int32 at p (n > 0), in AVX2 where the host has it (the check of
/// every gather and scatter; scalar, it took as long as the gather itself).
static __attribute__((target("avx2"))) std::pair<int32_t, int32_t> index_range_avx2(const IndexWord* p, int64_t n) {
  __m256i lo = _mm256_set1_epi32(std::numeric_limits<int32_t>::max()), hi = _mm256_set1_epi32(std::numeric_limits<int32_t>::min());
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i_u*>(p + i));
    lo = _mm256_min_epi32(lo, v);
    hi = _mm256_max_epi32(hi, v);
  }
  alignas(32) std::array<int32_t, 8> l{}, h{};
  _mm256_store_si256(reinterpret_cast<__m256i*>(l.data()), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(h.data()), hi);
  int32_t a = *std::min_element(l.begin(), l.end()), b = *std::max_element(h.begin(), h.end());
  for (; i < n; ++i) a = std::min<int32_t>(a, p[i]), b = std::max<int32_t>(b, p[i]);
  return {a, b};
}
static std::pair<int32_t, int32_t> index_range_portable(const IndexWord* p, int64_t n) {
  int32_t a = std::numeric_limits<int32_t>::max(), b = std::numeric_limits<int32_t>::min();
  for (int64_t i = 0; i < n; ++i) a = std::min<int32_t>(a, p[i]), b = std::max<int32_t>(b, p[i]);
  return {a, b};
}

/// Whether this host runs AVX-512F (asked once): the gathers' 16-a-step paths.
static bool host_has_avx512f() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

/// out[c] = from[k[c] + offset] for c < n, 4-byte elements, 16 a step in AVX-512 (the indices
/// checked: each k[c] + offset is an element of `from`, so it fits 32 bits): 7-10% off
/// perf_routines' gather of f32 tiles against the scalar loop (3 alternating runs).
static __attribute__((target("avx512f"))) void gather4_avx512(uint8_t* out, const uint8_t* from, const IndexWord* k, int32_t offset, int64_t n) {
  const __m512i shift = _mm512_set1_epi32(offset);
  int64_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const __m512i idx = _mm512_add_epi32(_mm512_loadu_si512(k + c), shift);
    _mm512_storeu_si512(out + c * 4, _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xFFFF, idx, from, 4));
  }
  for (; c < n; ++c) std::memcpy(out + c * 4, from + (static_cast<int64_t>(k[c]) + offset) * 4, 4);
}

/// out[c] = s[c * stride] for the first c < n, 4-byte elements, stride 2 or 4, 16 a step in
/// AVX-512 (two or four whole vectors of s permuted together), as long as a step's vectors lie
/// within the `avail` elements of s; returns how many it wrote (the caller does the rest element
/// by element). gathermask's de-interleaving: perf_routines' gathermask of f32 tiles, native /
/// emulated, 0.270-0.311 with the element loop alone, 0.394-0.428 with this (alternating
/// processes, Zen 5; the rest is the load and the store around it, which the TBB loop has not).
static __attribute__((target("avx512f"))) int64_t every_nth4_avx512(uint8_t* out, const uint8_t* s, int64_t stride, int64_t n, int64_t avail) {
  const auto* in = reinterpret_cast<const int32_t*>(s);
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i fourths = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
  const __m512i halves = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  int64_t c = 0;
  for (; c + 16 <= n && (c + 16) * stride <= avail; c += 16) {
    const int32_t* p = in + c * stride;
    __m512i v;
    if (stride == 2) {
      v = _mm512_permutex2var_epi32(_mm512_loadu_si512(p), evens, _mm512_loadu_si512(p + 16));
    } else {
      const __m512i lo = _mm512_permutex2var_epi32(_mm512_loadu_si512(p), fourths, _mm512_loadu_si512(p + 16));
      const __m512i hi = _mm512_permutex2var_epi32(_mm512_loadu_si512(p + 32), fourths, _mm512_loadu_si512(p + 48));
      v = _mm512_permutex2var_epi32(lo, halves, hi);
    }
    _mm512_storeu_si512(out + c * 4, v);
  }
  return c;
}

// ------------------------------------------------------------------------------ gathers
/// The least and greatest of the int32 index tile's [rows, cols] (rows, cols > 0).
static std::pair<int64_t, int64_t> index_range(const RoutineTile& idx, int64_t rows, int64_t cols) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  int32_t lo = std::numeric_limits<int32_t>::max(), hi = std::numeric_limits<int32_t>::min();
  const bool whole = cols == idx.cols;  // the rows are one run
  for (int64_t r = 0; r < (whole ? 1 : rows); ++r) {
    const IndexWord* p = index_row(idx, r);
    const int64_t n = whole ? rows * cols : cols;
    const auto [a, b] = avx2 ? index_range_avx2(p, n) : index_range_portable(p, n);
    lo = std::min(lo, a), hi = std::max(hi, b);
  }
  return {lo, hi};
}

int64_t RoutineRun::gather() {
  RoutineTile &out = t_[0], &src = t_[n_ - 2], &idx = t_[n_ - 1];
  const int64_t rows = vrows(idx), cols = vcols(idx), offset = p_[0];
  if (!fits(out, rows, cols)) return -1;
  const int64_t limit = vrows(src) * src.cols, e = es(src);
  const bool full_rows = vcols(src) == src.cols;  // then every element of the valid rows is valid (no division)
  // Every index inside (the usual case, found from the least and greatest): one pass that reads
  // each index and copies its element. Else the element-by-element check below, which names the
  // first index outside, before anything is written.
  if (full_rows && rows > 0 && cols > 0) {
    if (const auto [lo, hi] = index_range(idx, rows, cols); lo + offset >= 0 && hi + offset < limit) {
      with_element_size(e, [&]<size_t E>() {
        constexpr auto kE = static_cast<int64_t>(E);
        const auto* from = static_cast<const uint8_t*>(src.data);
        const bool avx512 = host_has_avx512f();
        for (int64_t r = 0; r < rows; ++r) {
          uint8_t* o = at(out, r * out.cols);
          const IndexWord* k = index_row(idx, r);
          if (E == 4 && avx512) {
            gather4_avx512(o, from, k, static_cast<int32_t>(offset), cols);  // |offset| < limit: lo + offset >= 0, hi + offset < limit
          } else {
            for (int64_t c = 0; c < cols; ++c) std::memcpy(o + c * kE, from + (static_cast<int64_t>(k[c]) + offset) * kE, E);
          }
        }
      });
      set_valid(out, rows, cols);
      return rows * cols;
    }
  }
  indices_.resize(static_cast<size_t>(rows * cols));  // every index checked, and kept, before anything is written
  int64_t* kept = indices_.data();                   // (docs/semantics.md, Checks)
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t k = index(idx, r, c) + offset;
      const bool inside = k >= 0 && k < limit && (full_rows || k % src.cols < vcols(src));
      if (!inside) return failed(RuntimeCheck::index_out_of_range, 0, k, r * idx.cols + c, limit);
      kept[r * cols + c] = k;
    }
  }
  with_element_size(e, [&]<size_t E>() {
    for (int64_t r = 0; r < rows; ++r) {
      uint8_t* o = at(out, r * out.cols);
      for (int64_t c = 0; c < cols; ++c) std::memcpy(o + c * static_cast<int64_t>(E), at(src, kept[r * cols + c]), E);
    }
  });
  set_valid(out, rows, cols);
  return rows * cols;
}

int64_t RoutineRun::gatherb() {
  RoutineTile &out = t_[0], &src = t_[1], &off = t_[2];
  const int64_t e = es(src), per_block = 32 / e, rows = vrows(off), blocks = vcols(off);
  if (!fits(out, rows, blocks * per_block)) return -1;
  const int64_t bytes = vrows(src) * src.cols * e;
  indices_.clear();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t o = index(off, r, b);
      if (o < 0 || o + 32 > bytes) return failed(RuntimeCheck::index_out_of_range, 1, o, r * off.cols + b, bytes);
      if (!extent_rule(o % e == 0, RoutineRule::multiple_of, 2, o, e)) return -1;  // axis 2: a byte offset
      indices_.push_back(o);
    }
  }
  for (int64_t r = 0, i = 0; r < rows; ++r) {
    for (int64_t b = 0; b < blocks; ++b) {
      std::memcpy(at(out, r * out.cols + b * per_block), static_cast<uint8_t*>(src.data) + indices_[static_cast<size_t>(i++)], 32);
    }
  }
  set_valid(out, rows, blocks * per_block);
  return rows * blocks * per_block;
}

int64_t RoutineRun::gathermask() {
  RoutineTile &out = t_[0], &src = t_[1];
  static constexpr std::array<std::array<int64_t, 2>, 8> kPattern = {{{1, 0}, {2, 0}, {2, 1}, {4, 0}, {4, 1}, {4, 2}, {4, 3}, {1, 0}}};
  PTO_INTERNAL_CHECK(p_[0] >= 1 && p_[0] <= 7) << "gathermask pattern " << p_[0];  // checked at trace time
  const auto [stride, phase] = kPattern[static_cast<size_t>(p_[0])];
  const int64_t rows = vrows(src), cols = vcols(src) > phase ? (vcols(src) - phase + stride - 1) / stride : 0;
  if (!fits(out, rows, cols)) return -1;
  with_element_size(es(src), [&]<size_t E>() {
    constexpr auto kE = static_cast<int64_t>(E);
    for (int64_t r = 0; r < rows; ++r) {
      uint8_t* o = at(out, r * out.cols);
      const uint8_t* s = at(src, r * src.cols + phase);
      if (stride == 1) {
        std::memmove(o, s, static_cast<size_t>(cols * kE));
      } else {
        int64_t c = 0;
        if constexpr (kE == 4) {
          if (host_has_avx512f()) c = every_nth4_avx512(o, s, stride, cols, vcols(src) - phase);
        }
        for (; c < cols; ++c) std::memcpy(o + c * kE, s + c * stride * kE, E);
      }
    }
  });
  set_valid(out, rows, cols);
  return rows * cols;
}

int64_t RoutineRun::scatter() {
  RoutineTile &out = t_[0], &src = t_[1], &idx = t_[2];
  const int64_t rows = vrows(src), cols = vcols(src), limit = out.rows * out.cols;
  if (!covers(idx, rows, cols)) return -1;
  const auto e = static_cast<size_t>(es(src));
  if (rows > 0 && cols > 0) {  // as gather's
    if (const auto [lo, hi] = index_range(idx, rows, cols); lo >= 0 && hi < limit) {
      with_element_size(static_cast<int64_t>(e), [&]<size_t E>() {
        constexpr auto kE = static_cast<int64_t>(E);
        auto* to = static_cast<uint8_t*>(out.data);
        for (int64_t r = 0; r < rows; ++r) {
          const uint8_t* from = at(src, r * src.cols);
          const IndexWord* k = index_row(idx, r);
          for (int64_t c = 0; c < cols; ++c) std::memcpy(to + static_cast<int64_t>(k[c]) * kE, from + c * kE, E);
        }
      });
      return rows * cols;
    }
  }
  indices_.resize(static_cast<size_t>(rows * cols));
  int64_t* kept = indices_.data();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t k = index(idx, r, c);
      if (k < 0 || k >= limit) return failed(RuntimeCheck::index_out_of_range, 0, k, r * idx.cols + c, limit);
      kept[r * cols + c] = k;
    }
  }
  with_element_size(static_cast<int64_t>(e), [&]<size_t E>() {
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* from = at(src, r * src.cols);
      for (int64_t c = 0; c < cols; ++c) std::memcpy(at(out, kept[r * cols + c]), from + c * static_cast<int64_t>(E), E);
    }
  });
  return rows * cols;
}

}  // namespace pto::routines
