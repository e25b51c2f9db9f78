#pragma once
// Compiles a lowered kernel to native code, and loads compiled kernels.
//
// Pipeline: LLVM IR emission -> new-pass-manager optimisation (O0..O3) -> object code for the
// host CPU -> a shared object (lld) -> loaded with dlopen -> function address. Each stage is timed.
//
// Everything that needs LLVM lives in the compiler module, libpto_compiler.so, which this API
// opens with dlopen on the first compile_kernel of a process. Loading a kernel that is already
// compiled (load_kernel_object: from the disk cache or a package) and computing cache keys
// (jit_target_description) need neither: a process whose kernels all come from caches never
// loads LLVM.
#include <cstddef>
#include <string>

#include "pto/backend/ChipProfile.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct CompileOptions {
  std::string symbol;          // the kernel function's name; derived from content when empty
  int opt_level = 2;           // 0..3
  /// The quick tier: a short pass pipeline that still vectorises tile loops, then the fast
  /// instruction selector and register allocator (CodeGenOpt::None): about a third of an O2
  /// compile, for code that runs somewhat slower with identical results (no pass here changes
  /// floating-point semantics; the kernel calls the pipeline model's hooks in the same order).
  bool quick = false;
  bool keep_llvm_ir = false;   // keep the optimised LLVM IR text (tests, PTO_DEBUG=3)
  bool instrument = true;      // report instructions and syncs to the pipeline model (CoreContext hooks)
  bool elide_copies = true;    // load elision and store forwarding (JitOptions::elide_copies)
  bool fuse_rows = true;       // row fusion (JitOptions::fuse_rows)
  bool print_llvm_ir = false;  // also print it to stderr (PTO_DEBUG=3; set by compile_kernel)
};

struct CompileTimings {
  double emit_ms = 0;      // IR -> LLVM IR
  double optimise_ms = 0;  // LLVM pass pipeline
  double codegen_ms = 0;   // LLVM IR -> object code
  double link_ms = 0;      // object -> shared object (lld) -> loaded (dlopen), symbol lookup
};

struct CompiledCode {
  KernelFn fn = nullptr;
  std::string symbol;
  CompileTimings timings;
  std::string llvm_ir;     // when CompileOptions::keep_llvm_ir
  size_t object_bytes = 0;
};

CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options);

/// The machine code of a compiled kernel: an ELF shared object defining `symbol` and needing
/// nothing but libc (kept by compile_kernel for caches and packages).
struct ObjectCode {
  std::string symbol;
  std::string bytes;
};
/// Like compile_kernel, and also returns the shared object it loaded.
CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, ObjectCode* object);

/// Loads a shared object produced by compile_kernel (possibly in another process) and returns the
/// kernel function; no LLVM involved (an anonymous memory file opened with dlopen). Loading the
/// same symbol twice in one process returns the first copy. An InternalError when
/// the bytes are not a loadable shared object defining `symbol`.
KernelFn load_kernel_object(const ObjectCode& object, double* link_ms = nullptr);

/// "LLVM 16.0.6 <arch> cpu <identity> codegen <fingerprint>": what machine code depends on
/// besides the kernel, computed without LLVM. The CPU identity is the host's cpuid vendor,
/// family/model/stepping and feature words (what LLVM's host detection reads), so code compiled
/// on another CPU is never reused; the fingerprint hashes the backend's sources, so a changed
/// code generator never reuses an older one's objects.
std::string jit_target_description();

/// The host CPU the compiler targets, as LLVM names it, e.g. "znver4" (loads the compiler).
std::string host_cpu_name();

/// Loads the compiler module and LLVM's native target if this process has not yet (dlopen of
/// libpto_compiler.so, which brings libLLVM, then the host TargetMachine) and returns how long
/// that took, in ms — to the first caller only: later calls return 0, so exactly one
/// specialisation's cold time carries it.
double take_engine_init_ms();

/// Whether LLVM's library is mapped into this process (read from /proc/self/maps, not from our own
/// bookkeeping): false for a process whose kernels all came from caches or packages.
bool llvm_loaded();

}  // namespace pto::backend
