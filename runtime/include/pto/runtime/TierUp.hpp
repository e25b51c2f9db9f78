#pragma once
// Tiered compilation (JitOptions::tiered): a specialisation starts on the quick tier's code
// (backend::CompileOptions::quick); its second launch queues the optimising compile, which one
// background thread of the process runs, one kernel at a time. When it is done the kernel's
// `fn` is swapped for the optimised code (later launches and cores of a running launch may use
// either: both compute the same results and cycles) and the object is stored in the disk cache,
// where later processes find it before the quick one. A failed optimising compile leaves the
// quick code in place and is printed once on stderr.
#include <atomic>
#include <memory>
#include <string>

#include "pto/backend/ChipProfile.hpp"
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/JitOptions.hpp"

namespace pto {

/// The launch that queues the optimising compile.
inline constexpr int kTierUpLaunch = 2;

struct TierUp {
  const ChipProfile* chip = nullptr;
  JitOptions options;
  std::string full_key;            // the optimised object's disk cache key
  std::atomic<int> launches{0};
  std::atomic<bool> queued{false};
  std::atomic<bool> done{false};   // the optimised code is in `fn` (or the compile failed)
  std::atomic<double> compile_ms{0};  // the optimising compile, on the background thread
};

/// Counts a launch of `ck`; the kTierUpLaunch-th of a quick-tier kernel queues its optimising
/// compile. Cheap (one atomic add) for every other launch.
void note_launch(const std::shared_ptr<const CompiledKernel>& ck);

/// Waits until every queued optimising compile of the process has finished: steady-state timing
/// (pto bench, benchmarks) calls it after warm-up.
void await_tier_ups();

}  // namespace pto
