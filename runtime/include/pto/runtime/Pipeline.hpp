#pragma once
// Turning a kernel body into something runnable, in two named steps. pto::Kernel, the tests and
// the fuzzer all go through them:
//
//   trace_kernel   body + parameter signature  ->  IR (ir::Kernel, as traced, not lowered)
//   prepare_kernel IR + chip + options         ->  CompiledKernel: the lowered IR, the tables the
//                                                  emulator needs, and an executable — the
//                                                  reference interpreter (options.interpret), or
//                                                  machine code from an AOT package, the disk
//                                                  cache or LLVM, in that order (tiered: the
//                                                  quick tier's, TierUp.hpp).
//
// Neither step caches: pto::Kernel keeps its specialisations in the CompileCache.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/JitOptions.hpp"

namespace pto {

/// What a kernel body is traced against.
struct TraceSignature {
  std::string name;                      // the kernel's name (errors, IR, symbols)
  std::string specialization;            // how this specialisation reads in messages ("arg0:f32[1024]")
  std::vector<ir::TensorParam> tensors;  // the GM tensor parameters, in order
  const TilingKey* key = nullptr;        // the launch's TilingKey, if any
};

/// Runs `body` under a fresh trace context for `signature` and returns the kernel it traced.
/// `body` declares its scalar parameters on lang::TraceContext::current() and records the
/// kernel's instructions. A misuse of the language is a pto::UserError.
ir::Kernel trace_kernel(const TraceSignature& signature, const std::function<void()>& body);

/// Lowers `traced` for `chip` under `options` (the options as given: apply_environment is the
/// caller's choice) and makes it runnable. `call_site` names the launch in errors (for example a
/// package built for another CPU).
std::shared_ptr<CompiledKernel> prepare_kernel(ir::Kernel traced, const ChipProfile& chip, const JitOptions& options,
                                               const SourceLoc& call_site = {});

namespace detail {
/// The LLVM compile of a lowered kernel (quick tier or optimised) with its object stored in the
/// disk cache under `key` when the cache is on: prepare_kernel and the tier-up thread share it.
backend::CompiledCode compile_for_cache(const ir::Kernel& k, const ChipProfile& chip, const JitOptions& o, bool quick, const std::string& key,
                                        backend::ObjectCode& object);
}  // namespace detail

}  // namespace pto
