#pragma once
// Host wall-time statistics of repeated calls.
#include <functional>
#include <utility>
#include <vector>

namespace pto {

struct TimeStats {
  double median_us = 0, p10_us = 0, p90_us = 0, min_us = 0, max_us = 0;
  int samples = 0;
};

/// Calls `fn` `warmup` times untimed, then `repeat` times timed; at least one timed call.
TimeStats time_calls(const std::function<void()>& fn, int warmup, int repeat);
/// Repeats as needed so the timed part lasts at least `min_seconds` (and `min_repeat` calls).
TimeStats time_calls_for(const std::function<void()>& fn, int warmup, int min_repeat, double min_seconds);

/// Times `a` and `b` alternately (a, b, a, b, ...) so both see the same machine conditions.
std::pair<TimeStats, TimeStats> time_pair(const std::function<void()>& a, const std::function<void()>& b, int warmup,
                                          int min_repeat, double min_seconds);

}  // namespace pto
