#pragma once
// Max-min fair sharing of one resource (HBM, or the L2's bandwidth) among the transfers in flight.
#include <span>
#include <vector>

namespace pto::timing {

/// Group i holds count[i] transfers, each moving at rate[i] <= cap[i] and using use[i] * rate[i]
/// of a resource of `capacity` (use[i]: the fraction of its bytes that go through the resource).
/// Water-filling: no transfer gets more of the resource than another that wants more; transfers
/// with use 0 keep their cap; groups with count 0 are left alone. `scratch` is reused between calls.
void share_fairly(std::span<const double> cap, std::span<const double> use, std::span<const double> count, double capacity,
                  std::span<double> rate, std::vector<int>& scratch);

}  // namespace pto::timing
