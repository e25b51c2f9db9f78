#include "JitEngine.hpp"

#include <chrono>

#include "pto/support/Error.hpp"

namespace pto::backend {
namespace {

template <class T>
T take(llvm::Expected<T> v, const char* what) {
  if (!v) throw InternalError(std::string("pto JIT: ") + what + ": " + llvm::toString(v.takeError()));
  return std::move(*v);
}

void check(llvm::Error e, const char* what) {
  if (e) throw InternalError(std::string("pto JIT: ") + what + ": " + llvm::toString(std::move(e)));
}

}  // namespace

JitEngine& JitEngine::instance() {
  static JitEngine engine;
  return engine;
}

JitEngine::JitEngine() {
  const auto start = std::chrono::steady_clock::now();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jtmb = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "detect host");
  jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  tm_ = take(jtmb.createTargetMachine(), "create target machine");
  jtmb_ = std::make_unique<llvm::orc::JITTargetMachineBuilder>(jtmb);
  jit_ = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create(), "create LLJIT");
  auto& dylib = jit_->getMainJITDylib();
  // Kernels call libc (memcpy, ...); the runtime's functions they reach through CoreContext::rt.
  dylib.addGenerator(take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit_->getDataLayout().getGlobalPrefix()),
                          "process symbols"));
  init_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

llvm::TargetMachine& JitEngine::thread_target_machine() {
  thread_local std::unique_ptr<llvm::TargetMachine> tm;
  if (!tm) tm = take(jtmb_->createTargetMachine(), "create target machine");
  return *tm;
}

std::unique_ptr<llvm::MemoryBuffer> JitEngine::compile(llvm::Module& m) {
  llvm::orc::SimpleCompiler compiler(thread_target_machine());
  return take(compiler(m), "compile module");
}

void JitEngine::add_object(std::unique_ptr<llvm::MemoryBuffer> object) {
  check(jit_->addObjectFile(std::move(object)), "add object");
}

void* JitEngine::add_object_once(std::unique_ptr<llvm::MemoryBuffer> object, const std::string& symbol) {
  std::lock_guard lock(symbols_mu_);
  auto it = symbols_.find(symbol);
  if (it != symbols_.end()) return it->second;
  add_object(std::move(object));
  void* addr = lookup(symbol);
  symbols_[symbol] = addr;
  return addr;
}

void* JitEngine::lookup(const std::string& symbol) {
  auto addr = take(jit_->lookup(symbol), "lookup");
  return addr.toPtr<void*>();
}

}  // namespace pto::backend
