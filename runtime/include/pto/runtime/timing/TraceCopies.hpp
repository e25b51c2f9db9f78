#pragma once
// Cores of a launch recorded as copies of another core (CoreTrace::copy_of): what their traces
// hold, read without making them whole, or made whole for a replay that takes each core on its own.
//
// Play folding (emulator: a block whose hook calls are its twin's with each tensor's GM regions
// one shift further on) records such a copy instead of the twin's ops again: on vector_add 16M
// (8 blocks) six of the eight cores, whose whole traces took 0.1 ms of a launch to write and the
// replay's fold to compare byte by byte.
#include <cstddef>
#include <span>
#include <vector>

#include "pto/runtime/timing/TimedOp.hpp"

namespace pto::timing {

/// `r` moved `shift[r.tensor]` elements further on (0 for a tensor past the end or none).
inline GmRegion moved(GmRegion r, std::span<const int64_t> shift) {
  if (r.tensor >= 0 && static_cast<size_t>(r.tensor) < shift.size()) {
    const int64_t d = shift[static_cast<size_t>(r.tensor)];
    r.lo += d, r.hi += d;
  }
  return r;
}

/// Region `i` of core `c` of `cores` (a launch's traces): a copy's is its original's, moved.
inline GmRegion region_of(std::span<const CoreTrace* const> cores, size_t c, size_t i) {
  const CoreTrace& t = *cores[c];
  if (t.copy_of < 0) return t.regions[i];
  return moved(cores[static_cast<size_t>(t.copy_of)]->regions[i], t.shift);
}

/// Whether some core of `cores` is a copy.
bool has_copies(std::span<const CoreTrace* const> cores);

/// `cores` with each copy made whole, its ops, deps and regions written out (into `whole`, which
/// must outlive the result's use): the pointers, in `made`.
std::span<const CoreTrace* const> whole_traces(std::span<const CoreTrace* const> cores, std::vector<CoreTrace>& whole,
                                               std::vector<const CoreTrace*>& made);

}  // namespace pto::timing
