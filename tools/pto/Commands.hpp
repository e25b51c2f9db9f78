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

struct TuneOptionsCli : RunOptions {
  int budget = 64;
  uint64_t seed = 1;
  int jobs = 0;  // cases side by side in this process: 0 TBB's choice, 1 one after another
  bool block_dim_given = false;  // --block-dim fixes block_dim instead of searching it
};

struct SweepOptions {
  std::vector<std::string> samples;
  std::vector<std::string> shapes;  // empty and not given: each sample's default shape
  bool shapes_given = false;
  std::vector<std::string> dtypes = {"f32"};
  std::vector<int> block_dims = {8};
  std::vector<std::string> keys = {""};  // parameter sets "k=v,k=v"; "" is the sample's defaults
  std::string chip = "a2";
  std::string save, baseline;
  double threshold = 0;  // percent growth of simulated time that counts as a regression
  int jobs = 0;          // cases side by side in this process: 0 TBB's choice, 1 one after another
  bool json = false;
};

struct CampaignOptions {
  bool samples = true;  // every sample at small shapes, in each sync mode it offers
  int generated = 200;  // generated multi-buffered pipelines
  uint64_t seed = 1;
  int jobs = 0;         // mutants side by side: 0 TBB's choice
  bool verbose = false; // list every mutant, not only the misses, false alarms and errors
  bool json = false;
};
int campaign_command(const CampaignOptions& options);

struct AotLimits {
  double max_object_kb = 0, max_total_kb = 0, max_compile_ms = 0;  // 0: no limit
  int max_keys = 0;
};

/// The sample's arguments from the command line options.
samples::SampleArgs sample_args(const RunOptions& o);

int run_command(const RunOptions& o);
int bench_command(const BenchOptions& o);
int profile_command(const ProfileOptions& o);
int advise_command(const std::string& dir, bool json);
int report_command(const std::string& dir);
/// `pto report --compare A B --out FILE`.
int compare_command(const std::string& baseline, const std::string& candidate, const std::string& out);
int tune_command(const TuneOptionsCli& o);
int sweep_command(const SweepOptions& o);
int cache_command(const std::string& action, bool json);
int aot_command(const std::string& out, std::vector<std::string> specs, const AotLimits& limits);
int demo_command();
struct FuzzOptions {
  int cases = 2000;
  uint64_t seed = 1;
  bool fresh_seed = false;  // draw the seed from std::random_device (printed, to reproduce a failure)
  int jobs = 0;             // rounds side by side: 0 every host thread, 1 one after another
  bool json = false;
};
int fuzz_command(FuzzOptions options);
/// Runs the calibration points on `chip`; 1 when a point is outside its tolerance, the median
/// error is over 10% or the add variants are ranked wrong.
int calibrate_command(const std::string& chip, bool json);

}  // namespace pto::cli
