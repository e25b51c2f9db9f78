#pragma once
// The cores of a launch that the replay can take as copies of one another (Replay.cpp: folding).
//
// Cores with the same start and the same trace (the same ops, each waiting only on ops of its own
// core, as many GM regions; the regions' addresses may differ) do the same thing at every moment of
// the replay as long as the shared L2 answers each of them as it answers the others: one of them,
// the group's first, is replayed standing for all of them. A core recorded as a copy
// (CoreTrace::copy_of) is in its original's group without a compare.
#include <cstdint>
#include <vector>

#include "pto/runtime/timing/Replay.hpp"

namespace pto::timing {

struct CoreGroups {
  std::vector<uint32_t> group;  // per core of the launch, its group
  std::vector<uint32_t> first;  // per group, its lowest core (the one replayed), ascending
  std::vector<uint32_t> size;   // per group, how many cores it has

  /// Every core a group of its own: nothing folds.
  static CoreGroups each_alone(size_t cores);
  bool folds() const { return first.size() < group.size(); }
};

/// The launch's cores grouped as copies (each alone if `in.fold_identical_cores` is off, if any
/// core waits on another core's op, if more than half the cores would be groups of their own, or
/// if a recorded copy starts apart from its original). A group's first core is never a recorded copy.
CoreGroups group_copies(const ReplayInput& in);

}  // namespace pto::timing
