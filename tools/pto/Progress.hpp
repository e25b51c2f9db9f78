#pragma once
// A one-line progress display for long runs (pto fuzz, sweep, tune): cases done of the total,
// rate, time left and failures so far, redrawn in place on stderr at most a few times a second.
// It shows only when stderr is a terminal, the run is not printing JSON, and this is MPI rank 0;
// otherwise every call is a no-op, so piped and machine-read output stays clean.
#include <chrono>
#include <string>

namespace pto::cli {

class Progress {
 public:
  Progress(std::string what, int total, bool json);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool shown() const { return shown_; }
  /// `done` cases of the total, `failures` of them failed.
  void update(int done, int failures);
  /// Clears the line (also done by the destructor).
  void finish();

 private:
  std::string what_;
  int total_;
  bool shown_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace pto::cli
