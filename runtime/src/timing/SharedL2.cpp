#include "SharedL2.hpp"

#include <algorithm>
#include <bit>

namespace pto::timing {
namespace {

// Scans of a set's ways. No early exit: tight loops the compiler vectorises when the way count is
// a constant (kWays > 0: the profiles' 16; 0: `ways` at run time).

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

}  // namespace

SharedL2::SharedL2(int64_t bytes, int64_t line_bytes, int ways, uint64_t footprint, Storage& storage)
    : line_(std::max<int64_t>(1, line_bytes)), line_shift_(std::countr_zero(static_cast<uint64_t>(line_))), ways_(std::max(1, ways)),
      sets_(std::max<uint64_t>(1, static_cast<uint64_t>(bytes / line_ / ways_))),
      fits_(footprint > 0 && footprint <= static_cast<uint64_t>(bytes) && std::has_single_bit(static_cast<uint64_t>(line_))),
      present_(storage.present), tags_(storage.tags), used_(storage.used) {
  if (fits_) present_.assign((footprint / static_cast<uint64_t>(line_) + 64) / 64, 0);
}

SharedL2::Outcome SharedL2::access(uint64_t addr, uint64_t len) {
  Outcome out;
  if (len == 0) return out;
  const uint64_t line = static_cast<uint64_t>(line_);
  if (fits_) {
    // Lines [first, last]: the two edge lines may be partly in the range; the ones between are
    // whole, taken 64 to a bitmap word. (Line sizes are powers of two: shifts, not divisions.)
    const uint64_t first = addr >> line_shift_, last = (addr + len - 1) >> line_shift_;
    auto one = [&](uint64_t l) {
      uint64_t& word = present_[l / 64];
      const uint64_t bit = uint64_t{1} << (l % 64);
      if (word & bit) {
        out.hit_bytes += static_cast<double>(std::min(addr + len, (l + 1) * line) - std::max(addr, l * line));
      } else {
        out.fetched_bytes += static_cast<double>(line);
        word |= bit;
      }
    };
    one(first);
    if (last != first) one(last);
    uint64_t present = 0, total = 0;
    for (uint64_t l = first + 1; l < last;) {
      const uint64_t w = l / 64, lo = l % 64, n = std::min<uint64_t>(64 - lo, last - l);
      const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << lo;
      present += static_cast<uint64_t>(std::popcount(present_[w] & mask));
      total += n;
      present_[w] |= mask;
      l += n;
    }
    out.hit_bytes += static_cast<double>(present * line);
    out.fetched_bytes += static_cast<double>((total - present) * line);
    return out;
  }
  if (!tags_ready_) {
    tags_.assign(sets_ * static_cast<uint64_t>(ways_), kEmpty);
    used_.assign(tags_.size(), 0);
    tags_ready_ = true;
  }
  for (uint64_t l = addr / line, last = (addr + len - 1) / line; l <= last; ++l) {
    const uint64_t first_way = (l % sets_) * static_cast<uint64_t>(ways_);
    uint64_t* tags = &tags_[first_way];
    uint64_t* used = &used_[first_way];
    const uint64_t tag = l / sets_;
    int way = ways_ == kCommonWays ? find_tag<kCommonWays>(tags, tag, ways_) : find_tag<0>(tags, tag, ways_);
    if (way >= 0) {
      const uint64_t lo = std::max(addr, l * line), hi = std::min(addr + len, (l + 1) * line);  // the part of the line in range
      out.hit_bytes += static_cast<double>(hi - lo);
    } else {
      way = ways_ == kCommonWays ? oldest<kCommonWays>(used, ways_) : oldest<0>(used, ways_);  // empty ways have stamp 0
      out.fetched_bytes += static_cast<double>(line);
      tags[way] = tag;
    }
    used[way] = ++clock_;
  }
  return out;
}

}  // namespace pto::timing
