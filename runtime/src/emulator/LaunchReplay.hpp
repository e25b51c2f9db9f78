#pragma once
// The timing replay of a launch and the trace storage it reuses (private to the emulator).
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/LaunchProfile.hpp"
#include "pto/runtime/PipelineModel.hpp"
#include "pto/runtime/timing/Replay.hpp"

namespace pto::emulator {

/// Trace storage kept between launches: a launch records tens of thousands of ops per core, and
/// fresh vectors would grow, copy and fault in their pages every time.
class TracePool {
 public:
  CoreRecording take() {
    std::lock_guard lock(mu_);
    if (free_.empty()) return {};
    CoreRecording t = std::move(free_.back());
    free_.pop_back();
    return t;
  }
  void give(CoreRecording&& t) {
    std::lock_guard lock(mu_);
    if (free_.size() < kKept) free_.push_back(std::move(t));
  }

 private:
  static constexpr size_t kKept = 3 * 64;  // a launch's worth of cores on the largest profile
  std::mutex mu_;
  std::vector<CoreRecording> free_;
};

/// The process's pool of trace storage.
TracePool& trace_pool();

/// Per tensor parameter of `k`, its memory: the lowest-numbered parameter given the same buffer
/// (a tensor passed twice is one memory, to the L2 and to the race checker).
std::vector<int> gm_memory_of(const CompiledKernel& k, const detail::LaunchArgs& args);

/// The launch's cores replayed together (timing/Replay.hpp), or the replay of the same input
/// before (ReplayCache.hpp). Blocks start block_dispatch_cycles apart; tensors get virtual GM
/// addresses in parameter order (2 MiB aligned; a tensor passed twice is one memory), so the L2's
/// sets never depend on host addresses.
std::shared_ptr<const timing::ReplayResult> replay_launch(const CompiledKernel& k, const detail::LaunchArgs& args,
                                   const std::vector<std::optional<CoreModel>>& models, int per_block, bool record);

/// Achieved MACs / (the cube's peak for the kernel's matmul dtype x AICs x the kernel's duration).
double mac_utilization(const CompiledKernel& k, const LaunchProfile& p, int block_dim);

}  // namespace pto::emulator
