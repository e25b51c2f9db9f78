#include "pto/support/Environment.hpp"

#include <cstdlib>
#include <cstring>

namespace pto {
namespace {

std::optional<int> integer(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::atoi(v);
}

Environment read() {
  Environment e;
  if (const char* v = std::getenv("PTO_INTERPRET"); v && std::strcmp(v, "1") == 0) e.interpret = true;
  e.opt_level = integer("PTO_OPT_LEVEL");
  e.debug_level = integer("PTO_DEBUG").value_or(0);
  if (const char* v = std::getenv("PTO_CACHE_DIR")) {
    e.cache_dir = std::strcmp(v, "off") == 0 ? "" : v;
  } else if (const char* home = std::getenv("HOME")) {
    e.cache_dir = std::string(home) + "/.cache/pto";
  }
  e.host_threads = integer("PTO_HOST_THREADS");
  if (const char* v = std::getenv("PTO_ON_RACE"); v && *v) e.on_race = v;
  if (const char* v = std::getenv("PTO_TIERED"); v && *v) e.tiered = v;
  return e;
}

}  // namespace

const Environment& Environment::get() {
  static const Environment e = read();
  return e;
}

}  // namespace pto
