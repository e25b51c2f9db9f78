#pragma once
// How a kernel is built and run: the engine, the optimisation level, the chip, the timing model.
#include <cstdint>
#include <string>

#include "pto/ir/Kernel.hpp"

namespace pto {

struct JitOptions {
  std::string name = "kernel";
  bool auto_mutex = true;    // insert the tile-slot mutexes (RAW/WAR ordering) automatically (PyPTO Pro's default);
                             // false for kernels that order their pipes by hand with flags
  int opt_level = 2;
  std::string chip = "a2";   // a built-in profile name or a JSON file path
  bool timing = true;        // simulate pipe timing (LaunchProfile); off: functional only
  bool race_check = true;    // happens-before race checking (needs timing)
  ir::KernelMode mode = ir::KernelMode::Auto;  // Auto: deduced from the kernel's sections and tiles
  bool fatal_assert = false;                   // a failed pl::pto_assert stops the launch (else it only logs)
  int64_t instruction_budget = 100'000'000;    // per core; a kernel running longer stops with an error
  bool interpret = false;    // run the reference interpreter instead of LLVM code (the oracle of differential tests)
};

/// `options` after the environment's overrides (pto::Environment): PTO_INTERPRET=1 forces the
/// interpreter, PTO_OPT_LEVEL=N the optimisation level (the parameterised correctness runs use
/// them); unset, `options` is returned as given.
JitOptions apply_environment(JitOptions options);

}  // namespace pto
