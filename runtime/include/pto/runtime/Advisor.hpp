#pragma once
// The bottleneck advisor: reads a launch profile the way the seed's table does and names the
// bottleneck, with its evidence, the direction to take, and a roofline lower bound.
//
//   bottleneck            | evidence                                   | suggestion
//   launch-dominated      | launch overhead >= half the device time    | fewer, larger launches
//   core imbalance        | slowest core >> mean core                  | stride tiles evenly over cores
//   too many cores        | idle cores, or HBM share below a core's    | fewer blocks: cores = tiles,
//                         | own path bandwidth with GM pipes busy      |   or the bandwidth is saturated
//   sync waits            | pipes held back by flags/mutexes a lot     | drop needless barriers/flags
//   compute-bound         | V (or M) busiest and nearly always busy    | cheaper vector work, dtypes
//   GM-bound              | MTE2/MTE3 busiest and nearly always busy   | larger, contiguous moves, reuse
//   load/compute serialised | pipe busy times add up to the duration   | tile groups, more buffers
#include <string>
#include <vector>

#include "pto/backend/ChipProfile.hpp"
#include "pto/runtime/LaunchProfile.hpp"

namespace pto {

struct Advice {
  std::string kernel;
  std::string bottleneck;             // one of the names in the table above, or "balanced"
  std::vector<std::string> evidence;  // the numbers behind the verdict
  std::string suggestion;
  double device_us = 0;
  double bound_us = 0;                // roofline lower bound: launch overhead + max(bytes / bandwidth, FLOPs / peak)
  double achieved_over_bound = 0;     // device_us / bound_us (>= 1)
};

/// Advice for one launch, on the chip profile it ran on.
Advice advise(const LaunchProfile& p, const ChipProfile& chip);
/// Advice for one launch; the chip profile is looked up by the name recorded in the launch.
Advice advise(const LaunchProfile& p);

/// Advice for a profiler output directory (its profile.json): one per kernel, for that kernel's
/// median-duration launch. A profile without launches is a UserError explaining what to check
/// (the schedule never reached an active step, or no launch happened in one).
std::vector<Advice> advise_directory(const std::string& dir);

}  // namespace pto
