// pto_rt_vec_routine: the vector routines (ir::Routine) both engines call, so the JIT and the
// interpreter agree by construction. Semantics: docs/semantics.md ("Gather, scatter, padding and
// sorting").
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <immintrin.h>

#include "pto/backend/KernelABI.hpp"
#include "pto/ir/IR.hpp"
#include "pto/support/DType.hpp"
#include "pto/support/Error.hpp"
#include "pto/support/Float16.hpp"

namespace pto {
namespace {

using ir::Routine;

/// An index tile's elements as int32 (tile memory is raw bytes: may_alias reads them as such).
typedef int32_t __attribute__((may_alias)) IndexWord;

/// The least and greatest of n int32 at p (n > 0), in AVX2 where the host has it (the check of
/// every gather and scatter; scalar, it took as long as the gather itself).
__attribute__((target("avx2"))) std::pair<int32_t, int32_t> index_range_avx2(const IndexWord* p, int64_t n) {
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
std::pair<int32_t, int32_t> index_range_portable(const IndexWord* p, int64_t n) {
  int32_t a = std::numeric_limits<int32_t>::max(), b = std::numeric_limits<int32_t>::min();
  for (int64_t i = 0; i < n; ++i) a = std::min<int32_t>(a, p[i]), b = std::max<int32_t>(b, p[i]);
  return {a, b};
}

/// out[c] = from[k[c] + offset] for c < n, 4-byte elements, 16 a step in AVX-512 (the indices
/// checked: each k[c] + offset is an element of `from`, so it fits 32 bits): 7-10% off
/// perf_routines' gather of f32 tiles against the scalar loop (3 alternating runs).
__attribute__((target("avx512f"))) void gather4_avx512(uint8_t* out, const uint8_t* from, const IndexWord* k, int32_t offset, int64_t n) {
  const __m512i shift = _mm512_set1_epi32(offset);
  int64_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const __m512i idx = _mm512_add_epi32(_mm512_loadu_si512(k + c), shift);
    _mm512_storeu_si512(out + c * 4, _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xFFFF, idx, from, 4));
  }
  for (; c < n; ++c) std::memcpy(out + c * 4, from + (static_cast<int64_t>(k[c]) + offset) * 4, 4);
}

struct Fail {  // a failed rule, reported through pto_rt_fail
  RuntimeCheck check;
  int axis;
  int64_t a, b, c;
};

class RoutineRun {
 public:
  RoutineRun(RoutineTile* tiles, int32_t n, int64_t p0, int64_t p1) : t_(tiles), n_(n), p_{p0, p1} {}

  /// Elements written, or a failure in `fail`.
  int64_t run(Routine r, Fail& fail) {
    fail_ = &fail;
    switch (r) {
      case Routine::Gather: return gather();
      case Routine::GatherB: return gatherb();
      case Routine::GatherMask: return gathermask();
      case Routine::Scatter: return scatter();
      case Routine::FillPad: return fillpad();
      case Routine::Sort32: return sort32();
      case Routine::MrgSort: return mrgsort();
      case Routine::MrgSort2: return mrgsort2();
      case Routine::Transpose: return transpose();
      case Routine::Iota: return iota();
    }
    return 0;
  }

 private:
  // ------------------------------------------------------------------------------ operands
  static int64_t es(const RoutineTile& t) { return static_cast<int64_t>(dtype_size(static_cast<DType>(t.dtype))); }
  static uint8_t* at(const RoutineTile& t, int64_t flat) { return static_cast<uint8_t*>(t.data) + flat * es(t); }
  static int64_t vrows(const RoutineTile& t) { return t.valid[0]; }
  static int64_t vcols(const RoutineTile& t) { return t.valid[1]; }
  static void set_valid(RoutineTile& t, int64_t rows, int64_t cols) { t.valid[0] = rows, t.valid[1] = cols; }
  /// Row r of an int32 index tile, and its element (r, c) (no dtype lookup: they are on the
  /// gathers' per-element path).
  static const IndexWord* index_row(const RoutineTile& idx, int64_t r) { return static_cast<const IndexWord*>(idx.data) + r * idx.cols; }
  static int32_t index(const RoutineTile& idx, int64_t r, int64_t c) { return index_row(idx, r)[c]; }

  /// Calls f.template operator()<E>() with the element size E (1, 2, 4 or 8) as a constant, so the
  /// element copies are single moves.
  template <class F>
  static void with_element_size(int64_t e, F&& f) {
    switch (e) {
      case 1: f.template operator()<1>(); break;
      case 2: f.template operator()<2>(); break;
      case 4: f.template operator()<4>(); break;
      default: f.template operator()<8>(); break;
    }
  }

  int64_t failed(RuntimeCheck check, int axis, int64_t a, int64_t b, int64_t c = 0) {
    *fail_ = {check, axis, a, b, c};
    return -1;
  }
  /// The result of `rows x cols` fits the destination `t`.
  bool fits(const RoutineTile& t, int64_t rows, int64_t cols) {
    if (rows > t.rows) return failed(RuntimeCheck::result_over_tile, 0, rows, t.rows), false;
    if (cols > t.cols) return failed(RuntimeCheck::result_over_tile, 1, cols, t.cols), false;
    return true;
  }
  /// The operand `t` covers rows x cols.
  bool covers(const RoutineTile& t, int64_t rows, int64_t cols) {
    if (vrows(t) < rows) return failed(RuntimeCheck::operand_smaller, 0, rows, vrows(t)), false;
    if (vcols(t) < cols) return failed(RuntimeCheck::operand_smaller, 1, cols, vcols(t)), false;
    return true;
  }
  /// routine_extent: `value` (of `axis`) must relate to `bound` by `rule`.
  bool extent_rule(bool ok, RoutineRule rule, int axis, int64_t value, int64_t bound) {
    if (!ok) failed(RuntimeCheck::routine_extent, axis, value, bound, static_cast<int64_t>(rule));
    return ok;
  }

  // ------------------------------------------------------------------------------ transpose
  /// out[c, r] = src[r, c] over src's valid extent; out's valid extent becomes its transpose.
  int64_t transpose() {
    RoutineTile &out = t_[0], &src = t_[1];
    const int64_t rows = vrows(src), cols = vcols(src);
    if (!fits(out, cols, rows)) return -1;
    with_element_size(es(src), [&]<size_t E>() {
      // In blocks of kBlock x kBlock, so that the block's rows of out stay in cache while its
      // columns are written.
      constexpr auto kE = static_cast<int64_t>(E);
      constexpr int64_t kBlock = 16;
      const auto* from = static_cast<const uint8_t*>(src.data);
      auto* to = static_cast<uint8_t*>(out.data);
      const int64_t in_pitch = src.cols * kE, out_pitch = out.cols * kE;
      for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
        for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
          const int64_t r1 = std::min(rows, r0 + kBlock), c1 = std::min(cols, c0 + kBlock);
          for (int64_t r = r0; r < r1; ++r) {
            for (int64_t c = c0; c < c1; ++c) std::memcpy(to + c * out_pitch + r * kE, from + r * in_pitch + c * kE, E);
          }
        }
      }
    });
    set_valid(out, cols, rows);
    return rows * cols;
  }

  /// out[r, c] = start + r * cols + c over the whole capacity, converted as a tile expression's
  /// result is written: integers wrap, floats round to nearest even.
  int64_t iota() {
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

  int64_t gather() {
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
          static const bool avx512 = __builtin_cpu_supports("avx512f");
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

  int64_t gatherb() {
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

  int64_t gathermask() {
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
          for (int64_t c = 0; c < cols; ++c) std::memcpy(o + c * kE, s + c * stride * kE, E);
        }
      }
    });
    set_valid(out, rows, cols);
    return rows * cols;
  }

  int64_t scatter() {
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

  int64_t fillpad() {
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

  // ------------------------------------------------------------------------------ sorting
  /// An 8-byte sort record's key: f32 [value, index], f16 [value, 0, index].
  struct Record {
    float value;
    uint32_t index;
  };
  /// Greatest value first, NaN last, the smaller index first among equals.
  static bool before(const Record& a, const Record& b) { return rank(a) < rank(b); }
  static int64_t record_elems(const RoutineTile& t) { return 8 / es(t); }
  static float value_at(const RoutineTile& t, const uint8_t* p) {
    if (static_cast<DType>(t.dtype) == DType::f32) {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    return detail::half_bits_to_float(h);
  }
  /// The sort order as one integer: the value's bits flipped into descending order (-0 as +0,
  /// every NaN last), then the index. Equal ranks: equal values (or both NaN) and one index.
  static uint64_t rank(const Record& r) {
    uint32_t bits = std::bit_cast<uint32_t>(r.value == 0 ? 0.0f : r.value);
    bits = std::isnan(r.value) ? ~uint32_t{0} : ~(bits & 0x80000000u ? ~bits : bits | 0x80000000u);
    return (uint64_t{bits} << 32) | r.index;
  }
  static Record read_record(const RoutineTile& t, const uint8_t* p) {
    Record r{value_at(t, p), 0};
    std::memcpy(&r.index, p + 4, 4);
    return r;
  }
  /// Writes `r` at `p`; `value` is the element's own bytes (no conversion, NaN payloads kept).
  static void write_record(const RoutineTile& t, uint8_t* p, const uint8_t* value, uint32_t index) {
    std::memset(p, 0, 8);
    std::memcpy(p, value, static_cast<size_t>(es(t)));
    std::memcpy(p + 4, &index, 4);
  }

  int64_t sort32() {
    RoutineTile &dst = t_[0], &src = t_[n_ - 2], &idx = t_[n_ - 1];
    const int64_t rows = vrows(src), cols = vcols(src), rec = record_elems(src);
    if (!fits(dst, rows, cols * rec)) return -1;
    if (!covers(idx, vrows(idx) == 1 ? 1 : rows, cols)) return -1;
    struct Item {
      uint64_t key;                  // rank() of its record
      std::array<uint8_t, 4> value;  // the element's own bytes
    };
    // A group is at most 32 items: sorted in place by insertion on their ranks (stable;
    // std::stable_sort with `before` took a buffer from the heap for each group).
    std::array<Item, 32> group;
    const auto e = static_cast<size_t>(es(src));
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t ir = vrows(idx) == 1 ? 0 : r;
      for (int64_t g = 0; g < cols; g += 32) {
        const int64_t n = std::min<int64_t>(32, cols - g);
        const uint8_t* v = at(src, r * src.cols + g);
        for (int64_t i = 0; i < n; ++i, v += e) {
          Item item{rank({value_at(src, v), static_cast<uint32_t>(index(idx, ir, g + i))}), {}};
          std::memcpy(item.value.data(), v, e);
          int64_t j = i;  // equal ranks (one value and index twice) keep their order: stable
          for (; j > 0 && item.key < group[static_cast<size_t>(j - 1)].key; --j) group[static_cast<size_t>(j)] = group[static_cast<size_t>(j - 1)];
          group[static_cast<size_t>(j)] = item;
        }
        uint8_t* out = at(dst, r * dst.cols + g * rec);
        for (int64_t i = 0; i < n; ++i) {
          const Item& item = group[static_cast<size_t>(i)];
          write_record(dst, out + i * 8, item.value.data(), static_cast<uint32_t>(item.key));
        }
      }
    }
    set_valid(dst, rows, cols * rec);
    return rows * cols * rec;
  }

  /// Merges the sorted record lists `lists` (pointers and lengths in records) into `out`; with
  /// `stop_early`, until the first list runs out. Returns the records written.
  static int64_t merge(const RoutineTile& t, std::vector<std::pair<const uint8_t*, int64_t>> lists, uint8_t* out, bool stop_early) {
    int64_t written = 0;
    while (true) {
      int best = -1;
      Record best_key{};
      bool any_empty = false;
      for (size_t l = 0; l < lists.size(); ++l) {
        if (lists[l].second == 0) {
          any_empty = true;
          continue;
        }
        const Record k = read_record(t, lists[l].first);
        if (best < 0 || before(k, best_key)) best = static_cast<int>(l), best_key = k;
      }
      if (best < 0 || (stop_early && any_empty)) return written;
      std::memcpy(out + written * 8, lists[static_cast<size_t>(best)].first, 8);
      lists[static_cast<size_t>(best)].first += 8;
      --lists[static_cast<size_t>(best)].second;
      ++written;
    }
  }

  int64_t mrgsort() {
    RoutineTile &dst = t_[0], &src = t_[1];
    const int64_t rows = vrows(src), cols = vcols(src), block = p_[0];
    if (!extent_rule(cols % (4 * block) == 0, RoutineRule::multiple_of, 1, cols, 4 * block)) return -1;
    if (!fits(dst, rows, cols)) return -1;
    const int64_t block_records = block * es(src) / 8;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t g = 0; g < cols; g += 4 * block) {
        std::vector<std::pair<const uint8_t*, int64_t>> lists;
        for (int b = 0; b < 4; ++b) lists.emplace_back(at(src, r * src.cols + g + b * block), block_records);
        merge(src, std::move(lists), at(dst, r * dst.cols + g), false);
      }
    }
    set_valid(dst, rows, cols);
    return rows * cols;
  }

  int64_t mrgsort2() {
    RoutineTile &dst = t_[0], &tmp = t_[1];
    const int64_t rec = record_elems(dst);
    std::vector<std::pair<const uint8_t*, int64_t>> lists;
    int64_t total = 0;
    for (int i = 2; i < n_; ++i) {
      const RoutineTile& s = t_[i];
      if (!extent_rule(vrows(s) <= 1, RoutineRule::at_most, 0, vrows(s), 1)) return -1;
      const int64_t cols = vrows(s) == 0 ? 0 : vcols(s);
      if (!extent_rule(cols % rec == 0, RoutineRule::multiple_of, 1, cols, rec)) return -1;
      lists.emplace_back(at(s, 0), cols / rec);
      total += cols;
    }
    if (!fits(tmp, 1, total)) return -1;
    const int64_t merged = merge(dst, std::move(lists), at(tmp, 0), p_[0] != 0) * rec;
    set_valid(tmp, 1, merged);
    // dst takes the first records, as many as its valid columns hold (all of its width when
    // nothing has written it).
    const int64_t room = vcols(dst) > 0 ? vcols(dst) : dst.cols;
    const int64_t n = std::min(merged, std::min(room, dst.cols) / rec * rec);
    std::memcpy(at(dst, 0), at(tmp, 0), static_cast<size_t>(n * es(dst)));
    set_valid(dst, 1, n);
    return merged + n;
  }

  RoutineTile* t_;
  int32_t n_;
  std::array<int64_t, 2> p_;
  Fail* fail_ = nullptr;
  std::vector<int64_t> indices_;  // the checked indices of a gather or scatter
};

/// Operands are read before the destination is written: a read operand whose memory is also a
/// written one (one slot named two ways, e.g. g.current() and g[0]) is read from a copy.
/// fillpad in place is the exception: it leaves src's valid part where it is.
void copy_aliased_reads(Routine r, RoutineTile* tiles, int32_t n, int32_t writes, std::vector<std::vector<uint8_t>>& copies) {
  if (r == Routine::FillPad) return;
  auto bytes = [](const RoutineTile& t) { return t.rows * t.cols * static_cast<int64_t>(dtype_size(static_cast<DType>(t.dtype))); };
  for (int32_t i = writes; i < n; ++i) {
    auto* lo = static_cast<uint8_t*>(tiles[i].data);
    bool aliased = false;
    for (int32_t w = 0; w < writes; ++w) {
      auto* wlo = static_cast<uint8_t*>(tiles[w].data);
      aliased |= lo < wlo + bytes(tiles[w]) && wlo < lo + bytes(tiles[i]);
    }
    if (!aliased) continue;
    copies.emplace_back(lo, lo + bytes(tiles[i]));
    tiles[i].data = copies.back().data();
  }
}

int32_t writes_of(Routine r, int32_t n) {
  switch (r) {
    case Routine::Gather: return n == 4 ? 2 : 1;
    case Routine::Sort32: return n == 4 ? 2 : 1;
    case Routine::MrgSort2: return 2;
    default: return 1;
  }
}

}  // namespace

extern "C" int64_t pto_rt_vec_routine(CoreContext* ctx, int32_t instr, int32_t routine, RoutineTile* tiles, int32_t n, int64_t p0,
                                      int64_t p1) {
  const auto r = static_cast<Routine>(routine);
  PTO_INTERNAL_CHECK(n >= 1 && n <= kMaxRoutineOperands) << "a vector routine with " << n << " operands";
  std::vector<std::vector<uint8_t>> copies;  // no reserve: a copy's bytes stay put as the list grows
  copy_aliased_reads(r, tiles, n, writes_of(r, n), copies);
  Fail fail{};
  const int64_t done = RoutineRun(tiles, n, p0, p1).run(r, fail);
  if (done < 0) pto_rt_fail(ctx, instr, static_cast<int32_t>(fail.check), fail.axis, fail.a, fail.b, fail.c);
  return done;
}

}  // namespace pto
