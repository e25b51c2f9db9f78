#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "Samples.hpp"

namespace pto::cli {

samples::SampleArgs sample_args(const RunOptions& o) {
  const auto& info = find_sample(o.sample);
  samples::SampleArgs a;
  a.shape = o.shape.empty() ? info.default_shape : parse_shape(o.shape);
  a.dtype = parse_dtype(o.dtype);
  a.block_dim = o.block_dim;
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
  auto run = info.prepare(args);
  const auto t = std::chrono::steady_clock::now();
  run.launch();
  pto::synchronize();
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  const auto verdict = run.verify();
  if (o.json) {
    nlohmann::json j{{"sample", info.name},
                     {"shape", args.shape},
                     {"dtype", dtype_name(args.dtype)},
                     {"block_dim", args.block_dim},
                     {"params", args.params},
                     {"ok", verdict.ok},
                     {"max_abs_error", verdict.max_abs_error},
                     {"tolerance", verdict.tolerance},
                     {"first_call_ms", first_ms}};
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("sample         {}\nshape          {}\ndtype          {}\nblock_dim      {}\n", info.name, shape_string(args.shape),
               dtype_name(args.dtype), args.block_dim);
    for (const auto& [k, v] : args.params) fmt::print("param          {}={}\n", k, v);
    fmt::print("ok             {}\nmax_abs_error  {:.3g} (tolerance {:.0e})\nfirst_call_ms  {:.2f}\n", verdict.ok,
               verdict.max_abs_error, verdict.tolerance, first_ms);
  }
  return verdict.ok ? 0 : 1;
}

}  // namespace pto::cli
