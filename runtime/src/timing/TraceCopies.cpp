#include "pto/runtime/timing/TraceCopies.hpp"

#include <algorithm>

#include "CopyRecords.hpp"

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
    made[c] = &whole.emplace_back(CopyRecords(cores, c).written_out());
  }
  return made;
}

}  // namespace pto::timing
