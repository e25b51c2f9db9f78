#include "NativeTarget.hpp"

#include "pto/support/Error.hpp"

namespace pto::backend {
namespace {

template <class T>
T take(llvm::Expected<T> v, const char* what) {
  if (!v) throw InternalError(std::string("pto compiler: ") + what + ": " + llvm::toString(v.takeError()));
  return std::move(*v);
}

llvm::orc::JITTargetMachineBuilder detect_host() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jtmb = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "detect host");
  jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  // Kernels are linked into shared objects and opened with dlopen.
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  return jtmb;
}

}  // namespace

NativeTarget& NativeTarget::instance() {
  static NativeTarget target;
  return target;
}

NativeTarget::NativeTarget() : layout_("") {
  jtmb_ = std::make_unique<llvm::orc::JITTargetMachineBuilder>(detect_host());
  tm_ = take(jtmb_->createTargetMachine(), "create target machine");
  layout_ = tm_->createDataLayout();
}

NativeTarget::Lease NativeTarget::lease() {
  {
    std::lock_guard lock(pool_mu_);
    if (!pool_.empty()) {
      auto tm = std::move(pool_.back());
      pool_.pop_back();
      return Lease(*this, std::move(tm));
    }
  }
  return Lease(*this, take(jtmb_->createTargetMachine(), "create target machine"));
}

void NativeTarget::give_back(std::unique_ptr<llvm::TargetMachine> tm) {
  std::lock_guard lock(pool_mu_);
  pool_.push_back(std::move(tm));
}

std::unique_ptr<llvm::MemoryBuffer> NativeTarget::compile(llvm::Module& m, llvm::TargetMachine& tm, llvm::CodeGenOpt::Level level) {
  // Puts the leased machine back as it was, whatever happens: its level, and the options that
  // code generation itself sets. At CodeGenOpt::None, LLVM's TargetPassConfig picks FastISel and
  // sets TargetOptions::EnableFastISel, which no later compile at Default clears: a machine that
  // had compiled a quick-tier kernel then selected the next optimising compile's instructions
  // with FastISel first, so a tier-up's object differed from a direct compile's under the same
  // cache key (layernorm 256x1024 on one block, timing off: 79-91 us tiered against 71 us).
  struct AtLevel {
    llvm::TargetMachine& tm;
    const llvm::TargetOptions options;
    AtLevel(llvm::TargetMachine& t, llvm::CodeGenOpt::Level l) : tm(t), options(t.Options) {
      tm.setOptLevel(l);
      tm.setO0WantsFastISel(l == llvm::CodeGenOpt::None);
    }
    ~AtLevel() {
      tm.Options = options;
      tm.setOptLevel(llvm::CodeGenOpt::Default);
      tm.setO0WantsFastISel(false);
    }
  } at_level(tm, level);
  llvm::orc::SimpleCompiler compiler(tm);
  return take(compiler(m), "compile module");
}

}  // namespace pto::backend
