#pragma once
// Tiered compilation (JitOptions::tiered): a specialisation starts on the quick tier's code
// (backend::CompileOptions::quick); its second launch queues the optimising compile, which one
// background thread of the process runs, one kernel at a time. When it is done the kernel's
// `fn` is swapped for the optimised code (later launches and cores of a running launch may use
// either: both compute the same results and cycles) and the object is stored in the disk cache,
// where later processes find it before the quick one. A failed optimising compile leaves the
// quick code in place and is printed once on stderr. At exit (the main thread returning from main
// or calling exit) the queued compiles are dropped and the one in flight finishes before any static
// object is destroyed.
#include <atomic>
#include <memory>

#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/JitOptions.hpp"

namespace pto {

/// The launch that queues the optimising compile.
inline constexpr int kTierUpLaunch = 2;

/// A quick-tier kernel's way to its optimised code; the kernel's chip and object_key (the
/// optimised object's disk cache key) are the compile's.
struct TierUp {
  JitOptions options;                 // the kernel's, for the optimising compile
  std::atomic<int> launches{0};
  std::atomic<bool> done{false};      // the optimised code is in `fn` (or the compile failed)
  std::atomic<double> compile_ms{0};  // the optimising compile, on the background thread

  /// Whether the optimising compile has been queued (it may be done).
  bool queued() const { return launches.load(std::memory_order_relaxed) >= kTierUpLaunch; }
};

/// Counts a launch of `ck`; the kTierUpLaunch-th of a quick-tier kernel queues its optimising
/// compile. Cheap (one atomic add) for every other launch.
void note_launch(const std::shared_ptr<const CompiledKernel>& ck);

/// Waits until every queued optimising compile of the process has finished.
void await_tier_ups();

/// Waits for the queued optimising compiles and returns how long `ck`'s took, in ms (0 when it
/// has none: compiled once, or already optimised when it came from a cache). Steady-state timing
/// (pto bench) calls it after a kernel's second launch, so it times the optimised code.
double await_tier_up(const CompiledKernel& ck);

}  // namespace pto
