#pragma once
// Streams: launches are queued on a stream and run in order, asynchronously to the host.
// `synchronize()` waits for the queued work, helping to run it from the calling thread, and
// rethrows the first failure (a `pto::UserError`) of a launch queued since the last
// synchronisation. A failed launch leaves the stream usable.
#include <atomic>
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
  bool run_one(std::unique_lock<std::mutex>& lock);
  void worker_loop();

  mutable std::mutex mu_;
  std::shared_ptr<const struct LaunchProfile> last_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool running_ = false;
  bool stop_ = false;
  bool worker_asleep_ = false;  // the worker waits on cv_: only then does enqueue wake it (a futex call)
  std::exception_ptr error_;
  std::atomic<uint64_t> submitted_{0}, finished_{0};
  std::thread worker_;
};

/// Synchronises the default stream.
void synchronize();
/// The last completed launch on the default stream (null before any).
std::shared_ptr<const struct LaunchProfile> last_launch();

}  // namespace pto
