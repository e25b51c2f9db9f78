#pragma once
// The process-wide ORC LLJIT, as small as LLVM's KaleidoscopeJIT: create, add an object file,
// look a symbol up. Object files (not IR modules) go in, so that compile and link are timed
// separately and objects can later be cached on disk.
#include <memory>
#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "LLVMHeaders.hpp"

namespace pto::backend {

class JitEngine {
 public:
  /// The engine of this process, created on first use.
  static JitEngine& instance();
  /// How long creating the engine took (ms), to the first caller; 0 after.
  double take_init_ms() { return init_ms_.exchange(0); }

  /// Compiles `m` to an object for the host CPU, on the calling thread's TargetMachine.
  std::unique_ptr<llvm::MemoryBuffer> compile(llvm::Module& m);
  void add_object(std::unique_ptr<llvm::MemoryBuffer> object);
  void* lookup(const std::string& symbol);
  /// Adds `object` defining `symbol` unless this process already has it; returns the address.
  void* add_object_once(std::unique_ptr<llvm::MemoryBuffer> object, const std::string& symbol);

  /// The process's TargetMachine: the host CPU and features (names, data layout). Not for pass
  /// pipelines or code generation, which LLVM does not make safe on one TargetMachine from
  /// several threads (a stress test crashed in IndVarSimplify): those take thread_target_machine.
  const llvm::TargetMachine& target_machine() const { return *tm_; }
  /// A TargetMachine of the calling thread, made like target_machine() on its first use there:
  /// specialisations optimise and compile side by side, each on its own thread's.
  llvm::TargetMachine& thread_target_machine();
  const llvm::DataLayout& data_layout() const { return jit_->getDataLayout(); }
  const llvm::Triple& triple() const { return jit_->getTargetTriple(); }

 private:
  JitEngine();
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> jtmb_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  std::mutex symbols_mu_;
  std::map<std::string, void*> symbols_;  // kernel symbols already linked
  std::atomic<double> init_ms_{0};
};

}  // namespace pto::backend
