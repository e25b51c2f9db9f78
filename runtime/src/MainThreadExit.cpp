#include "MainThreadExit.hpp"

#include <array>
#include <atomic>
#include <cstdlib>

namespace pto::detail {
namespace {

// Constant-initialised, so registering from another file's static initialiser needs no order.
constinit std::array<std::atomic<void (*)()>, 8> registered{};
constinit std::atomic<int> count{0};

struct RunAtExit {
  ~RunAtExit() {
    for (int i = count.load(std::memory_order_acquire) - 1; i >= 0; --i) {
      if (auto* fn = registered[static_cast<size_t>(i)].load(std::memory_order_acquire)) fn();
    }
  }
};
thread_local RunAtExit run_at_exit;
[[maybe_unused]] const bool armed = [] {
  static_cast<void>(&run_at_exit);  // makes this thread's object, so its destructor runs
  return true;
}();

}  // namespace

void at_main_thread_exit(void (*fn)()) {
  const int i = count.fetch_add(1, std::memory_order_acq_rel);
  if (i >= static_cast<int>(registered.size())) std::abort();  // a fixed table: a programming error
  registered[static_cast<size_t>(i)].store(fn, std::memory_order_release);
}

}  // namespace pto::detail
