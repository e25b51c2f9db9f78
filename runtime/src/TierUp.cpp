// TierUp.hpp: one background thread of the process runs the queued optimising compiles in turn.
#include "pto/runtime/TierUp.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "pto/runtime/Emulator.hpp"
#include "pto/runtime/Pipeline.hpp"
#include "pto/support/Stopwatch.hpp"
#include "MainThreadExit.hpp"

namespace pto {
namespace {

/// The optimising compile of one quick-tier kernel; its code replaces the quick code.
void tier_up(const CompiledKernel& ck) {
  TierUp& t = *ck.tier_up;
  try {
    const auto start = SteadyClock::now();
    backend::ObjectCode object;
    const backend::CompiledCode code = detail::compile_for_cache(ck.ir, *ck.chip, t.options, /*quick=*/false, ck.object_key, object);
    const double ms = ms_since(start);
    t.compile_ms.store(ms);
    ck.fn.store(code.fn, std::memory_order_release);
    detail::count_tier_up(ms);
  } catch (const std::exception& e) {
    fmt::print(stderr, "pto: warning: kernel {} ({}) stays on its quick-tier code: its optimising compile failed: {}\n", ck.ir.name,
               ck.ir.specialization, e.what());
  }
  t.done.store(true, std::memory_order_release);
}

/// The thread, made on the first submit. Stopped at exit by the main thread (stop_at_exit below)
/// or, when another thread exits the process, by its static's destructor.
class TierUpThread {
 public:
  static TierUpThread& get() {
    static TierUpThread thread;
    return thread;
  }
  /// The thread if it was made, else nullptr (never makes it).
  static TierUpThread* made() { return made_.load(std::memory_order_acquire); }

  void submit(std::shared_ptr<const CompiledKernel> ck) {
    std::lock_guard lock(mu_);
    if (stop_) return;  // exiting: the kernel keeps its quick code
    queue_.push_back(std::move(ck));
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    wake_.notify_all();
  }

  void await_idle() {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [&] { return queue_.empty() && !busy_; });
  }

  /// Drops the queued compiles and waits for the one in flight; later submits are dropped.
  void stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      queue_.clear();
      wake_.notify_all();
      idle_.notify_all();
    }
    if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
  }

  ~TierUpThread() { stop(); }

 private:
  TierUpThread() { made_.store(this, std::memory_order_release); }

  void run() {
    std::unique_lock lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      std::shared_ptr<const CompiledKernel> ck = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      tier_up(*ck);
      ck.reset();
      lock.lock();
      busy_ = false;
      if (queue_.empty()) idle_.notify_all();
    }
  }

  static inline std::atomic<TierUpThread*> made_{nullptr};
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  std::deque<std::shared_ptr<const CompiledKernel>> queue_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread worker_;
};

// At exit the compile in flight finishes before any static is destroyed (MainThreadExit.hpp).
[[maybe_unused]] const bool stop_at_exit = [] {
  detail::at_main_thread_exit([] {
    if (TierUpThread* t = TierUpThread::made()) t->stop();
  });
  return true;
}();

}  // namespace

void note_launch(const std::shared_ptr<const CompiledKernel>& ck) {
  TierUp* t = ck->tier_up.get();
  if (!t || t->queued()) return;  // later launches touch nothing shared
  if (t->launches.fetch_add(1, std::memory_order_relaxed) + 1 != kTierUpLaunch) return;
  TierUpThread::get().submit(ck);
}

void await_tier_ups() { TierUpThread::get().await_idle(); }

double await_tier_up(const CompiledKernel& ck) {
  await_tier_ups();
  return ck.tier_up ? ck.tier_up->compile_ms.load() : 0.0;
}

}  // namespace pto
