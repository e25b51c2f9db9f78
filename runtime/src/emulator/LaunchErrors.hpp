#pragma once
// A failed core or a failure the pipeline model found, as the pto::UserError the launch raises
// (naming kernel, core, pipe, instruction and source line). Private to the emulator.
#include <string>

#include "pto/backend/KernelABI.hpp"
#include "pto/runtime/CompiledKernel.hpp"

namespace pto::emulator {

/// The message of a failed runtime check.
std::string describe_failure(const CompiledKernel& k, const CoreStatus& s);
/// Raises core `core`'s failed runtime check.
[[noreturn]] void throw_failure(const CompiledKernel& k, const CoreStatus& s, int core, ir::CoreKind kind);
/// Raises a failure found outside the kernel's own checks (a deadlock, a sync misuse) at `instr`.
[[noreturn]] void throw_model_failure(const CompiledKernel& k, const std::string& reason, int instr, int core, ir::CoreKind kind);

}  // namespace pto::emulator
