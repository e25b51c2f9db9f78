#pragma once
// What one launch did in simulated time: duration, per core and per pipe, bytes, FLOPs, races.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pto/runtime/PipelineModel.hpp"

namespace pto {

struct LaunchProfile {
  std::string kernel, specialization;
  std::string chip;               // the profile's name, or the JSON path it was loaded from
  int block_dim = 0;
  std::string mode = "vector";    // kernel mode: vector, cube or mix (cores: block_dim, or 3 per block)
  bool timed = false;             // false when the kernel was compiled without the timing model
  double clock_ghz = 1;
  double launch_overhead_us = 0;  // the profile's fixed start cost
  double device_us = 0;           // launch overhead + the slowest core
  std::vector<double> core_us;    // per core, without the launch overhead
  std::vector<CoreTiming> cores;  // mix: per block its AIC, AIV 0, AIV 1
  std::vector<RaceReport> races;
  // With pto::set_race_audit(true): the exhaustive audit's races, to hold `races` against (not
  // in the JSON round trip). A launch past the audit's limits is not audited (a warning says why).
  bool audited = false;
  std::vector<RaceReport> audit_races;
  std::vector<std::string> warnings;  // from compilation (e.g. manual sync under auto_mutex)
  double gm_bytes = 0;            // read + written, all cores
  double flops = 0;
  double macs = 0;                // cube multiply-accumulates, all AICs
  double mac_util = 0;            // macs / (cube peak x AICs x duration); 0 without matmul
  uint64_t instructions = 0;
  double host_us = 0;             // host wall time of the emulation
  double host_start_us = 0;       // when the emulation started, host steady clock (us)
  double l2_hit_bytes = 0;        // GM bytes read that hit the shared L2 (the replay's L2 model)
  double hbm_bytes = 0;           // bytes that went to HBM: L2 read misses + writes

  // Recorded while a profiler is active: per core, its instruction spans and flag flows, and the
  // instruction table to name them.
  std::vector<std::vector<InstrSpan>> spans;
  std::vector<std::vector<FlagFlow>> flows;
  std::vector<std::string> instr_names;    // by instruction id: "load", "vec", ...
  std::vector<std::string> instr_texts;    // printed instruction
  std::vector<std::string> instr_sources;  // "file:line"

  /// Mean over cores of (busy cycles of `pipe`) / (the kernel's duration): PipeUtilization.
  double pipe_utilization(ir::Pipe pipe) const;
  /// Mean over cores of the busy time of `pipe`, in us.
  double pipe_time_us(ir::Pipe pipe) const;
  /// Cycles -> us on this launch's clock.
  double us(double cycles) const { return cycles / (clock_ghz * 1e3); }
};

/// JSON round trip (profile.json of a profiler output directory). With `with_spans`, the
/// instruction spans and flag flows of core `spans_core` are kept (-1: every core's).
std::string to_json(const LaunchProfile& p, bool with_spans, int spans_core = -1);
LaunchProfile launch_profile_from_json(const std::string& text);

}  // namespace pto
