#pragma once
// The host CPU as LLVM's code generator sees it, created once per process by the compiler module:
// the native target, a TargetMachine for the host CPU and features (ORC's JITTargetMachineBuilder
// detects them), and a pool of TargetMachines that compiles lease one at a time. Machine code
// comes out as an object file in memory (ORC's SimpleCompiler); SharedObjectLinker makes it a
// shared object.
#include <memory>
#include <mutex>
#include <vector>

#include "LLVMHeaders.hpp"

namespace pto::backend {

class NativeTarget {
 public:
  /// The target of this process, created on first use.
  static NativeTarget& instance();

  /// A TargetMachine of the caller's own while the lease lives, returned to a pool after: LLVM
  /// does not make one TargetMachine safe for pass pipelines or code generation on several threads
  /// at once (a stress test crashed in IndVarSimplify), so each compile takes its own; the pool
  /// keeps them from being created per compile. (A thread_local would put them in the dynamic TLS
  /// of this dlopen'ed module, which ThreadSanitizer cannot follow as threads end and start.)
  class Lease {
   public:
    Lease(NativeTarget& owner, std::unique_ptr<llvm::TargetMachine> tm) : owner_(&owner), tm_(std::move(tm)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (tm_) owner_->give_back(std::move(tm_));
    }
    llvm::TargetMachine& operator*() const { return *tm_; }

   private:
    NativeTarget* owner_;
    std::unique_ptr<llvm::TargetMachine> tm_;
  };
  Lease lease();

  /// Compiles `m` to an object for the host CPU on `tm` (a leased TargetMachine) at `level`
  /// (CodeGenOpt::None: the fast instruction selector and register allocator); `tm` is left at
  /// the default level.
  std::unique_ptr<llvm::MemoryBuffer> compile(llvm::Module& m, llvm::TargetMachine& tm, llvm::CodeGenOpt::Level level);

  /// The process's TargetMachine: the host CPU and features (names, data layout), not for pass
  /// pipelines or code generation (those take a lease).
  const llvm::TargetMachine& target_machine() const { return *tm_; }
  const llvm::DataLayout& data_layout() const { return layout_; }
  const llvm::Triple& triple() const { return tm_->getTargetTriple(); }

 private:
  NativeTarget();
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> jtmb_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  llvm::DataLayout layout_;
  void give_back(std::unique_ptr<llvm::TargetMachine> tm);
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<llvm::TargetMachine>> pool_;
};

}  // namespace pto::backend
