#pragma once
// The `pto` subcommands. Each returns the process exit code.
#include <map>
#include <string>
#include <vector>

#include "common/Sample.hpp"

namespace pto::cli {

struct RunOptions {
  std::string sample;
  std::string shape;        // empty: the sample's default
  std::string dtype = "f32";
  int block_dim = 8;
  std::vector<std::string> params;  // k=v
  std::string chip = "a2";          // built-in profile name or JSON path
  std::string package;              // an AOT package to load kernels from (no JIT fallback)
  bool json = false;
};

struct BenchOptions : RunOptions {
  bool vs_native = false;
  bool op = false;  // also time the sample's pto::Op end to end against the direct launch
  int warmup = 3;
  int repeat = 20;
  double min_seconds = 1.0;
};

struct ProfileOptions : RunOptions {
  std::string out;          // output directory
  int steps = 3;            // active steps
  int profiler_warmup = 1;  // profiler warm-up steps
};

/// The sample's arguments from the command line options.
samples::SampleArgs sample_args(const RunOptions& o);

int run_command(const RunOptions& o);
int bench_command(const BenchOptions& o);
int profile_command(const ProfileOptions& o);
int advise_command(const std::string& dir, bool json);
int report_command(const std::string& dir);
int cache_command(const std::string& action, bool json);
int aot_command(const std::string& out, std::vector<std::string> specs);
int demo_command();
int fuzz_command(int cases, uint64_t seed, bool json);
/// Runs the calibration points on `chip`; 1 when a point is outside its tolerance, the median
/// error is over 10% or the add variants are ranked wrong.
int calibrate_command(const std::string& chip, bool json);

}  // namespace pto::cli
