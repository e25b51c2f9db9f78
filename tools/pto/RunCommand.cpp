#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "Samples.hpp"
#include "pto/runtime/Package.hpp"

namespace pto::cli {

samples::SampleArgs sample_args(const RunOptions& o) {
  const auto& info = find_sample(o.sample);
  samples::SampleArgs a;
  a.shape = o.shape.empty() ? info.default_shape : parse_shape(o.shape);
  a.dtype = parse_dtype(o.dtype);
  a.block_dim = o.block_dim;
  a.chip = o.chip;
  ChipProfile::get(o.chip);  // an unknown chip is reported before anything runs
  if (!o.package.empty()) Package::open(o.package, {.fallback = PackageFallback::error});
  for (const auto& kv : o.params) {
    const auto eq = kv.find('=');
    PTO_USER_CHECK(eq != std::string::npos && eq > 0, ErrorSite{}) << "--param '" << kv << "' is not of the form key=value";
    a.params[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return a;
}

int run_command(const RunOptions& o) {
  const auto& info = find_sample(o.sample);
  const auto args = sample_args(o);
  auto run = prepare_run(info, args);
  const double first_ms = timed_call_ms(run);
  const auto verdict = run.verify();
  const auto profile = pto::last_launch();
  nlohmann::json pipes = nlohmann::json::object();
  nlohmann::json races = nlohmann::json::array();
  for (int p = 0; p < kPipeCount; ++p) {
    const auto pipe = static_cast<ir::Pipe>(p);
    uint64_t n = 0;
    for (const auto& c : profile->cores) n += c.pipes[p].instructions;
    if (n > 0) pipes[ir::pipe_name(pipe)] = profile->pipe_utilization(pipe);
  }
  for (const auto& r : profile->races) races.push_back(r.message());
  if (o.json) {
    nlohmann::json j = sample_json(info, args, verdict);
    j.update(nlohmann::json{{"max_abs_error", verdict.max_abs_error},
                     {"tolerance", verdict.tolerance},
                     {"first_call_ms", first_ms},
                     {"chip", profile->chip},
                     {"device_us", profile->device_us},
                     {"core_us", profile->core_us},
                     {"pipes", pipes},
                     {"gm_bytes", profile->gm_bytes},
                     {"mode", profile->mode},
                     {"mac_util", profile->mac_util},
                     {"instructions", profile->instructions},
                     {"races", races},
                     {"warnings", profile->warnings}});
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("sample         {}\nshape          {}\ndtype          {}\nblock_dim      {}\n", info.name, shape_string(args.shape),
               dtype_name(args.dtype), args.block_dim);
    for (const auto& [k, v] : args.params) fmt::print("param          {}={}\n", k, v);
    fmt::print("ok             {}\nmax_abs_error  {:.3g} (tolerance {:.0e})\nfirst_call_ms  {:.2f}\n", verdict.ok,
               verdict.max_abs_error, verdict.tolerance, first_ms);
    if (profile->timed) {
      double slowest = 0, fastest = 1e300;
      for (double c : profile->core_us) slowest = std::max(slowest, c), fastest = std::min(fastest, c);
      fmt::print("device_us      {:.2f}  (chip {}, launch overhead {:.1f} us, cores {:.2f}..{:.2f} us)\n", profile->device_us,
                 profile->chip, profile->launch_overhead_us, fastest, slowest);
      std::string util;
      for (auto& [k, v] : pipes.items()) util += fmt::format(" {}={:.1f}%", k, 100 * v.get<double>());
      fmt::print("pipes         {}\n", util);
      if (profile->macs > 0) fmt::print("mac_util       {:.1f}%  ({} kernel, cube peak x AICs x duration)\n", 100 * profile->mac_util, profile->mode);
      for (const auto& w : profile->warnings) fmt::print("warning        {}\n", w);
      fmt::print("races          {}\n", profile->races.size());
      constexpr size_t kShown = 6;
      for (size_t i = 0; i < std::min(kShown, profile->races.size()); ++i) fmt::print("  {}\n", profile->races[i].message());
      if (profile->races.size() > kShown) fmt::print("  ... {} more (--json lists all)\n", profile->races.size() - kShown);
    }
  }
  // A race is a failed run even when the numbers happen to be right.
  return verdict.ok && profile->races.empty() ? 0 : 1;
}

}  // namespace pto::cli
