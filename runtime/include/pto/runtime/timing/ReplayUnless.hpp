#pragma once
// A replay that can be called off, and whether two replays' inputs are the same: for a replay
// started before all of a launch's traces are known (the emulator's replay ahead,
// pto::set_replay_ahead).
#include <atomic>
#include <optional>

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

}  // namespace pto::timing
