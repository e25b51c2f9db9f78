#pragma once
// A launch's replay begun while its last blocks still run (private to the emulator).
//
// The blocks a host thread runs are often copies of the first of them: a vector kernel with
// strided tiles, or flash attention with a block of query rows each, gives every block the same
// ops, each tensor's GM regions one shift further on per block (play folding records them as
// copies, CoreTrace::copy_of; a mix block's three cores each a copy of the same core of the other). When the blocks of the launch's
// first run are such a chain, the blocks still running on other threads are predicted to continue
// it, and the thread that has run out of blocks replays the launch so predicted, while they run.
// Once every block has run, the launch's traces are compared with the prediction, written out
// (timing::same_input): the same, the replay made ahead is the launch's, to the bit (a replay is a
// function of its input); else the replay ahead is called off and the launch replayed as usual.
// Whichever thread runs out of blocks first replays ahead: one that did not run block 0 predicts
// it from its own first block (its blocks copies of that one) or knows it (its blocks copies of
// block 0, which play folding's twins share between the threads).
//
// On vector_add 16M (8 blocks, 2 host threads) the second thread starts its blocks 0.2-0.6 ms
// after the first (TBB wakes a sleeping worker in about 0.2 ms on this VM) and the first waits
// that long at the end: the replay, 0.2-0.3 ms, fits there instead of after the last block.
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
