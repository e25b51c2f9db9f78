#include "SharedL2.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace pto::timing {
namespace {

// Scans of a set's ways, portable. (GCC leaves these loops scalar for the baseline target: on a
// 48-core launch past the L2 they were 60% of the replay; AVX-512 hosts take the versions below.)

/// The way holding `tag`, or -1.
template <int kWays>
int find_tag(const uint64_t* tags, uint64_t tag, int ways) {
  const int n = kWays > 0 ? kWays : ways;
  int way = -1;
  for (int i = 0; i < n; ++i) way = tags[i] == tag ? i : way;
  return way;
}
/// The least recently used way (the first of equals).
template <int kWays>
int oldest(const uint64_t* used, int ways) {
  const int n = kWays > 0 ? kWays : ways;
  int way = 0;
  for (int i = 1; i < n; ++i) way = used[i] < used[way] ? i : way;
  return way;
}

// The same two scans for 16 ways in AVX-512 (two zmm of tags or stamps), the same answers.
__attribute__((target("avx512f"))) int find_tag16_avx512(const uint64_t* tags, uint64_t tag) {
  const __m512i t = _mm512_set1_epi64(static_cast<long long>(tag));
  const unsigned hits = _mm512_cmpeq_epu64_mask(_mm512_loadu_si512(tags), t) |
                        (static_cast<unsigned>(_mm512_cmpeq_epu64_mask(_mm512_loadu_si512(tags + 8), t)) << 8);
  return hits != 0 ? 31 - std::countl_zero(hits) : -1;  // the last, as find_tag
}
__attribute__((target("avx512f"))) int oldest16_avx512(const uint64_t* used) {
  // In GCC vector types: the reduce intrinsics trip GCC 12's uninitialized warnings.
  using V = uint64_t __attribute__((vector_size(64)));
  V lo, hi;
  std::memcpy(&lo, used, sizeof lo);
  std::memcpy(&hi, used + 8, sizeof hi);
  V m = lo < hi ? lo : hi;
  V s = __builtin_shuffle(m, V{4, 5, 6, 7, 0, 1, 2, 3});
  m = m < s ? m : s;
  s = __builtin_shuffle(m, V{2, 3, 0, 1, 6, 7, 4, 5});
  m = m < s ? m : s;
  s = __builtin_shuffle(m, V{1, 0, 3, 2, 5, 4, 7, 6});
  m = m < s ? m : s;  // every lane: the least stamp
  const auto l = reinterpret_cast<__m512i>(m);
  const unsigned at = _mm512_cmpeq_epu64_mask(reinterpret_cast<__m512i>(lo), l) |
                      (static_cast<unsigned>(_mm512_cmpeq_epu64_mask(reinterpret_cast<__m512i>(hi), l)) << 8);
  return std::countr_zero(at);  // the first of equals, as oldest
}

}  // namespace

SharedL2::SharedL2(int64_t bytes, int64_t line_bytes, int ways, uint64_t footprint, Storage& storage)
    : line_(std::max<int64_t>(1, line_bytes)), line_shift_(std::countr_zero(static_cast<uint64_t>(line_))), ways_(std::max(1, ways)),
      sets_(std::max<uint64_t>(1, static_cast<uint64_t>(bytes / line_ / ways_))),
      fits_(footprint > 0 && footprint <= static_cast<uint64_t>(bytes) && std::has_single_bit(static_cast<uint64_t>(line_))),
      present_(storage.present), tags_(storage.tags), used_(storage.used) {
  if (fits_) present_.assign((footprint / static_cast<uint64_t>(line_) + 64) / 64, 0);
}

SharedL2::Outcome SharedL2::access_rows(uint64_t addr, uint64_t len, uint64_t stride, uint64_t rows) {
  uint64_t hit = 0, fetched = 0;
  if (len > 0) {
    if (fits_) {
      for (uint64_t r = 0; r < rows; ++r, addr += stride) touch_bitmap(addr, len, hit, fetched);
    } else {
      if (!tags_ready_) {
        tags_.assign(sets_ * static_cast<uint64_t>(ways_), kEmpty);
        used_.assign(tags_.size(), 0);
        tags_ready_ = true;
      }
      for (uint64_t r = 0; r < rows; ++r, addr += stride) touch_sets(addr, len, hit, fetched);
    }
  }
  return {static_cast<double>(hit), static_cast<double>(fetched)};
}

void SharedL2::touch_bitmap(uint64_t addr, uint64_t len, uint64_t& hit, uint64_t& fetched) {
  const uint64_t line = static_cast<uint64_t>(line_);
  // Lines [first, last]: the two edge lines may be partly in the range; the ones between are
  // whole, taken 64 to a bitmap word. (Line sizes are powers of two: shifts, not divisions.)
  const uint64_t first = addr >> line_shift_, last = (addr + len - 1) >> line_shift_;
  auto one = [&](uint64_t l) {
    uint64_t& word = present_[l / 64];
    const uint64_t bit = uint64_t{1} << (l % 64);
    if (word & bit) {
      hit += std::min(addr + len, (l + 1) * line) - std::max(addr, l * line);
    } else {
      fetched += line;
      word |= bit;
    }
  };
  one(first);
  if (last == first) return;
  one(last);
  uint64_t present = 0, total = 0;
  for (uint64_t l = first + 1; l < last;) {
    const uint64_t w = l / 64, lo = l % 64, n = std::min<uint64_t>(64 - lo, last - l);
    const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << lo;
    present += static_cast<uint64_t>(std::popcount(present_[w] & mask));
    total += n;
    present_[w] |= mask;
    l += n;
  }
  hit += present * line;
  fetched += (total - present) * line;
}

void SharedL2::touch_sets(uint64_t addr, uint64_t len, uint64_t& hit, uint64_t& fetched) {
  static const bool simd = __builtin_cpu_supports("avx512f");
  const bool wide = simd && ways_ == kCommonWays;
  const uint64_t line = static_cast<uint64_t>(line_);
  const uint64_t first = addr / line, last = (addr + len - 1) / line;
  // Line l is in set l % sets_ with tag l / sets_: the next line is in the next set (one division
  // a range, not two a line: the division was a tenth of the replay of a 48-core launch).
  uint64_t set = first % sets_, tag = first / sets_;
  for (uint64_t l = first; l <= last; ++l) {
    const uint64_t first_way = set * static_cast<uint64_t>(ways_);
    uint64_t* tags = &tags_[first_way];
    uint64_t* used = &used_[first_way];
    int way = wide ? find_tag16_avx512(tags, tag) : ways_ == kCommonWays ? find_tag<kCommonWays>(tags, tag, ways_) : find_tag<0>(tags, tag, ways_);
    if (way >= 0) {
      hit += std::min(addr + len, (l + 1) * line) - std::max(addr, l * line);  // the part of the line in range
    } else {
      // Empty ways have stamp 0.
      way = wide ? oldest16_avx512(used) : ways_ == kCommonWays ? oldest<kCommonWays>(used, ways_) : oldest<0>(used, ways_);
      fetched += line;
      tags[way] = tag;
    }
    used[way] = ++clock_;
    if (++set == sets_) set = 0, ++tag;
  }
}

}  // namespace pto::timing
