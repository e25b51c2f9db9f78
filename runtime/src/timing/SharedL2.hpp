#pragma once
// The L2 shared by every core of a chip: set-associative with LRU replacement, write-allocate
// (writes also go through to HBM, so a later read of written data hits). Only the sets a launch
// touches take memory.
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace pto::timing {

class SharedL2 {
 public:
  SharedL2(int64_t bytes, int64_t line_bytes, int ways);
  struct Outcome {
    double hit_bytes = 0;     // bytes of the range in lines that were present
    double fetched_bytes = 0; // whole lines brought in for the rest (HBM moves lines, not bytes)
  };
  /// Touches [addr, addr + len), allocating the lines that were not present.
  Outcome access(uint64_t addr, uint64_t len);

 private:
  struct Way {
    uint64_t tag = ~uint64_t{0};
    uint64_t used = 0;  // LRU stamp
  };
  Way* set(uint64_t index);
  int64_t line_;
  int ways_;
  uint64_t sets_;
  uint64_t clock_ = 0;
  std::unordered_map<uint64_t, uint32_t> set_at_;  // set index -> first way in ways_store_
  std::vector<Way> ways_store_;
};

}  // namespace pto::timing
