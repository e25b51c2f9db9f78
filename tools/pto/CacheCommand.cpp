#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "pto/runtime/DiskCache.hpp"

namespace pto::cli {

int cache_command(const std::string& action, bool json) {
  DiskCache& cache = DiskCache::global();
  PTO_USER_CHECK(cache.enabled(), ErrorSite{}) << "the disk cache is off (PTO_CACHE_DIR=off, or no usable directory)";
  if (action == "clear") {
    const auto before = cache.stats();
    cache.clear();
    fmt::print("cleared {} entries ({} bytes) from {}\n", before.entries, before.bytes, cache.dir());
    return 0;
  }
  if (action == "ls") {
    const auto entries = cache.list();
    if (json) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& e : entries) j.push_back({{"file", e.file}, {"kernel", e.kernel}, {"bytes", e.bytes}, {"compile_ms", e.compile_ms}});
      fmt::print("{}\n", j.dump());
    } else {
      for (const auto& e : entries) fmt::print("{:<14} {:>8} B {:>9.2f} ms  {}\n", e.kernel, e.bytes, e.compile_ms, e.file);
    }
    return 0;
  }
  PTO_USER_CHECK(action == "stats", ErrorSite{}) << "pto cache takes ls, stats or clear, not '" << action << "'";
  const auto s = cache.stats();
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"dir", cache.dir()}, {"entries", s.entries}, {"bytes", s.bytes}, {"hits", s.hits},
                                      {"compile_ms", s.compile_ms}}.dump());
  } else {
    fmt::print("dir         {}\nentries     {}\nbytes       {}\nhits        {}\ncompile_ms  {:.1f} (what the entries cost to compile)\n",
               cache.dir(), s.entries, s.bytes, s.hits, s.compile_ms);
  }
  return 0;
}

}  // namespace pto::cli
