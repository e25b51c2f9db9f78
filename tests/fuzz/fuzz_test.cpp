// The differential fuzzer's bounded run (fixed seed): 2,000 random kernels must give the same
// elements and the same simulated cycles on the JIT and on the reference interpreter.
#include <doctest/doctest.h>

#include <cstdio>

#include "Fuzz.hpp"

TEST_CASE("2000 random kernels agree between the JIT and the reference interpreter") {
  const auto r = pto::fuzz::run({.cases = 2000, .seed = 20261130, .log = [](const std::string& line) { std::printf("%s\n", line.c_str()); }});
  CHECK(r.cases == 2000);
  for (const auto& f : r.failures) MESSAGE(f.what << "\n" << f.cpp);
  CHECK(r.mismatches == 0);
  std::printf("fuzz: %d cases, %d mismatches, %.1f s\n", r.cases, r.mismatches, r.seconds);
}
