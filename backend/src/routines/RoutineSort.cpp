// Routines that sort records of value and index: sort32, mrgsort, mrgsort2 (RoutineRun.hpp).
#include "RoutineRun.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

#include "pto/support/Float16.hpp"

namespace pto::routines {

// ------------------------------------------------------------------------------ sorting
/// An 8-byte sort record's key: f32 [value, index], f16 [value, 0, index].
struct Record {
  float value;
  uint32_t index;
};
/// The sort order as one integer: the value's bits flipped into descending order (-0 as +0,
/// every NaN last), then the index. Equal ranks: equal values (or both NaN) and one index.
static uint64_t rank(const Record& r) {
  uint32_t bits = std::bit_cast<uint32_t>(r.value == 0 ? 0.0f : r.value);
  bits = std::isnan(r.value) ? ~uint32_t{0} : ~(bits & 0x80000000u ? ~bits : bits | 0x80000000u);
  return (uint64_t{bits} << 32) | r.index;
}
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

int64_t RoutineRun::sort32() {
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

int64_t RoutineRun::mrgsort() {
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

int64_t RoutineRun::mrgsort2() {
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

}  // namespace pto::routines
