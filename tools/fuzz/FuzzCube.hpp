#pragma once
// Random cube and mix kernels for the differential fuzzer (see Fuzz.hpp).
#include <cstdint>
#include <string>

namespace pto::fuzz::detail {

/// Runs the random cube case of `seed` on the JIT and the interpreter: "" when they agree on
/// every output element and on the simulated time, else the first difference. `description`
/// receives the case's parameters.
std::string run_cube_case(uint64_t seed, std::string* description);

/// The same for a random mix kernel (samples 04 and 06 on chips a2 and a5): FuzzMix.cpp.
std::string run_mix_case(uint64_t seed, std::string* description);

}  // namespace pto::fuzz::detail
