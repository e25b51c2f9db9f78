#pragma once
// A recorded copy (CoreTrace::copy_of, TraceCopies.hpp) written out record by record: the one
// place its deps and regions are moved, for the replay core by core (whole_traces), the replay
// cache's fingerprint, which hashes a copy as written out without writing it, same_input, and
// predict_copies (private to the runtime).
#include <cstddef>
#include <cstdint>
#include <span>

#include "pto/runtime/timing/TraceCopies.hpp"
#include "pto/support/Error.hpp"

namespace pto::timing {

class CopyRecords {
 public:
  /// Core `c` of `cores`, a copy. Throws InternalError if its original is not a recorded core.
  CopyRecords(std::span<const CoreTrace* const> cores, size_t c) : original_(original_of(cores, c)), copy_(*cores[c]) {
    delta_ = static_cast<int32_t>(c) - copy_.copy_of;
  }
  const CoreTrace& original() const { return original_; }
  /// Dep i: the original's, on the same core of the copy's block.
  OpRef dep(size_t i) const {
    OpRef d = original_.deps[i];
    d.core += delta_;
    return d;
  }
  /// Region i: the original's, moved by the copy's shift.
  GmRegion region(size_t i) const {
    GmRegion r = original_.regions[i];
    const int64_t d = shift_of(copy_.shift, r.tensor);
    r.lo += d, r.hi += d;
    return r;
  }
  /// The copy written out: its kind and slot, the original's ops, deps and regions moved.
  CoreTrace written_out() const {
    CoreTrace w;
    w.kind = copy_.kind;
    w.slot = copy_.slot;
    w.ops = original_.ops;
    w.deps.resize(original_.deps.size());
    for (size_t i = 0; i < w.deps.size(); ++i) w.deps[i] = dep(i);
    w.regions.resize(original_.regions.size());
    for (size_t i = 0; i < w.regions.size(); ++i) w.regions[i] = region(i);
    return w;
  }

 private:
  static const CoreTrace& original_of(std::span<const CoreTrace* const> cores, size_t c) {
    const auto o = static_cast<size_t>(cores[c]->copy_of);
    if (o >= cores.size() || cores[o]->copy_of >= 0) {
      throw InternalError("replay: a copied core's original is not a recorded core of the launch (CoreTrace::copy_of)");
    }
    return *cores[o];
  }

  const CoreTrace& original_;
  const CoreTrace& copy_;
  int32_t delta_ = 0;
};

}  // namespace pto::timing
