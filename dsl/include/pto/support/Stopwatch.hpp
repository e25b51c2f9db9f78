#pragma once
// Milliseconds since a steady-clock time point: how the compile and launch paths time their stages.
#include <chrono>

namespace pto {

using SteadyClock = std::chrono::steady_clock;

inline double ms_since(SteadyClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

}  // namespace pto
