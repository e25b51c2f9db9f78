#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "Fuzz.hpp"
#include "Progress.hpp"

namespace pto::cli {

int fuzz_command(FuzzOptions o) {
  if (o.fresh_seed) o.seed = (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
  const int cases = o.cases;  // the names the output below uses
  const uint64_t seed = o.seed;
  const bool json = o.json;
  fuzz::Options options{.cases = cases, .seed = seed, .jobs = o.jobs};
  if (!json) fmt::print("seed        {}\n", seed);
  Progress progress("fuzz", cases, json);
  if (!json) {
    options.log = [&](const std::string& line) {
      progress.finish();
      fmt::print("{}\n", line);
    };
  }
  options.progress = [&](int done, int mismatches) { progress.update(done, mismatches); };
  const fuzz::Result r = fuzz::run(options);
  progress.finish();
  if (json) {
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& f : r.failures) failures.push_back({{"what", f.what}, {"cpp", f.cpp}});
    fmt::print("{}\n", nlohmann::json{{"cases", r.cases}, {"mismatches", r.mismatches}, {"seconds", r.seconds}, {"seed", seed},
                                      {"failures", failures}}.dump());
  } else {
    fmt::print("cases       {}\nmismatches  {}\nseconds     {:.1f}\n", r.cases, r.mismatches, r.seconds);
  }
  return r.mismatches == 0 ? 0 : 1;
}

}  // namespace pto::cli
