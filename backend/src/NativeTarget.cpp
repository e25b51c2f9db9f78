#include "NativeTarget.hpp"

#include <chrono>

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
  const auto start = std::chrono::steady_clock::now();
  jtmb_ = std::make_unique<llvm::orc::JITTargetMachineBuilder>(detect_host());
  tm_ = take(jtmb_->createTargetMachine(), "create target machine");
  layout_ = tm_->createDataLayout();
  init_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

llvm::TargetMachine& NativeTarget::thread_target_machine() {
  thread_local std::unique_ptr<llvm::TargetMachine> tm;
  if (!tm) tm = take(jtmb_->createTargetMachine(), "create target machine");
  return *tm;
}

std::unique_ptr<llvm::MemoryBuffer> NativeTarget::compile(llvm::Module& m) {
  llvm::orc::SimpleCompiler compiler(thread_target_machine());
  return take(compiler(m), "compile module");
}

}  // namespace pto::backend
