#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>

namespace {
// Tests compile what they run: the persistent disk cache stays off unless the environment
// (ctest, for the disk cache tests) names a directory.
const bool disk_cache_off = [] { return setenv("PTO_CACHE_DIR", "off", /*overwrite=*/0) == 0; }();
}  // namespace
