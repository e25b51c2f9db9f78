#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>

#include <pto/runtime/Emulator.hpp>
#include <pto/support/Environment.hpp>

namespace {
// Tests compile what they run: the persistent disk cache stays off unless the environment
// (ctest, for the disk cache tests) names a directory.
const bool disk_cache_off = [] { return setenv("PTO_CACHE_DIR", "off", /*overwrite=*/0) == 0; }();
// PTO_HOST_THREADS=N runs a suite on N host threads (the parameterised correctness runs).
const bool host_threads = [] {
  if (const auto n = pto::Environment::get().host_threads) pto::set_host_threads(*n);
  return true;
}();
}  // namespace
