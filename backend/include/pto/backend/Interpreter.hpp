#pragma once
// The reference interpreter: executes a LOWERED ir::Kernel without LLVM, with the semantics of
// the generated code (CodeGenLLVM.cpp) — the same tile and GM results bit for bit, the same
// runtime checks in the same order (pto_rt_fail), the same hook calls (exec/sync/cross/debug) —
// so that it can serve as the oracle of differential tests of the code generator.
//
// What cannot be replicated exactly, and what the interpreter does instead:
//  * a float row_sum is summed by both engines in one fixed order (column c to lane c % 8, then a
//    tree of the 8 lanes), so it is bit for bit too, on any host. The summed expression is
//    SLP-vectorised in the generated code, where the max/min choices below are not modelled:
//    with special values (NaN, -0 feeding rsqrt) a sum can still differ (the fuzzer sums no floats).
//  * llvm.maxnum/minnum may return either operand when +0 and -0 compare equal. The interpreter
//    models what LLVM 16 makes of the generated code on x86 (InterpretCompile.cpp): the x86
//    lowering's choice from what the SelectionDAG proves never NaN, InstCombine's rewrites
//    (half operands -> a libm fmaxf/fminf call, min(-x, -y) -> -max(x, y), max(x, -x) -> fabs x,
//    constants second). Not modelled: max/min of selects of half values, nested max/min with two
//    constants, and other LLVM versions or targets; these can differ only in the sign of a zero.
//  * NaN payloads follow x86 (quiet bit set, payload kept through f16 conversions); the tests
//    find them bit-identical, but LLVM may commute the operands of a commutative float operation.
//  * exp, log, tanh, sigmoid, erf, sin and cos are pto::math (Math.hpp): the generated code inlines
//    the same operations.
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
