#include "pto/runtime/Stream.hpp"

#include <atomic>
#include <chrono>

#include "pto/runtime/LaunchProfile.hpp"
#include "pto/runtime/Profiler.hpp"
#include "MainThreadExit.hpp"

namespace pto {
namespace {

/// Takes `lock`, trying for a moment before blocking: the caller and the worker hold the stream's
/// mutex only briefly, and a blocked std::mutex costs a futex wait and wake (microseconds).
void lock_spinning(std::unique_lock<std::mutex>& lock) {
  for (int i = 0; i < 512; ++i) {
    if (lock.try_lock()) return;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  lock.lock();
}

}  // namespace

Stream::Stream() : worker_([this] { worker_loop(); }) {}

Stream::~Stream() {
  try {
    synchronize();
  } catch (...) {
    // Destroying a stream drops a failure nobody synchronised on.
  }
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();  // an asleep worker; an awake one sees stop_ after its spin
  worker_.join();
}

namespace {
std::atomic<Stream*> default_made{nullptr};

// At exit the default stream's queued launches run before any static is destroyed
// (MainThreadExit.hpp): they use the emulator's statics, some made after the stream.
[[maybe_unused]] const bool drain_at_exit = [] {
  detail::at_main_thread_exit([] {
    if (Stream* s = default_made.load(std::memory_order_acquire)) {
      try {
        s->synchronize();
      } catch (...) {
        // As the destructor does: a failure nobody synchronised on is dropped.
      }
    }
  });
  return true;
}();
}  // namespace

Stream& Stream::default_stream() {
  static Stream s;
  [[maybe_unused]] static const bool noted = (default_made.store(&s, std::memory_order_release), true);
  return s;
}

void Stream::enqueue(std::function<void()> work) {
  bool wake = false;
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(work));
    submitted_.fetch_add(1, std::memory_order_release);
    wake = worker_asleep_;
  }
  if (wake) cv_.notify_all();  // an awake worker finds the item itself (worker_loop's spin)
}

// Runs the front item with the lock released; returns false when there is none to take.
bool Stream::run_one(std::unique_lock<std::mutex>& lock) {
  if (running_ || queue_.empty()) return false;
  auto work = std::move(queue_.front());
  queue_.pop_front();
  running_ = true;
  lock.unlock();
  std::exception_ptr failure;
  try {
    work();
  } catch (...) {
    failure = std::current_exception();
  }
  lock.lock();
  if (failure && !error_) error_ = failure;
  running_ = false;
  finished_.fetch_add(1, std::memory_order_release);
  cv_.notify_all();
  return true;
}

void Stream::worker_loop() {
  // Idle, the worker watches for the next launch for a while before sleeping, so back-to-back
  // launches (a warm-up, a benchmark's repeats) neither wake it through a futex nor switch threads
  // (the warm launch of #14: about 2 us of a 5 us launch + synchronise on this VM). A launch that
  // synchronize() ran on the caller's thread restarts the watch.
  constexpr auto kWatch = std::chrono::microseconds(50);
  auto watch_until = std::chrono::steady_clock::now() + kWatch;
  std::unique_lock lock(mu_);
  while (true) {
    if (stop_ && queue_.empty()) return;
    if (run_one(lock)) {
      watch_until = std::chrono::steady_clock::now() + kWatch;
      continue;
    }
    if (!stop_ && std::chrono::steady_clock::now() < watch_until) {
      const uint64_t seen = submitted_.load(std::memory_order_acquire);
      lock.unlock();
      while (submitted_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < watch_until) {
      }
      lock_spinning(lock);
      if (submitted_.load(std::memory_order_acquire) != seen) watch_until = std::chrono::steady_clock::now() + kWatch;
      continue;
    }
    worker_asleep_ = true;
    cv_.wait(lock, [this] { return stop_ || (!running_ && !queue_.empty()); });
    worker_asleep_ = false;
    watch_until = std::chrono::steady_clock::now() + kWatch;
  }
}

void Stream::synchronize() {
  detail::HostSpanScope span("synchronize");
  const uint64_t target = submitted_.load(std::memory_order_relaxed);
  std::unique_lock lock(mu_, std::defer_lock);
  lock_spinning(lock);
  while (run_one(lock)) {
  }
  if (finished_.load(std::memory_order_acquire) < target) {
    // The worker holds the last item: it is usually short, so spin briefly before sleeping.
    lock.unlock();
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (finished_.load(std::memory_order_acquire) < target && std::chrono::steady_clock::now() < spin_until) {
    }
    lock_spinning(lock);
    cv_.wait(lock, [&] {
      while (run_one(lock)) {
      }
      return finished_.load(std::memory_order_acquire) >= target;
    });
  }
  if (error_) {
    auto e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

std::shared_ptr<const LaunchProfile> Stream::last_launch() const {
  std::lock_guard lock(mu_);
  return last_;
}

void Stream::record(std::shared_ptr<const LaunchProfile> profile) {
  std::lock_guard lock(mu_);
  last_ = std::move(profile);
}

void synchronize() { Stream::default_stream().synchronize(); }
std::shared_ptr<const LaunchProfile> last_launch() { return Stream::default_stream().last_launch(); }

}  // namespace pto
