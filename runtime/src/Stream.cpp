#include "pto/runtime/Stream.hpp"

#include <algorithm>
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
  work_cv_.notify_all();  // an asleep worker; an awake one sees stop_ after its spin
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
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(work));
    submitted_.fetch_add(1, std::memory_order_release);
    last_enqueue_ = now;
    wake = worker_asleep_ || (worker_napping_ && host_works_between_);
  }
  if (wake) work_cv_.notify_one();
}

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
  if (sync_waiters_ > 0) done_cv_.notify_all();
  if (worker_asleep_ && !queue_.empty()) work_cv_.notify_one();  // it passed this item over while it ran (a napping one looks again)
  return true;
}

void Stream::worker_loop() {
  using std::chrono::microseconds, std::chrono::milliseconds, std::chrono::steady_clock;
  constexpr auto kWatch = microseconds(50);  // after a launch, while the host works between launches
  constexpr auto kFirstNap = microseconds(50), kLongestNap = microseconds(1000);
  constexpr auto kDozeOff = milliseconds(100);  // this long with nothing submitted: sleep until enqueue wakes it
  const auto has_work = [this] { return stop_ || (!running_ && !queue_.empty()); };
  std::unique_lock lock(mu_);
  auto nap = kFirstNap;
  steady_clock::time_point watch_until{};
  uint64_t seen = submitted_.load(std::memory_order_relaxed);
  auto last_submission = steady_clock::now();
  while (true) {
    if (stop_ && queue_.empty()) return;
    if (run_one(lock)) {
      nap = kFirstNap;
      if (host_works_between_) watch_until = steady_clock::now() + kWatch;
      continue;
    }
    const auto now = steady_clock::now();
    if (const uint64_t submitted = submitted_.load(std::memory_order_relaxed); submitted != seen) {
      seen = submitted;
      last_submission = now;
    }
    if (now < watch_until && !stop_) {  // the host's next launch, taken with no wake
      lock.unlock();
      while (submitted_.load(std::memory_order_acquire) == seen && steady_clock::now() < watch_until) {
      }
      lock_spinning(lock);
      continue;
    }
    if (now - last_submission < kDozeOff) {
      worker_napping_ = true;
      work_cv_.wait_for(lock, nap, has_work);
      worker_napping_ = false;
      nap = std::min(2 * nap, kLongestNap);
      continue;
    }
    worker_asleep_ = true;
    work_cv_.wait(lock, has_work);
    worker_asleep_ = false;
    nap = kFirstNap;
  }
}

void Stream::synchronize() {
  detail::HostSpanScope span("synchronize");
  const uint64_t target = submitted_.load(std::memory_order_relaxed);
  const auto now = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_, std::defer_lock);
  lock_spinning(lock);
  if (synced_submitted_ != target) {  // launches since the last synchronize(): did the host work meanwhile?
    constexpr auto kLate = std::chrono::microseconds(10);
    host_works_between_ = now - last_enqueue_ > kLate;
    synced_submitted_ = target;
  }
  while (run_one(lock)) {
  }
  if (finished_.load(std::memory_order_acquire) < target) {
    // The worker holds the last item: it is usually short, so spin briefly before sleeping.
    lock.unlock();
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (finished_.load(std::memory_order_acquire) < target && std::chrono::steady_clock::now() < spin_until) {
    }
    lock_spinning(lock);
    ++sync_waiters_;
    done_cv_.wait(lock, [&] {
      while (run_one(lock)) {
      }
      return finished_.load(std::memory_order_acquire) >= target;
    });
    --sync_waiters_;
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
