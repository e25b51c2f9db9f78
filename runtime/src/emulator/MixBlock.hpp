#pragma once
// The functional co-scheduling of a mix block's AIC and two AIVs (private to the emulator).
#include <array>
#include <deque>
#include <optional>
#include <string>

#include <boost/context/fiber.hpp>

#include "pto/backend/KernelABI.hpp"
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/PipelineModel.hpp"

namespace pto::emulator {

/// The co-scheduling of one mix block: its three cores run as fibers on the calling host thread,
/// in a fixed order (AIC, AIV 0, AIV 1), each until it finishes or waits for a cross-core flag
/// that has not been set. The order depends only on the program, so results and cycles do not
/// depend on host threads. When every unfinished core waits, the block is deadlocked: the waits
/// are reported and the cores stopped.
class MixBlock {
 public:
  MixBlock(const CompiledKernel& k, int block) : k_(k), block_(block) {}

  /// Runs the block's three cores to the end (or to a deadlock).
  void run(std::array<CoreContext, kCoresPerBlock>& ctx, std::array<CoreModel*, kCoresPerBlock> models);

  /// The cross hook: set or wait for flag `event` from core slot `s`.
  int32_t cross(CoreContext* ctx, int32_t instr, ir::SyncOp op, int64_t event);

  /// The deadlock found in this block, if any: the message and the first waiting core's slot and instruction.
  struct Deadlock {
    std::string message;
    int slot = 0, instr = -1;
  };
  const std::optional<Deadlock>& deadlock() const { return deadlock_; }

 private:
  static constexpr size_t kStackBytes = 256 * 1024;
  struct Core {
    boost::context::fiber fiber, back;
    bool done = false, stop = false;
    int wait_event = -1, wait_instr = -1;
  };

  bool ready(int s, int64_t e) const {
    if (s == 0) return !to_aic_[0][e].empty() && !to_aic_[1][e].empty();
    return !to_aiv_[s - 1][e].empty();
  }
  static CoreModel::CrossFlag take(std::deque<CoreModel::CrossFlag>& q) {
    CoreModel::CrossFlag f = q.front();
    q.pop_front();
    return f;
  }

  /// Records the deadlock (every unfinished core waits) and stops the waiting cores.
  void stop_deadlocked();

  const CompiledKernel& k_;
  int block_;
  std::array<CoreModel*, kCoresPerBlock> models_{};
  std::array<Core, kCoresPerBlock> cores_;
  std::array<std::array<std::deque<CoreModel::CrossFlag>, 16>, 2> to_aiv_, to_aic_;  // [AIV][event]
  std::optional<Deadlock> deadlock_;
};


/// CoreContext::cross for mix kernels: forwards to the core's MixBlock.
int32_t cross_hook(CoreContext* ctx, int32_t instr, int32_t op, int64_t event);

}  // namespace pto::emulator
