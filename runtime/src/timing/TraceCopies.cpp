#include "pto/runtime/timing/TraceCopies.hpp"

#include <algorithm>

#include "pto/support/Error.hpp"

namespace pto::timing {

bool has_copies(std::span<const CoreTrace* const> cores) {
  return std::any_of(cores.begin(), cores.end(), [](const CoreTrace* t) { return t->copy_of >= 0; });
}

std::span<const CoreTrace* const> whole_traces(std::span<const CoreTrace* const> cores, std::vector<CoreTrace>& whole,
                                               std::vector<const CoreTrace*>& made) {
  made.assign(cores.begin(), cores.end());
  whole.clear();
  whole.reserve(cores.size());  // no reallocation: `made` points into it
  for (size_t c = 0; c < cores.size(); ++c) {
    const CoreTrace& t = *cores[c];
    if (t.copy_of < 0) continue;
    const auto o = static_cast<size_t>(t.copy_of);
    if (o >= cores.size() || cores[o]->copy_of >= 0) {
      throw InternalError("replay: a copied core's original is not a recorded core of the launch (CoreTrace::copy_of)");
    }
    const CoreTrace& original = *cores[o];
    CoreTrace& w = whole.emplace_back();
    w.kind = t.kind;
    w.slot = t.slot;
    w.ops = original.ops;
    const int32_t delta = static_cast<int32_t>(c) - t.copy_of;
    w.deps.reserve(original.deps.size());
    for (const OpRef& d : original.deps) w.deps.push_back({d.core + delta, d.op});
    w.regions.reserve(original.regions.size());
    for (const GmRegion& r : original.regions) {
      const int64_t d = shift_of(t.shift, r.tensor);
      GmRegion& m = w.regions.emplace_back(r);
      m.lo += d, m.hi += d;
    }
    made[c] = &w;
  }
  return made;
}

}  // namespace pto::timing
