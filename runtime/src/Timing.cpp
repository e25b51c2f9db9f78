#include "pto/runtime/Timing.hpp"

#include <algorithm>
#include <chrono>

namespace pto {
namespace {
using Clock = std::chrono::steady_clock;

TimeStats summarise(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[static_cast<size_t>(q * static_cast<double>(us.size() - 1) + 0.5)]; };
  return {at(0.5), at(0.1), at(0.9), us.front(), us.back(), static_cast<int>(us.size())};
}
}  // namespace

TimeStats time_calls(const std::function<void()>& fn, int warmup, int repeat) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> us;
  us.reserve(std::max(1, repeat));
  for (int i = 0; i < std::max(1, repeat); ++i) {
    auto t = Clock::now();
    fn();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  return summarise(std::move(us));
}

TimeStats time_calls_for(const std::function<void()>& fn, int warmup, int min_repeat, double min_seconds) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> us;
  const auto start = Clock::now();
  while (static_cast<int>(us.size()) < min_repeat ||
         std::chrono::duration<double>(Clock::now() - start).count() < min_seconds) {
    auto t = Clock::now();
    fn();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
    if (us.size() > 100000) break;
  }
  return summarise(std::move(us));
}

std::pair<TimeStats, TimeStats> time_pair(const std::function<void()>& a, const std::function<void()>& b, int warmup,
                                          int min_repeat, double min_seconds) {
  for (int i = 0; i < warmup; ++i) {
    a();
    b();
  }
  std::vector<double> ua, ub;
  const auto start = Clock::now();
  auto timed = [](const std::function<void()>& f) {
    auto t = Clock::now();
    f();
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
  };
  while (static_cast<int>(ua.size()) < min_repeat || std::chrono::duration<double>(Clock::now() - start).count() < min_seconds) {
    ua.push_back(timed(a));
    ub.push_back(timed(b));
    if (ua.size() > 100000) break;
  }
  return {summarise(std::move(ua)), summarise(std::move(ub))};
}

}  // namespace pto
