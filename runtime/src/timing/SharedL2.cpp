#include "SharedL2.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "pto/support/Error.hpp"

namespace pto::timing {
namespace {

constexpr int kWays16 = 16;  // the profiles' way count: a SIMD path

/// One touch of `tag` in a set of `ways` tags kept most recent first: moves it to the front, or
/// on a miss drops the last (the least recently used) and puts it there. Whether it hit. Portable.
bool touch_set(uint32_t* tags, int ways, uint32_t tag) {
  int way = 0;
  while (way < ways - 1 && tags[way] != tag) ++way;
  const bool hit = tags[way] == tag;
  std::memmove(tags + 1, tags, static_cast<size_t>(way) * sizeof(uint32_t));
  tags[0] = tag;
  return hit;
}

/// The same for 16 ways in AVX-512 (the set is one zmm): lanes 0..way take their left neighbour
/// (lane 0 the tag), the others stay. The same answers and the same order as touch_set. (A set-
/// associative L2 past a launch's footprint touches one set a line: on a 48-core vector add, a
/// scan for the oldest of 16 stamps was a sixth of the replay, and the stamps half its memory.)
__attribute__((target("avx512f"))) bool touch_set16_avx512(uint32_t* tags, uint32_t tag) {
  const __m512i t = _mm512_set1_epi32(static_cast<int>(tag));
  const __m512i set = _mm512_loadu_si512(tags);
  const unsigned found = _mm512_cmpeq_epu32_mask(set, t);
  const int way = found != 0 ? std::countr_zero(found) : kWays16 - 1;
  const auto moved = static_cast<__mmask16>((2u << way) - 1);  // lanes 0..way take (tag, set[0..14])
  _mm512_storeu_si512(tags, _mm512_mask_alignr_epi32(set, moved, set, t, 15));
  return found != 0;
}

/// Touches `count` lines, from set `set` and tag `tag` on (the next line is in the next set; past
/// the last set, the first with the next tag), with `touch` (one of the two above): how many hit.
template <class Touch>
[[gnu::always_inline]] inline uint64_t touch_run(uint32_t* tags, int ways, uint64_t sets, uint64_t set, uint64_t tag, uint64_t count,
                                                 const Touch& touch) {
  uint64_t hits = 0;
  for (uint64_t i = 0; i < count; ++i) {
    hits += touch(tags + set * static_cast<uint64_t>(ways), static_cast<uint32_t>(tag)) ? 1 : 0;
    if (++set == sets) set = 0, ++tag;
  }
  return hits;
}
struct TouchPortable {
  int ways;
  bool operator()(uint32_t* set, uint32_t tag) const { return touch_set(set, ways, tag); }
};
struct Touch16Avx512 {
  __attribute__((target("avx512f"))) bool operator()(uint32_t* set, uint32_t tag) const { return touch_set16_avx512(set, tag); }
};
/// touch_run of 16-way sets with the loop in AVX-512 code, so that each touch is inlined into it
/// (called once a line, it was a third of the set-associative model's time on a 48-core replay).
__attribute__((target("avx512f"))) uint64_t touch_run16_avx512(uint32_t* tags, uint64_t sets, uint64_t set, uint64_t tag, uint64_t count) {
  return touch_run(tags, kWays16, sets, set, tag, count, Touch16Avx512{});
}

}  // namespace

SharedL2::SharedL2(int64_t bytes, int64_t line_bytes, int ways, uint64_t footprint, Storage& storage)
    : line_(std::max<int64_t>(1, line_bytes)), line_shift_(std::countr_zero(static_cast<uint64_t>(line_))), ways_(std::max(1, ways)),
      sets_(std::max<uint64_t>(1, static_cast<uint64_t>(bytes / line_ / ways_))),
      fits_(footprint > 0 && footprint <= static_cast<uint64_t>(bytes) && std::has_single_bit(static_cast<uint64_t>(line_))),
      present_(storage.present), tags_(storage.tags), seen_(storage.rectangles) {
  if (fits_) present_.assign((footprint / static_cast<uint64_t>(line_) + 64) / 64, 0);
  seen_.clear();
}

SharedL2::Outcome SharedL2::access_rows(uint64_t addr, uint64_t len, uint64_t stride, uint64_t rows) {
  uint64_t hit = 0, fetched = 0;
  if (len > 0) {
    if (fits_) {
      if (rows > 0 && ((addr + (rows - 1) * stride + len - 1) >> line_shift_) >= present_.size() * 64) {
        throw InternalError("replay: a GM access past the launch's footprint (the L2 model's bitmap)");
      }
      if (rows > 1 && seen_before(addr, len, stride, rows)) return {static_cast<double>(rows * len), 0};
      for (uint64_t r = 0; r < rows; ++r, addr += stride) touch_bitmap(addr, len, hit, fetched);
    } else {
      if (!tags_ready_) {
        tags_.assign(sets_ * static_cast<uint64_t>(ways_), kEmpty);
        tags_ready_ = true;
      }
      for (uint64_t r = 0; r < rows; ++r, addr += stride) touch_sets(addr, len, hit, fetched);
    }
  }
  return {static_cast<double>(hit), static_cast<double>(fetched)};
}

bool SharedL2::seen_before(uint64_t addr, uint64_t len, uint64_t stride, uint64_t rows) {
  constexpr uint64_t kEmptySlot = ~uint64_t{0};
  if (seen_.empty()) seen_.assign(256, {kEmptySlot, 0, 0, 0});
  const std::array<uint64_t, 4> key{addr, len, stride, rows};
  const size_t mask = seen_.size() - 1;
  const uint64_t hash = (addr + len * 0x9E37 + rows * 0x79B9) * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing: the high bits
  for (size_t i = static_cast<size_t>(hash >> 40);; ++i) {
    std::array<uint64_t, 4>& slot = seen_[i & mask];
    if (slot == key) return true;
    if (slot[0] != kEmptySlot) continue;
    if (2 * (seen_count_ + 1) > seen_.size()) {  // full to half: grow, or stop remembering
      if (seen_.size() >= kMaxRectangles) return false;
      std::vector<std::array<uint64_t, 4>> old(2 * seen_.size(), {kEmptySlot, 0, 0, 0});
      old.swap(seen_);
      seen_count_ = 0;
      for (const auto& r : old) {
        if (r[0] != kEmptySlot) seen_before(r[0], r[1], r[2], r[3]);
      }
      return seen_before(addr, len, stride, rows);
    }
    slot = key;
    ++seen_count_;
    return false;
  }
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
  const bool wide = simd && ways_ == kWays16;
  const uint64_t line = static_cast<uint64_t>(line_);
  const uint64_t first = addr / line, last = (addr + len - 1) / line;
  if (last / sets_ >= kEmpty) throw InternalError("a GM address too far for the L2 model's 32-bit tags");
  // Line l is in set l % sets_ with tag l / sets_ (one division a range, not two a line: the
  // division was a tenth of the replay of a 48-core launch). The lines in order: the first and the
  // last may be partly in the range, the ones between are whole.
  auto run = [&](uint64_t from, uint64_t count) {
    return wide ? touch_run16_avx512(tags_.data(), sets_, from % sets_, from / sets_, count)
                : touch_run(tags_.data(), ways_, sets_, from % sets_, from / sets_, count, TouchPortable{ways_});
  };
  auto edge = [&](uint64_t l) {
    if (run(l, 1) != 0) {
      hit += std::min(addr + len, (l + 1) * line) - std::max(addr, l * line);  // the part of the line in range
    } else {
      fetched += line;
    }
  };
  edge(first);
  if (last == first) return;
  // The lines between (none for a range on two lines: a 2-D tile's short rows; no set to find).
  if (const uint64_t whole = last - first - 1; whole > 0) {
    const uint64_t hits = run(first + 1, whole);
    hit += hits * line;
    fetched += (whole - hits) * line;
  }
  edge(last);
}

}  // namespace pto::timing
