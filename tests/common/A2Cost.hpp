#pragma once
// The a2 chip's cost model, built once: for tests that drive CoreModels by hand.
#include <pto/pto.hpp>

namespace pto::test {

inline const CostModel& a2_cost() {
  static const CostModel cost(ChipProfile::get("a2"));
  return cost;
}

}  // namespace pto::test
