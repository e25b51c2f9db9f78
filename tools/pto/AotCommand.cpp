#include <fmt/format.h>

#include "Commands.hpp"
#include "Samples.hpp"
#include "pto/runtime/Package.hpp"

namespace pto::cli {

// `pto aot --out DIR --spec SAMPLE:SHAPE:DTYPE[:BLOCK_DIM]...`: precompiles the listed
// specialisations into a package.
int aot_command(const std::string& out, std::vector<std::string> specs) {
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
    PTO_USER_CHECK(parts.size() == 3 || parts.size() == 4, ErrorSite{})
        << "--spec '" << spec << "' is not SAMPLE:SHAPE:DTYPE[:BLOCK_DIM]";
    RunOptions o{.sample = parts[0], .shape = parts[1], .dtype = parts[2], .block_dim = parts.size() == 4 ? std::stoi(parts[3]) : 8};
    auto run = prepare_run(find_sample(o.sample), sample_args(o));
    builder.add_compiled(*run.compile());
  }
  fmt::print("{}", builder.finish().str());
  return 0;
}

}  // namespace pto::cli
