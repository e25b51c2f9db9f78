#pragma once
// Replays of launches seen before, found by the fingerprint of their input (private to the
// emulator).
//
// The replay is a pure function of its input: the cores' traces, their start cycles, the tensors'
// virtual GM bases, the chip profile and whether spans are kept. A repeated launch (the warm-up,
// the repeats of a steady-state baseline, the steps of a profile) records the same traces, so
// its replay is looked up instead of run again: the same cycles, a fingerprint's cost. The
// fingerprint is XXH3-128 over the traces' bytes (their records have no padding, TimedOp.hpp), a
// recorded copy's as it would be written out: one launch, one key, whichever blocks its host
// threads folded; the cache holds the most recently used results up to a byte budget.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "pto/runtime/timing/Replay.hpp"

namespace pto::emulator {

struct ReplayKey {
  uint64_t lo = 0, hi = 0;
  bool operator==(const ReplayKey&) const = default;
};

/// The fingerprint of a replay's input.
ReplayKey fingerprint(const timing::ReplayInput& in);

class ReplayCache {
 public:
  static constexpr size_t kMaxEntries = 16;
  static constexpr size_t kMaxBytes = size_t{64} << 20;

  std::shared_ptr<const timing::ReplayResult> find(const ReplayKey& key);
  void put(const ReplayKey& key, std::shared_ptr<const timing::ReplayResult> result);
  void set_enabled(bool on);
  bool enabled() const;
  uint64_t hits() const;

 private:
  struct Entry {
    ReplayKey key;
    std::shared_ptr<const timing::ReplayResult> result;
    size_t bytes = 0;
    uint64_t used = 0;  // LRU stamp
  };
  mutable std::mutex mu_;
  std::vector<Entry> entries_;
  size_t bytes_ = 0;
  uint64_t clock_ = 0, hits_ = 0;
  bool enabled_ = true;
};

/// The process's replay cache.
ReplayCache& replay_cache();

}  // namespace pto::emulator
