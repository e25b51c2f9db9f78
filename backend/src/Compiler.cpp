#include "pto/backend/Compiler.hpp"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "CodeGenLLVM.hpp"
#include "JitEngine.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/ir/Printer.hpp"

#include <xxhash.h>

namespace pto::generated {
extern const std::string_view codegen_fingerprint;  // codegen_fingerprint.cpp (cmake/HashFiles.cmake)
}

namespace pto::backend {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

llvm::OptimizationLevel level(int o) {
  switch (o) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 3: return llvm::OptimizationLevel::O3;
    default: return llvm::OptimizationLevel::O2;
  }
}

void optimise(llvm::Module& m, llvm::TargetMachine& tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = opt_level >= 2;
  pto.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = opt_level == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                               : pb.buildPerModuleDefaultPipeline(level(opt_level));
  mpm.run(m, mam);
}

}  // namespace

std::string jit_target_description() {
  const auto& tm = JitEngine::instance().target_machine();
  return fmt::format("LLVM {} {} {} {} codegen {}", LLVM_VERSION_STRING, tm.getTargetTriple().str(), tm.getTargetCPU().str(),
                     tm.getTargetFeatureString().str(), generated::codegen_fingerprint.substr(0, 16));
}

KernelFn load_kernel_object(const ObjectCode& object, double* link_ms) {
  auto t = Clock::now();
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object.bytes, object.symbol);
  auto fn = reinterpret_cast<KernelFn>(JitEngine::instance().add_object_once(std::move(buffer), object.symbol));
  if (link_ms) *link_ms = ms_since(t);
  return fn;
}

CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options) {
  return compile_kernel(k, chip, options, nullptr);
}

std::string host_cpu_name() { return JitEngine::instance().target_machine().getTargetCPU().str(); }

double take_engine_init_ms() { return JitEngine::instance().take_init_ms(); }

CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, ObjectCode* object_out) {
  auto& jit = JitEngine::instance();
  CompiledCode out;
  // A content-derived name: the same kernel compiled twice (or loaded from a cache) is one symbol.
  out.symbol = !options.symbol.empty()
                   ? options.symbol
                   : fmt::format("pto_{}_{:016x}", k.name,
                                 XXH3_64bits_withSeed(ir::to_string(k).data(), ir::to_string(k).size(),
                                                      static_cast<uint64_t>(options.opt_level * 2 + options.instrument)));
  for (auto& ch : out.symbol) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';

  auto t = Clock::now();
  llvm::LLVMContext context;
  llvm::Module module(out.symbol, context);
  module.setDataLayout(jit.data_layout());
  module.setTargetTriple(jit.triple().str());
  emit_kernel_llvm(k, chip, module, out.symbol, jit.thread_target_machine(), options.instrument);
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  PTO_INTERNAL_CHECK(!llvm::verifyModule(module, &verify_os)) << "invalid LLVM IR for kernel " << k.name << ": " << verify_errors;
  out.timings.emit_ms = ms_since(t);

  // Each thread optimises on its own TargetMachine: specialisations compile side by side.
  t = Clock::now();
  optimise(module, jit.thread_target_machine(), options.opt_level);
  out.timings.optimise_ms = ms_since(t);
  if (options.keep_llvm_ir || debug_level() >= 3) {
    llvm::raw_string_ostream os(out.llvm_ir);
    module.print(os, nullptr);
    os.flush();
    if (debug_level() >= 3) std::fprintf(stderr, "---- LLVM IR (O%d) ----\n%s\n", options.opt_level, out.llvm_ir.c_str());
  }

  t = Clock::now();
  auto object = jit.compile(module);
  out.object_bytes = object->getBufferSize();
  out.timings.codegen_ms = ms_since(t);
  if (object_out) *object_out = ObjectCode{out.symbol, std::string(object->getBuffer())};

  t = Clock::now();
  out.fn = reinterpret_cast<KernelFn>(jit.add_object_once(std::move(object), out.symbol));
  out.timings.link_ms = ms_since(t);
  return out;
}

}  // namespace pto::backend
