#pragma once
// The L2 shared by every core of a chip: set-associative with LRU replacement, write-allocate
// (writes also go through to HBM, so a later read of written data hits). A launch whose GM
// footprint fits in the L2 never evicts, so it keeps one bit per line instead (the same answers,
// at a fraction of the cost; for a line size that is a power of two, as every profile's is).
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pto::timing {

class SharedL2 {
 public:
  /// The model's tables, kept by the caller between models so that a replay does not map, fault in
  /// and zero fresh pages each time (the bitmap of a launch with a 192 MiB footprint is 192 KiB,
  /// past malloc's mmap threshold).
  struct Storage {
    std::vector<uint64_t> present;
    std::vector<uint32_t> tags;
    std::vector<std::array<uint64_t, 4>> rectangles;  // seen_ (addr, len, stride, rows; addr ~0: empty)
  };
  /// `footprint`: the bytes of GM addresses the launch can touch, from 0 (0: unknown). `storage`
  /// is cleared and used for this model's life.
  SharedL2(int64_t bytes, int64_t line_bytes, int ways, uint64_t footprint, Storage& storage);
  struct Outcome {
    double hit_bytes = 0;     // bytes of the range in lines that were present
    double fetched_bytes = 0; // whole lines brought in for the rest (HBM moves lines, not bytes)
  };
  /// Touches [addr, addr + len), allocating the lines that were not present.
  Outcome access(uint64_t addr, uint64_t len) { return access_rows(addr, len, 0, 1); }
  /// Touches `rows` ranges of `len` bytes, `stride` bytes apart from `addr` on, in that order: what
  /// touching each with access() gives, in one call (the rows of a tile of a wider view: a matmul's
  /// A tiles are 128 rows of 128 bytes).
  Outcome access_rows(uint64_t addr, uint64_t len, uint64_t stride, uint64_t rows);

 private:
  /// One range, into `hit` and `fetched` bytes: with the bitmap, and with the sets. Defined in
  /// SharedL2.cpp, their only user (access_rows' loop over rows): the bitmap inline, the sets not
  /// (inlined, they cost the bitmap path 3% of an 8-core vector add's replay).
  inline void touch_bitmap(uint64_t addr, uint64_t len, uint64_t& hit, uint64_t& fetched);
  [[gnu::noinline]] void touch_sets(uint64_t addr, uint64_t len, uint64_t& hit, uint64_t& fetched);
  /// With the bitmap, whether these rows were touched before, remembering them if not: a line
  /// once present stays, so touching them again hits every byte. A matmul reads each A and B
  /// tile once per tile of C in its row or column (1024^3 f16 on 24 cores: 2048 tiles of 64-128
  /// rows, a third of its replay spent touching them row by row).
  bool seen_before(uint64_t addr, uint64_t len, uint64_t stride, uint64_t rows);

  int64_t line_;
  int line_shift_;  // log2(line_) when the footprint fits (line_ is then a power of two)
  int ways_;
  uint64_t sets_;
  bool fits_;                        // the footprint fits: present_ holds one bit per line
  std::vector<uint64_t>& present_;
  // Per set, its ways' tags in recency order, the most recently used first (sets_ * ways_, set
  // up on first use; empty ways hold kEmpty and sit at the end). A touch moves its line to the
  // front; a miss drops the last, the least recently used: LRU with no stamps to keep or scan.
  // Tags are 32 bits (a line's index over the set count; on a2's L2 that covers 48 PiB of GM):
  // 16 ways are one cache line and one zmm.
  static constexpr uint32_t kEmpty = ~uint32_t{0};
  std::vector<uint32_t>& tags_;
  bool tags_ready_ = false;
  // Open addressing over a power-of-two table, filled to half at most (then rows are touched
  // without being remembered): at most kMaxRectangles.
  static constexpr size_t kMaxRectangles = 1u << 14;
  std::vector<std::array<uint64_t, 4>>& seen_;
  size_t seen_count_ = 0;
};

}  // namespace pto::timing
