#pragma once
// A replay that can be called off, and whether two replays' inputs are the same: for a replay
// started before all of a launch's traces are known (the emulator's replay ahead,
// pto::set_replay_ahead).
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "pto/runtime/timing/Replay.hpp"

namespace pto::timing {

/// replay(in), or nothing if `stop` is set before it ends (looked at every few hundred events).
std::optional<ReplayResult> replay_unless(const ReplayInput& in, const std::atomic<bool>& stop);

/// Whether `a` and `b` replay to the same result: the same chip, starts, tensor addresses,
/// footprint and options, and each core's trace the same once its copies are written out (a
/// recorded copy equals the core recorded in full that it stands for). Cores given as the same
/// pointer are not compared, and a copy in `a` of a core found the same is settled by its shift
/// when `b` has a copy of the same core there (the order to give a launch whose copies are many).
bool same_input(const ReplayInput& a, const ReplayInput& b);

/// A launch's traces, some predicted (predict_copies): `traces`, one a core, points into the
/// known ones and into `made` (moving a PredictedTraces keeps them valid).
struct PredictedTraces {
  std::vector<CoreTrace> made;
  std::vector<const CoreTrace*> traces;
};

/// Predicts a launch's traces from the `known` ones (core c's, or null: not known yet), in blocks
/// of `per_block` cores, as play folding records copies (CoreTrace::copy_of, shift): the first
/// known block o's recorded in full and every core of another known block b a copy of block o's
/// core in its slot moved by b - o times one shift a tensor. Block 0, if not known, is predicted as
/// block o's cores written out, moved o shifts back; every other core not known as a copy of block
/// 0's core in its slot, moved b shifts on (a copy's original is an earlier core). False (`out`
/// then unspecified) if the known cores are not such copies, every core or no block but o is
/// known, a dep of block o leaves its block, or a predicted region leaves its tensor
/// (`tensor_elems`: each tensor's elements; a launch whose last blocks have a tile less).
bool predict_copies(std::span<const CoreTrace* const> known, int per_block, std::span<const int64_t> tensor_elems, PredictedTraces& out);

}  // namespace pto::timing
