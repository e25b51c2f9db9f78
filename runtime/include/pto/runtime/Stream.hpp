#pragma once
// Streams: launches are queued on a stream and run in order, asynchronously to the host.
// `synchronize()` waits for the queued work, helping to run it from the calling thread, and
// rethrows the first failure (a `pto::UserError`) of a launch queued since the last
// synchronisation. A failed launch leaves the stream usable.
//
// Who runs a launch: the stream's worker thread, or the thread that calls synchronize() first.
// The worker naps between launches (waits of 50 us doubling to 1 ms; after 100 ms with nothing
// submitted, a sleep that only enqueue ends). enqueue wakes a napping worker only when the host
// works while launches run, that is when the last synchronize() came more than 10 us after the
// launch before it; the worker then also watches for the next launch for 50 us after each. So a
// launch followed by synchronize(), the common pattern, runs on the caller's thread with no
// thread woken and no hand-off (on a 2-vCPU VM the wake and hand-off had cost 15-20 us a launch:
// vector_add of 256K floats on 8 blocks, launch + synchronize 42 -> 22 us), while launches that
// overlap host work start at once. The first launch of such a stream may wait for a nap's end
// (at most 1 ms) or for synchronize().
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace pto {

struct LaunchProfile;

class Stream {
 public:
  Stream();
  ~Stream();  // waits for queued work; a failure not yet reported is dropped
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void enqueue(std::function<void()> work);
  void synchronize();

  /// The profile of the last launch on this stream that completed (null before any).
  std::shared_ptr<const struct LaunchProfile> last_launch() const;
  void record(std::shared_ptr<const struct LaunchProfile> profile);

  /// The stream used when a launch names none.
  static Stream& default_stream();

 private:
  /// Runs the front item with the lock released; false if there is none to take.
  bool run_one(std::unique_lock<std::mutex>& lock);
  void worker_loop();

  mutable std::mutex mu_;
  std::shared_ptr<const struct LaunchProfile> last_;
  // Two conditions, each notified only when someone waits on it: a notify with a waiter is a
  // futex wake, 6-17 us of the notifying thread's time on a 2-vCPU VM.
  std::condition_variable work_cv_;  // the worker, napping or asleep, waits for work (or stop_)
  std::condition_variable done_cv_;  // synchronize() waits for the worker's item to finish
  std::deque<std::function<void()>> queue_;
  bool running_ = false;
  bool stop_ = false;
  bool worker_asleep_ = false;   // the worker waits on work_cv_ until woken
  bool worker_napping_ = false;  // the worker waits on work_cv_ for a nap
  bool host_works_between_ = false;  // the last synchronize() came well after the launch before it
  std::chrono::steady_clock::time_point last_enqueue_{};
  uint64_t synced_submitted_ = 0;  // submitted_ at the last synchronize()
  int sync_waiters_ = 0;         // threads waiting on done_cv_
  std::exception_ptr error_;
  std::atomic<uint64_t> submitted_{0}, finished_{0};
  std::thread worker_;
};

/// Synchronises the default stream.
void synchronize();
/// The last completed launch on the default stream (null before any).
std::shared_ptr<const struct LaunchProfile> last_launch();

}  // namespace pto
