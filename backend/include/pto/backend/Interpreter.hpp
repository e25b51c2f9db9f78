#pragma once
// The reference interpreter: executes a LOWERED ir::Kernel without LLVM, with the semantics of
// the generated code (CodeGenLLVM.cpp) — the same tile and GM results bit for bit, the same
// runtime checks in the same order (pto_rt_fail), the same hook calls (exec/sync/cross/debug) —
// so that it can serve as the oracle of differential tests of the code generator.
//
// Known, documented differences from generated code:
//  * a float row_sum is summed sequentially in column order; the generated code sums with
//    `reassoc` and LLVM vectorises it (partial sums), so float row sums may differ in the last
//    bits (integer sums, max and min are exact);
//  * NaN payloads: LLVM may commute the operands of commutative float operations, so which
//    NaN payload propagates can differ (NaN-ness never does);
//  * the sign of a zero chosen by float max/min between +0 and -0 follows the x86 lowering of
//    llvm.maxnum/minnum, which depends on what LLVM can prove is never NaN; the interpreter
//    models that proof for the common cases (constants, int->float casts, relu).
// Prefetches and streaming (non-temporal) copies are plain copies here: they move the same bytes.
#include <memory>

#include "pto/backend/ChipProfile.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

namespace interp {
struct Program;
}

/// A lowered kernel prepared for the reference interpreter.
class InterpretedKernel {
 public:
  /// `instrument`: call ctx->exec / ctx->sync hooks exactly where instrumented generated code
  /// does (CompileOptions::instrument). Throws an InternalError for IR the code generator rejects.
  InterpretedKernel(ir::Kernel kernel, const ChipProfile& chip, bool instrument);
  ~InterpretedKernel();
  InterpretedKernel(const InterpretedKernel&) = delete;
  InterpretedKernel& operator=(const InterpretedKernel&) = delete;

  /// Runs the kernel on one core, as `fn(ctx)` of the compiled kernel would. Thread-safe: all
  /// per-core state lives in a frame local to the call.
  void run(CoreContext* ctx) const;
  const ir::Kernel& kernel() const { return kernel_; }
  bool instrumented() const { return instrument_; }

 private:
  ir::Kernel kernel_;
  bool instrument_;
  std::unique_ptr<const interp::Program> program_;
};

}  // namespace pto::backend

/// A KernelFn that interprets static_cast<const pto::backend::InterpretedKernel*>(ctx->program).
extern "C" void pto_interpret(pto::CoreContext* ctx);
