#pragma once
// A launch's replay begun while its last blocks still run (private to the emulator).
//
// The blocks a host thread runs are often copies of the first of them: a vector kernel with
// strided tiles, or flash attention with a block of query rows each, gives every block the same
// ops, each tensor's GM regions one shift further on per block (play folding records them as
// copies, CoreTrace::copy_of; each core of a mix block a copy of the same core of the other).
// The first host thread out of blocks predicts the blocks still running on other threads to
// continue that chain (timing::predict_copies; block 0, if another thread ran it, is its own
// first block written out and moved back, or known when its blocks are copies of block 0) and
// replays the launch so predicted while they run. Once every block has run, the launch's traces
// are compared with the prediction, written out (timing::same_input): the same, the replay made
// ahead is the launch's, to the bit (a replay is a function of its input); else the replay ahead
// is called off and the launch replayed as usual.
//
// On vector_add 16M (8 blocks, 2 host threads, this VM) a launch's two threads end 0.1-0.7 ms
// apart (the second starts late: TBB wakes a sleeping worker in up to 0.2 ms; and the two vCPUs
// run at different speeds), so the replay, 0.2-0.3 ms, fits there instead of after the last block.
#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "LaunchReplay.hpp"
#include "pto/runtime/timing/ReplayUnless.hpp"

namespace pto::emulator {

class ReplayAhead {
 public:
  /// Predicts the launch's traces from the `known` ones (core c's, or null: not known yet), in
  /// blocks of `per_block` cores (timing::predict_copies). False (nothing kept) if they do not
  /// predict the others.
  bool predict(const CompiledKernel& k, const detail::LaunchArgs& args, std::span<const timing::CoreTrace* const> known, int per_block,
               bool record);
  /// Replays the predicted launch on this thread, unless `stop` is set first (then result() stays
  /// null). An error in the replay is left for the replay proper to report.
  void replay(const std::atomic<bool>& stop);
  /// Whether `actual` is the predicted launch (timing::same_input).
  bool matches(const LaunchInput& actual) const;
  /// The replay of the predicted launch; null unless replay() ran to its end.
  const std::shared_ptr<const timing::ReplayResult>& result() const { return result_; }

 private:
  timing::PredictedTraces predicted_;
  std::optional<LaunchInput> input_;
  std::shared_ptr<const timing::ReplayResult> result_;
};

/// Whether launches replay ahead when they can (on by default; off, every replay waits for the
/// launch's last block: for tests and paired benchmarks), and how many replays ahead were used.
void set_replay_ahead(bool on);
bool replay_ahead_enabled();
uint64_t replays_ahead_used();
void count_replay_ahead_used();

}  // namespace pto::emulator
