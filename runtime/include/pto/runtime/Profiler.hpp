#pragma once
// `pto::Profiler`, after torch_npu.profiler: a schedule of steps (skip_first, then `repeat`
// cycles of wait / warmup / active), `step()` after each iteration, and on `stop()` the files a
// kernel author reads:
//   kernel_details.csv  one row per launch of the active steps, torch_npu's columns (Step Id,
//                       Device_id, Name, Type, Accelerator Core, Start Time(us), Duration(us),
//                       Wait Time(us), Block Dim) and the PipeUtilization columns
//   trace_view.json     Chrome trace events (open in Perfetto): host API spans, launches on their
//                       stream, per core one track per pipe with a span per instruction, flags
//                       as flow arrows
//   profile.json        everything above in full, for `pto advise` and `pto report`
// Durations are simulated device time; Start Time is host time since start() (us).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pto/runtime/LaunchProfile.hpp"

namespace pto {

struct Schedule {
  int wait = 0;
  int warmup = 0;
  int active = 1;
  int repeat = 1;      // cycles of wait+warmup+active; 0: forever
  int skip_first = 0;
};
inline Schedule schedule(int wait, int warmup, int active, int repeat = 1, int skip_first = 0) {
  return {wait, warmup, active, repeat, skip_first};
}

enum class ProfilerActivity { CPU, NPU };

struct ProfilerOptions {
  std::vector<ProfilerActivity> activities = {ProfilerActivity::CPU, ProfilerActivity::NPU};
  Schedule schedule;
  std::string output_dir = "profiling_output";
};

/// A host API call seen by the profiler: trace/compile, launch, synchronise.
struct HostSpan {
  std::string name;
  double start_us, end_us;  // host steady clock
};

class Profiler {
 public:
  enum class Phase { skip, wait, warmup, active, done };

  explicit Profiler(ProfilerOptions options);
  ~Profiler();  // stops (writing the files) if still running
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  /// Starts observing launches; only one profiler may run at a time (a UserError otherwise).
  void start();
  /// Ends the current step.
  void step();
  /// Stops observing and writes the files into the output directory (created if missing).
  void stop();

  Phase phase() const;
  int step_index() const { return step_; }
  /// The launches recorded so far (active steps only), with their step ids.
  std::vector<std::pair<int, LaunchProfile>> launches() const;
  const std::string& output_dir() const { return options_.output_dir; }

  // Called by the runtime (any thread).
  void on_launch(const LaunchProfile& p);
  void on_host_span(HostSpan s);

 private:
  Phase phase_of(int step) const;
  void write_files() const;

  ProfilerOptions options_;
  mutable std::mutex mu_;
  int step_ = 0;
  bool running_ = false;
  double start_us_ = 0;
  std::vector<std::pair<int, LaunchProfile>> launches_;
  std::vector<HostSpan> host_;
};

namespace detail {
/// Whether a profiler is recording launches now (cheap: one atomic load).
bool profiling();
/// Hands a finished launch to the running profiler, if any.
void notify_launch(const LaunchProfile& p);
/// Records a host API span while a profiler runs: construct before the call, destroy after.
class HostSpanScope {
 public:
  explicit HostSpanScope(const char* what, const std::string* detail = nullptr);
  ~HostSpanScope();

 private:
  const char* what_;
  const std::string* detail_;
  double start_us_ = -1;
};
double host_now_us();
}  // namespace detail

}  // namespace pto
