#include "pto/runtime/Stream.hpp"

#include <chrono>

#include "pto/runtime/LaunchProfile.hpp"
#include "pto/runtime/Profiler.hpp"

namespace pto {

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
  cv_.notify_all();
  worker_.join();
}

Stream& Stream::default_stream() {
  static Stream s;
  return s;
}

void Stream::enqueue(std::function<void()> work) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(work));
    submitted_.fetch_add(1, std::memory_order_relaxed);
  }
  cv_.notify_all();
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
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stop_ || (!running_ && !queue_.empty()); });
    if (stop_ && queue_.empty()) return;
    run_one(lock);
  }
}

void Stream::synchronize() {
  detail::HostSpanScope span("synchronize");
  const uint64_t target = submitted_.load(std::memory_order_relaxed);
  {
    std::unique_lock lock(mu_);
    while (run_one(lock)) {
    }
  }
  // The worker holds the last item: it is usually short, so spin briefly before sleeping.
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  while (finished_.load(std::memory_order_acquire) < target && std::chrono::steady_clock::now() < spin_until) {
  }
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] {
    while (run_one(lock)) {
    }
    return finished_.load(std::memory_order_acquire) >= target;
  });
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
