// Routines that rearrange or fill a tile: transpose, iota, fillpad (RoutineRun.hpp).
#include "RoutineRun.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "pto/support/Float16.hpp"

namespace pto::routines {

// ------------------------------------------------------------------------------ transpose
/// An 8 x 8 block of 4-byte elements transposed in registers (AVX: unpacks, shuffles and lane
/// permutes move bits, so floats keep every payload): row i of `from` becomes column i of `to`.
static __attribute__((target("avx"))) void transpose8x8_4(uint8_t* to, int64_t out_pitch, const uint8_t* from, int64_t in_pitch) {
  __m256 r[8], t[8], s[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(from + i * in_pitch));
  for (int i = 0; i < 8; i += 2) {  // rows i, i + 1 interleaved: columns 0,1 4,5 (lo) and 2,3 6,7 (hi) of each 128-bit lane
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int h = 0; h < 8; h += 4) {  // rows h..h+3 of columns j and j + 4, in s[h + j]
    s[h] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {
    _mm256_storeu_ps(reinterpret_cast<float*>(to + j * out_pitch), _mm256_permute2f128_ps(s[j], s[4 + j], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(to + (j + 4) * out_pitch), _mm256_permute2f128_ps(s[j], s[4 + j], 0x31));
  }
}

/// out[c, r] = src[r, c] over src's valid extent; out's valid extent becomes its transpose.
int64_t RoutineRun::transpose() {
  RoutineTile &out = t_[0], &src = t_[1];
  const int64_t rows = vrows(src), cols = vcols(src);
  if (!fits(out, cols, rows)) return -1;
  with_element_size(es(src), [&]<size_t E>() {
    constexpr auto kE = static_cast<int64_t>(E);
    const auto* from = static_cast<const uint8_t*>(src.data);
    auto* to = static_cast<uint8_t*>(out.data);
    const int64_t in_pitch = src.cols * kE, out_pitch = out.cols * kE;
    auto element = [&](int64_t r, int64_t c) { std::memcpy(to + c * out_pitch + r * kE, from + r * in_pitch + c * kE, E); };
    // 4-byte elements: whole 8 x 8 blocks in registers, then the last columns and rows
    // (perf_routines' transpose of 64 x 128 f32 tiles, native / emulated, alternating processes
    // on Zen 5: 0.40-0.52 element by element, 0.58-0.77 so).
    int64_t full_rows = 0, full_cols = 0;
    if constexpr (kE == 4) {
      static const bool avx = __builtin_cpu_supports("avx");
      if (avx) {
        full_rows = rows / 8 * 8, full_cols = cols / 8 * 8;
        for (int64_t r0 = 0; r0 < full_rows; r0 += 8) {
          for (int64_t c0 = 0; c0 < full_cols; c0 += 8) transpose8x8_4(to + c0 * out_pitch + r0 * kE, out_pitch, from + r0 * in_pitch + c0 * kE, in_pitch);
        }
      }
    }
    for (int64_t r = 0; r < full_rows; ++r) {
      for (int64_t c = full_cols; c < cols; ++c) element(r, c);
    }
    // The rest in blocks of kBlock x kBlock, so that the block's rows of out stay in cache while
    // its columns are written.
    constexpr int64_t kBlock = 16;
    for (int64_t r0 = full_rows; r0 < rows; r0 += kBlock) {
      for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
        const int64_t r1 = std::min(rows, r0 + kBlock), c1 = std::min(cols, c0 + kBlock);
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) element(r, c);
        }
      }
    }
  });
  set_valid(out, cols, rows);
  return rows * cols;
}

/// out[r, c] = start + r * cols + c over the whole capacity, converted as a tile expression's
/// result is written: integers wrap, floats round to nearest even.
int64_t RoutineRun::iota() {
  RoutineTile& out = t_[0];
  const int64_t n = out.rows * out.cols, start = p_[0];
  const auto type = static_cast<DType>(out.dtype);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = start + i;
    uint8_t* d = at(out, i);
    switch (type) {
      case DType::f32: { const float f = static_cast<float>(v); std::memcpy(d, &f, 4); break; }
      case DType::f16: { const half h(static_cast<float>(v)); std::memcpy(d, &h, 2); break; }
      case DType::bf16: { const bfloat16 h(static_cast<float>(v)); std::memcpy(d, &h, 2); break; }
      case DType::i32: { const auto w = static_cast<int32_t>(static_cast<uint32_t>(v)); std::memcpy(d, &w, 4); break; }
      case DType::i8: { const auto w = static_cast<int8_t>(static_cast<uint8_t>(v)); std::memcpy(d, &w, 1); break; }
      case DType::i64: std::memcpy(d, &v, 8); break;
      case DType::boolean: { const uint8_t b = v != 0; std::memcpy(d, &b, 1); break; }
    }
  }
  set_valid(out, out.rows, out.cols);
  return n;
}

// ------------------------------------------------------------------------------ padding
static std::array<uint8_t, 8> pad_bytes(DType t, ir::TilePad pad) {
  std::array<uint8_t, 8> b{};
  if (pad == ir::TilePad::Zero || pad == ir::TilePad::Null) return b;
  const bool max = pad == ir::TilePad::Max;
  auto put = [&](auto v) { std::memcpy(b.data(), &v, sizeof v); };
  switch (t) {
    case DType::f32: put(max ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity()); break;
    case DType::f16: put(static_cast<uint16_t>(max ? 0x7C00 : 0xFC00)); break;
    case DType::bf16: put(static_cast<uint16_t>(max ? 0x7F80 : 0xFF80)); break;
    case DType::i32: put(max ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min()); break;
    case DType::i8: put(max ? std::numeric_limits<int8_t>::max() : std::numeric_limits<int8_t>::min()); break;
    case DType::i64: put(max ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min()); break;
    case DType::boolean: put(static_cast<uint8_t>(max ? 1 : 0)); break;
  }
  return b;
}

int64_t RoutineRun::fillpad() {
  RoutineTile &out = t_[0], &src = t_[1];
  const auto pad = pad_bytes(static_cast<DType>(out.dtype), static_cast<ir::TilePad>(p_[1]));
  const int64_t rows = vrows(src), cols = vcols(src);
  const auto e = static_cast<size_t>(es(out));
  const bool in_place = out.data == src.data;
  const auto pitch = static_cast<size_t>(out.cols) * e;
  for (int64_t r = 0; r < out.rows; ++r) {  // a row: src's valid part (unless in place), then the pad value
    uint8_t* d = at(out, r * out.cols);
    const int64_t kept = r < rows ? std::min(cols, out.cols) : 0;
    if (kept > 0 && !in_place) std::memmove(d, at(src, r * src.cols), static_cast<size_t>(kept) * e);
    for (size_t b = static_cast<size_t>(kept) * e; b < pitch; b += e) std::memcpy(d + b, pad.data(), e);
  }
  set_valid(out, out.rows, out.cols);
  return out.rows * out.cols;
}

}  // namespace pto::routines
