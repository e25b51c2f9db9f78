#pragma once
// Timed launches whose traces are known before they run (private to the emulator).
//
// What a core records for the pipeline model (its instructions, their amounts, tile slots and GM
// regions, its flags and mutexes) is computed from scalars and valid extents only. When neither
// comes from data (no element read into a scalar, ir::ElemAccess; no mrgsort2 that stops when a
// list is exhausted, whose merged count is the data's) and the kernel has no debugging aid, its
// traces are a function of the launch's block_dim, scalars and tensor shapes, views and aliasing,
// and so is everything the profile derives from them: the replay (a pure function of the traces
// and the tensors' virtual bases, ReplayCache.hpp), the races within and between cores, the
// counters. A repeated launch of such a kernel with the same arguments (the warm-up, the repeats
// of a baseline, a tuning loop's steps) then runs its cores with the model's hooks turned into
// no-ops and takes the profile of the first. Results are computed as always (the code is the
// same), runtime checks still fail a launch, cross-core flags still order the cores.
//
// A launch that failed is never kept. The known profiles follow the replay cache: with it off
// (set_replay_cache(false)), every launch records and replays.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/LaunchProfile.hpp"

namespace pto {

struct KnownLaunches {
  struct Key {
    uint64_t lo = 0, hi = 0;
    bool operator==(const Key&) const = default;
  };
  static constexpr size_t kMaxEntries = 8;

  /// Whether the kernel's traces follow from its launch arguments (computed once).
  bool applies(const CompiledKernel& k);
  std::shared_ptr<const LaunchProfile> find(const Key& key);
  void put(const Key& key, std::shared_ptr<const LaunchProfile> profile);

 private:
  struct Entry {
    Key key;
    std::shared_ptr<const LaunchProfile> profile;
    uint64_t used = 0;  // LRU stamp
  };
  std::once_flag checked_;
  bool applies_ = false;
  std::mutex mu_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

namespace emulator {

/// The fingerprint of what a launch's traces follow from: block_dim, the scalars, the TilingKey, each tensor's
/// dtype, shape, strides, storage extent and offset, which tensors share storage, and whether
/// the profile keeps spans (profiling).
KnownLaunches::Key known_launch_key(const CompiledKernel& k, const detail::LaunchArgs& args, int block_dim, bool record);

/// Whether every scalar and valid extent of the kernel follows from its launch arguments: no
/// element of a tile or tensor read into a scalar, no exhausting mrgsort2, and no debugging aid
/// (their output is placed by the replay).
bool trace_follows_arguments(const CompiledKernel& k);

}  // namespace emulator
}  // namespace pto
