#include "SharedL2.hpp"

#include <algorithm>
#include <bit>

namespace pto::timing {

SharedL2::SharedL2(int64_t bytes, int64_t line_bytes, int ways, uint64_t footprint)
    : line_(std::max<int64_t>(1, line_bytes)), ways_(std::max(1, ways)),
      sets_(std::max<uint64_t>(1, static_cast<uint64_t>(bytes / line_ / ways_))),
      fits_(footprint > 0 && footprint <= static_cast<uint64_t>(bytes)) {
  if (fits_) present_.assign((footprint / static_cast<uint64_t>(line_) + 64) / 64, 0);
}

SharedL2::Outcome SharedL2::access(uint64_t addr, uint64_t len) {
  Outcome out;
  if (len == 0) return out;
  const uint64_t line = static_cast<uint64_t>(line_);
  if (fits_) {
    // Lines [first, last]: the two edge lines may be partly in the range; the ones between are
    // whole, taken 64 to a bitmap word.
    const uint64_t first = addr / line, last = (addr + len - 1) / line;
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
  if (ways_store_.empty()) ways_store_.resize(sets_ * static_cast<uint64_t>(ways_));
  for (uint64_t l = addr / line, last = (addr + len - 1) / line; l <= last; ++l) {
    Way* w = &ways_store_[(l % sets_) * static_cast<uint64_t>(ways_)];
    const uint64_t tag = l / sets_;
    Way* victim = w;
    bool hit = false;
    for (int i = 0; i < ways_; ++i) {
      if (w[i].tag == tag) {
        victim = &w[i];
        hit = true;
        break;
      }
      if (w[i].used < victim->used) victim = &w[i];
    }
    if (hit) {
      const uint64_t lo = std::max(addr, l * line), hi = std::min(addr + len, (l + 1) * line);  // the part of the line in range
      out.hit_bytes += static_cast<double>(hi - lo);
    } else {
      out.fetched_bytes += static_cast<double>(line);
      victim->tag = tag;
    }
    victim->used = ++clock_;
  }
  return out;
}

}  // namespace pto::timing
