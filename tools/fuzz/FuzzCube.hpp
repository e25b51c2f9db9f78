#pragma once
// Random cube kernels for the differential fuzzer (see Fuzz.hpp).
#include <cstdint>
#include <string>

namespace pto::fuzz::detail {

/// Runs the random cube case of `seed` on the JIT and the interpreter: "" when they agree on
/// every output element and on the simulated time, else the first difference. `description`
/// receives the case's parameters.
std::string run_cube_case(uint64_t seed, std::string* description);

}  // namespace pto::fuzz::detail
