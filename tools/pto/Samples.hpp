#pragma once
// The samples the `pto` command line knows, by name.
#include <functional>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/Sample.hpp"

namespace pto::cli {

const std::vector<samples::SampleInfo>& all_samples();
/// The sample called `name`; a UserError listing the known names otherwise.
const samples::SampleInfo& find_sample(const std::string& name);

/// info.prepare(args), and a UserError for a --param key the sample does not have (naming the
/// ones it has): a misspelt parameter must not silently leave the default in place.
samples::PreparedRun prepare_run(const samples::SampleInfo& info, const samples::SampleArgs& args);

/// The fields every JSON result of a sample starts with: sample, shape, dtype, block_dim, params, ok.
nlohmann::json sample_json(const samples::SampleInfo& info, const samples::SampleArgs& args, const samples::Verdict& verdict);

/// One launch followed by synchronize.
std::function<void()> launch_and_sync(const samples::PreparedRun& run);
/// Wall time of one launch + synchronize, in ms (the first call includes the JIT compile).
double timed_call_ms(const samples::PreparedRun& run);
/// After the run's first call: one more launch + synchronize (a quick-tier kernel's second launch
/// queues its optimising compile, JitOptions::tiered), then waits for that compile, so what is
/// timed next is the optimised code. Returns the compile's time in ms (0: none).
double settle_tier_up(const samples::PreparedRun& run);

/// "1024x512" -> {1024, 512}; a UserError on anything else.
std::vector<int64_t> parse_shape(const std::string& text);
std::string shape_string(const std::vector<int64_t>& shape);
DType parse_dtype(const std::string& text);

}  // namespace pto::cli
