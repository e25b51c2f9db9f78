#pragma once
// Compiles a lowered kernel to native code in the process-wide ORC JIT.
// Pipeline: LLVM IR emission -> new-pass-manager optimisation (O0..O3) -> object code for the
// host CPU -> linked into the JIT -> function address. Each stage is timed.
#include <cstddef>
#include <string>

#include "pto/backend/ChipProfile.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct CompileOptions {
  std::string symbol;         // the kernel function's name in the JIT; derived from content when empty
  int opt_level = 2;          // 0..3
  bool keep_llvm_ir = false;  // keep the optimised LLVM IR text (tests, PTO_DEBUG=3)
  bool instrument = true;     // report instructions and syncs to the pipeline model (CoreContext hooks)
};

struct CompileTimings {
  double emit_ms = 0;      // IR -> LLVM IR
  double optimise_ms = 0;  // LLVM pass pipeline
  double codegen_ms = 0;   // LLVM IR -> object code
  double link_ms = 0;      // object -> JIT, symbol lookup
};

struct CompiledCode {
  KernelFn fn = nullptr;
  std::string symbol;
  CompileTimings timings;
  std::string llvm_ir;     // when CompileOptions::keep_llvm_ir
  size_t object_bytes = 0;
};

CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options);

/// The object file of a compiled kernel (kept by compile_kernel for caches).
struct ObjectCode {
  std::string symbol;
  std::string bytes;
};
/// Like compile_kernel, and also returns the object file it linked.
CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, ObjectCode* object);

/// Links an object file produced by compile_kernel (possibly in another process) and returns the
/// kernel function. Loading the same symbol twice in one process returns the first copy.
KernelFn load_kernel_object(const ObjectCode& object, double* link_ms = nullptr);

/// "LLVM 16.0.6 <triple> <cpu> <features> codegen <fingerprint>": what an object file depends on
/// besides the kernel — the fingerprint hashes the backend's sources, so a changed code generator
/// never reuses an older one's objects.
std::string jit_target_description();

/// The host CPU the JIT targets, e.g. "skylake-avx512".
std::string host_cpu_name();

/// Creates the process's JIT engine if it does not exist yet (LLVM's native target, the host
/// TargetMachine, the LLJIT) and returns how long that took, in ms — to the first caller only:
/// later calls return 0, so exactly one specialisation's cold time carries it.
double take_engine_init_ms();

}  // namespace pto::backend
