#pragma once
// What one launch did in simulated time: duration, per core and per pipe, bytes, FLOPs, races.
#include <array>
#include <string>
#include <vector>

#include "pto/runtime/PipelineModel.hpp"

namespace pto {

struct LaunchProfile {
  std::string kernel, specialization, chip;
  int block_dim = 0;
  bool timed = false;             // false when the kernel was compiled without the timing model
  double clock_ghz = 1;
  double launch_overhead_us = 0;  // the profile's fixed start cost
  double device_us = 0;           // launch overhead + the slowest core
  std::vector<double> core_us;    // per core, without the launch overhead
  std::vector<CoreTiming> cores;
  std::vector<RaceReport> races;
  std::vector<std::string> warnings;  // from compilation (e.g. manual sync under auto_mutex)
  double gm_bytes = 0;            // read + written, all cores
  double flops = 0;
  uint64_t instructions = 0;
  double host_us = 0;             // host wall time of the emulation

  /// Mean over cores of (busy cycles of `pipe`) / (the kernel's duration): PipeUtilization.
  double pipe_utilization(ir::Pipe pipe) const;
};

}  // namespace pto
