#include <fmt/format.h>

#include "Commands.hpp"
#include "Samples.hpp"
#include "pto/runtime/Package.hpp"

namespace pto::cli {

// `pto aot --out DIR --spec SAMPLE:SHAPE:DTYPE[:BLOCK_DIM[:k=v,...]]...`: precompiles the listed
// specialisations into a package and reports what delivery costs: per specialisation (and
// TilingKey) the object size and first-compile time, for the package the total size and the key
// count, with a warning past each limit given.
int aot_command(const std::string& out, std::vector<std::string> specs, const AotLimits& limits) {
  if (specs.empty()) {
    specs = {"vector_add:1048576:f32:8", "vector_add:1048576:f16:8", "softmax:1024x1024:f32:8", "softmax:1024x1024:f16:8",
             "tiling_key:1048576:f32:8", "tiling_key:1000003:f32:8"};
  }
  PackageBuilder builder(out);
  for (const auto& spec : specs) {
    std::vector<std::string> parts;
    size_t pos = 0;
    while (pos <= spec.size()) {
      const size_t colon = spec.find(':', pos);
      parts.push_back(spec.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos));
      if (colon == std::string::npos) break;
      pos = colon + 1;
    }
    PTO_USER_CHECK(parts.size() >= 3 && parts.size() <= 5, ErrorSite{})
        << "--spec '" << spec << "' is not SAMPLE:SHAPE:DTYPE[:BLOCK_DIM[:k=v,...]]";
    int block_dim = 8;
    if (parts.size() >= 4) {
      size_t used = 0;
      try {
        block_dim = std::stoi(parts[3], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      PTO_USER_CHECK(used == parts[3].size() && !parts[3].empty(), ErrorSite{}) << "--spec '" << spec << "': block_dim '" << parts[3] << "' is not an integer";
    }
    RunOptions o{.sample = parts[0], .shape = parts[1], .dtype = parts[2], .block_dim = block_dim};
    if (parts.size() == 5) {
      for (size_t pos = 0; pos < parts[4].size();) {
        size_t comma = parts[4].find(',', pos);
        if (comma == std::string::npos) comma = parts[4].size();
        o.params.push_back(parts[4].substr(pos, comma - pos));
        pos = comma + 1;
      }
    }
    auto run = prepare_run(find_sample(o.sample), sample_args(o));
    builder.add_compiled(*run.compile());
  }
  PTO_USER_CHECK(limits.max_object_kb >= 0 && limits.max_total_kb >= 0 && limits.max_compile_ms >= 0 && limits.max_keys >= 0, ErrorSite{})
      << "pto aot: a --max-* limit must not be negative";
  const auto summary = builder.finish({.max_object_bytes = static_cast<uint64_t>(limits.max_object_kb * 1024),
                                       .max_total_bytes = static_cast<uint64_t>(limits.max_total_kb * 1024),
                                       .max_keys = static_cast<size_t>(limits.max_keys),
                                       .max_compile_ms = limits.max_compile_ms});
  fmt::print("{}", summary.str());
  return 0;
}

}  // namespace pto::cli
