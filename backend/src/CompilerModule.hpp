#pragma once
// The interface between the LLVM-free backend (CompilerLoader.cpp) and the compiler module
// libpto_compiler.so (Compiler.cpp, NativeTarget.cpp, SharedObjectLinker.cpp, codegen/), the
// one part of PTO-JIT that links LLVM. The loader opens the module with dlopen on the first
// compile and finds this table by its C name; both sides are built from the same sources in one
// build, and the loader refuses a module whose codegen fingerprint is not its own.
#include <string>
#include <string_view>

#include "pto/backend/Compiler.hpp"

namespace pto::backend {

struct CompilerModule {
  std::string_view codegen_fingerprint;  // of the sources the module was built from
  /// Creates LLVM's native target and the host TargetMachine (once; the loader times it).
  void (*init)();
  /// compile_kernel without loading: CompiledCode::fn stays null and `object` receives the
  /// shared object; timings.link_ms covers the lld link only.
  CompiledCode (*compile)(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, ObjectCode* object);
  std::string (*host_cpu_name)();
};

}  // namespace pto::backend

/// The module's one exported symbol.
extern "C" const pto::backend::CompilerModule* pto_compiler_module();
