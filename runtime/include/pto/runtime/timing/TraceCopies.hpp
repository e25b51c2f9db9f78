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

/// The elements a region of `tensor` lies further on in a copy moved by `shift` (0 for a tensor
/// past its end, or none).
inline int64_t shift_of(std::span<const int64_t> shift, int32_t tensor) {
  return tensor >= 0 && static_cast<size_t>(tensor) < shift.size() ? shift[static_cast<size_t>(tensor)] : 0;
}

/// Region `i` of core `c` of `cores` (a launch's traces): `region`, `shift` elements further on
/// (a copy's is its original's, moved; a core's own, 0). Two values, not a GmRegion moved and
/// returned: the replay reads it once a transfer of every core, and a region copied through the
/// stack in parts is read back before the parts can be forwarded.
struct RegionAt {
  const GmRegion& region;
  int64_t shift;
};
inline RegionAt region_of(std::span<const CoreTrace* const> cores, size_t c, size_t i) {
  const CoreTrace& t = *cores[c];
  if (t.copy_of < 0) return {t.regions[i], 0};
  const GmRegion& r = cores[static_cast<size_t>(t.copy_of)]->regions[i];
  return {r, shift_of(t.shift, r.tensor)};
}

/// Whether some core of `cores` is a copy.
bool has_copies(std::span<const CoreTrace* const> cores);

/// `cores` with each copy made whole, its ops, deps and regions written out (into `whole`, which
/// must outlive the result's use): the pointers, in `made`.
std::span<const CoreTrace* const> whole_traces(std::span<const CoreTrace* const> cores, std::vector<CoreTrace>& whole,
                                               std::vector<const CoreTrace*>& made);

}  // namespace pto::timing
