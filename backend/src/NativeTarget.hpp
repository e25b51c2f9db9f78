#pragma once
// The host CPU as LLVM's code generator sees it, created once per process by the compiler module:
// the native target, a TargetMachine for the host CPU and features (ORC's JITTargetMachineBuilder
// detects them), and one TargetMachine per compiling thread. Machine code comes out as an object
// file in memory (ORC's SimpleCompiler); SharedObjectLinker makes it a shared object.
#include <atomic>
#include <memory>

#include "LLVMHeaders.hpp"

namespace pto::backend {

class NativeTarget {
 public:
  /// The target of this process, created on first use.
  static NativeTarget& instance();
  /// How long creating it took (ms), to the first caller; 0 after.
  double take_init_ms() { return init_ms_.exchange(0); }

  /// Compiles `m` to an object for the host CPU, on the calling thread's TargetMachine.
  std::unique_ptr<llvm::MemoryBuffer> compile(llvm::Module& m);

  /// The process's TargetMachine: the host CPU and features (names, data layout). Not for pass
  /// pipelines or code generation, which LLVM does not make safe on one TargetMachine from
  /// several threads (a stress test crashed in IndVarSimplify): those take thread_target_machine.
  const llvm::TargetMachine& target_machine() const { return *tm_; }
  /// A TargetMachine of the calling thread, made like target_machine() on its first use there:
  /// specialisations optimise and compile side by side, each on its own thread's.
  llvm::TargetMachine& thread_target_machine();
  const llvm::DataLayout& data_layout() const { return layout_; }
  const llvm::Triple& triple() const { return tm_->getTargetTriple(); }

 private:
  NativeTarget();
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> jtmb_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  llvm::DataLayout layout_;
  std::atomic<double> init_ms_{0};
};

}  // namespace pto::backend
