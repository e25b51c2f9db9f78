#include "FairShare.hpp"

namespace pto::timing {

void share_fairly(std::span<const double> cap, std::span<const double> use, std::span<const double> count, double capacity,
                  std::span<double> rate, std::vector<int>& open) {
  open.clear();
  for (size_t i = 0; i < cap.size(); ++i) {
    if (count[i] <= 0) continue;
    if (use[i] > 0) {
      open.push_back(static_cast<int>(i));
    } else {
      rate[i] = cap[i];
    }
  }
  // Water-filling in rounds: every transfer that wants no more than an equal share of what is
  // left gets all it wants; when none does, the rest split what is left equally. No sort, and the
  // result depends on the demands only.
  double left = capacity;
  while (!open.empty()) {
    double members = 0;
    for (int i : open) members += count[i];
    const double level = left / members;
    size_t kept = 0;
    for (int i : open) {
      const double want = use[i] * cap[i];
      if (want <= level) {
        rate[i] = cap[i];
        left -= want * count[i];
      } else {
        open[kept++] = i;
      }
    }
    if (kept == open.size()) {
      for (int i : open) rate[i] = level / use[i];
      return;
    }
    open.resize(kept);
  }
}

}  // namespace pto::timing
