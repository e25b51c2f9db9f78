#include "pto/runtime/DebugOutput.hpp"

#include <mutex>

#include <fmt/format.h>

namespace pto {
namespace {
std::mutex sink_mu;
std::function<void(const DebugMessage&)>& sink() {
  static std::function<void(const DebugMessage&)> s;
  return s;
}
}  // namespace

std::string DebugMessage::str() const {
  return fmt::format("[{} block {} {} {} @ {:.3f} us] {}", kernel, block, core_kind, core, time_us, text);
}

void set_debug_sink(std::function<void(const DebugMessage&)> s) {
  std::lock_guard lock(sink_mu);
  sink() = std::move(s);
}

namespace detail {
void deliver_debug_message(const DebugMessage& m) {
  std::lock_guard lock(sink_mu);
  if (sink()) {
    sink()(m);
  } else {
    fmt::print("{}\n", m.str());
    std::fflush(stdout);
  }
}
}  // namespace detail

}  // namespace pto
