#pragma once
// Cores co-scheduled as fibers on one host thread (private to the emulator): the three cores of a
// mix block (their cross-core flags), or every core of a launch that calls sync_all.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "CoreSetup.hpp"
#include "CrossFlags.hpp"
#include "FiberStack.hpp"
#include "HookLog.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/PipelineModel.hpp"

namespace pto::emulator {

/// The cores of blocks [first_block, first_block + blocks) run as fibers on the calling host
/// thread in a fixed order (block by block, slot by slot: AIC, AIV 0, AIV 1), each until it
/// finishes, waits for a cross-core flag that has not been set, or arrives at a sync_all that
/// not every participant has reached. The order depends only on the program, so results and
/// cycles do not depend on host threads. When every unfinished core waits, the group is
/// deadlocked: the waits are reported and the cores stopped.
class CoreGroup {
 public:
  /// `participants`: the cores of the whole launch that meet at sync_all (all of them must be in
  /// this group when the kernel calls it).
  CoreGroup(const CompiledKernel& k, CoreLayout layout, int first_block, int blocks, int participants);

  /// Runs the cores (ctx[i], models[i]: core i of the group, in the order above) to the end or to a deadlock.
  /// `log`: a group of one mix block whose hooks are written down (HookLog.hpp) also writes its
  /// cross-core flags' sets and waits there, where it would call the models (then null).
  void run(std::span<CoreContext> ctx, std::span<CoreModel* const> models, HookLog* log = nullptr);

  /// The cross hook: cross-core flag `event` set or waited for, or a sync_all, by core `ctx`.
  int32_t cross(CoreContext* ctx, int32_t instr, ir::SyncOp op, int64_t event);

  /// The deadlock found, if any: the message and the first waiting core's block, slot and instruction.
  struct Deadlock {
    std::string message;
    int block = 0, slot = 0, instr = -1;
  };
  const std::optional<Deadlock>& deadlock() const { return deadlock_; }

 private:
  enum class Wait : uint8_t { None, Flag, SyncAll };
  struct Core : CoreFiber {
    bool stop = false;
    Wait wait = Wait::None;
    int wait_event = -1, wait_instr = -1;
    uint64_t generation = 0;  // the sync_all generation it arrived at
  };
  int index(const CoreContext* ctx) const;
  bool ready(int i) const;
  /// Suspends core i until ready(i); false when it must stop (deadlock).
  bool suspend(int i);
  int32_t flag(int i, ir::SyncOp op, ir::Pipe pipe, int64_t event, int instr);
  int32_t meet(int i, int instr);
  /// Every participant has arrived: each records its departure and goes on.
  void release();
  /// Records the deadlock (every unfinished core waits) and stops the waiting cores.
  void stop_deadlocked();
  std::string name(int i) const;
  /// The cores that meet at sync_all, in words ("every AIV").
  const char* who_meets() const;

  const CompiledKernel& k_;
  CoreLayout layout_;
  int first_block_;
  int participants_;
  std::span<CoreModel* const> models_;
  HookLog* log_ = nullptr;
  std::vector<Core> cores_;
  std::vector<CrossFlags> flags_;  // per block of a mix kernel
  // sync_all: the cores that arrived at the current meeting, with their arrival ops and clocks.
  uint64_t generation_ = 0;
  std::vector<int> arrived_;
  std::vector<CoreModel::Arrival> arrivals_;
  std::optional<Deadlock> deadlock_;
};

/// CoreContext::cross: forwards to the core's CoreGroup.
int32_t cross_hook(CoreContext* ctx, int32_t instr, int32_t op, int64_t event);

}  // namespace pto::emulator
