#include "FairShare.hpp"

#include <algorithm>

namespace pto::timing {

void share_fairly(std::span<const double> cap, std::span<const double> use, double capacity, std::span<double> rate,
                  std::vector<int>& order) {
  order.clear();
  for (size_t i = 0; i < cap.size(); ++i) {
    if (use[i] > 0) {
      order.push_back(static_cast<int>(i));
    } else {
      rate[i] = cap[i];
    }
  }
  // Smallest demand first; ties by index, so the result never depends on the sort's stability.
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const double da = use[a] * cap[a], db = use[b] * cap[b];
    return da != db ? da < db : a < b;
  });
  double left = capacity;
  size_t k = order.size();
  for (int i : order) {
    const double level = left / static_cast<double>(k);
    const double got = std::min(use[i] * cap[i], level);
    rate[i] = got / use[i];
    left -= got;
    --k;
  }
}

}  // namespace pto::timing
