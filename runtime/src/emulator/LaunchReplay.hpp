#pragma once
// The timing replay of a launch and the trace storage it reuses (private to the emulator).
#include <memory>
#include <optional>
#include <vector>

#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/LaunchProfile.hpp"
#include "pto/runtime/PipelineModel.hpp"
#include "pto/runtime/timing/Replay.hpp"
#include "StoragePool.hpp"

namespace pto::emulator {

/// Trace storage kept between launches (StoragePool.hpp).
using TracePool = StoragePool<CoreRecording>;

/// The process's pool of trace storage.
TracePool& trace_pool();

/// Per tensor parameter of `k`, its memory: the lowest-numbered parameter given the same buffer
/// (a tensor passed twice is one memory, to the L2 and to the race checker).
std::vector<int> gm_memory_of(const CompiledKernel& k, const detail::LaunchArgs& args);

/// Whether replays fold cores that are copies of each other into one a group (ReplayInput::
/// fold_identical_cores; pto::set_replay_folding), and how many replays did.
void set_replay_folding(bool on);
uint64_t folded_replays();

/// What a launch's replay is given: its cores' traces, in core order. Blocks start
/// block_dispatch_cycles apart; tensors get virtual GM addresses in parameter order (2 MiB
/// aligned; a tensor passed twice is one memory), so the L2's sets never depend on host addresses.
/// `in` points into the other members (a LaunchInput is not copied).
struct LaunchInput {
  LaunchInput(const CompiledKernel& k, const detail::LaunchArgs& args, std::vector<const timing::CoreTrace*> cores, int per_block, bool record);
  LaunchInput(const LaunchInput&) = delete;
  LaunchInput& operator=(const LaunchInput&) = delete;

  std::vector<const timing::CoreTrace*> traces;
  std::vector<double> start;
  std::vector<uint64_t> base;
  timing::ReplayInput in;
};

/// The launch's cores replayed together (timing/Replay.hpp), or the replay of the same input
/// before (ReplayCache.hpp), or `ahead`: a replay of this same input made before every trace was
/// known (ReplayAhead.hpp; the caller has checked it is the same input).
std::shared_ptr<const timing::ReplayResult> replay_launch(const LaunchInput& launch, std::shared_ptr<const timing::ReplayResult> ahead = nullptr);

/// Achieved MACs / (the cube's peak for the kernel's matmul dtype x AICs x the kernel's duration).
double mac_utilization(const CompiledKernel& k, const LaunchProfile& p, int block_dim);

}  // namespace pto::emulator
