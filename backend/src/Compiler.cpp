// The compiler module (libpto_compiler.so, CompilerModule.hpp): lowered IR -> LLVM IR ->
// optimised -> object code -> shared object. The only translation unit that exports a symbol.
#include "CompilerModule.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "CodeGenLLVM.hpp"
#include "NativeTarget.hpp"
#include "SharedObjectLinker.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/support/Error.hpp"

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
  llvm::ModulePassManager mpm;
  if (const char* p = std::getenv("PTO_EXPERIMENT_PIPELINE"); p && *p && opt_level == 2) {
    if (auto err = pb.parsePassPipeline(mpm, p)) throw InternalError("bad pipeline: " + llvm::toString(std::move(err)));
  } else {
    mpm = opt_level == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0) : pb.buildPerModuleDefaultPipeline(level(opt_level));
  }
  mpm.run(m, mam);
}

CompiledCode module_compile(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, ObjectCode* object_out) {
  auto& target = NativeTarget::instance();
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
  module.setDataLayout(target.data_layout());
  module.setTargetTriple(target.triple().str());
  emit_kernel_llvm(k, chip, module, out.symbol, target.thread_target_machine(), options.instrument);
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  PTO_INTERNAL_CHECK(!llvm::verifyModule(module, &verify_os)) << "invalid LLVM IR for kernel " << k.name << ": " << verify_errors;
  out.timings.emit_ms = ms_since(t);

  // Each thread optimises on its own TargetMachine: specialisations compile side by side.
  t = Clock::now();
  optimise(module, target.thread_target_machine(), options.opt_level);
  out.timings.optimise_ms = ms_since(t);
  if (options.keep_llvm_ir || options.print_llvm_ir) {
    llvm::raw_string_ostream os(out.llvm_ir);
    module.print(os, nullptr);
    os.flush();
    if (options.print_llvm_ir) std::fprintf(stderr, "---- LLVM IR (O%d) ----\n%s\n", options.opt_level, out.llvm_ir.c_str());
  }

  t = Clock::now();
  auto object = target.compile(module);
  out.timings.codegen_ms = ms_since(t);

  t = Clock::now();
  std::string shared = link_shared_object(object->getBuffer(), out.symbol);
  out.timings.link_ms = ms_since(t);
  out.object_bytes = shared.size();
  if (object_out) *object_out = ObjectCode{out.symbol, std::move(shared)};
  return out;
}

double module_init() { return NativeTarget::instance().take_init_ms(); }

std::string module_host_cpu_name() { return NativeTarget::instance().target_machine().getTargetCPU().str(); }

}  // namespace
}  // namespace pto::backend

extern "C" __attribute__((visibility("default"))) const pto::backend::CompilerModule* pto_compiler_module() {
  static const pto::backend::CompilerModule module{pto::generated::codegen_fingerprint, &pto::backend::module_init,
                                                   &pto::backend::module_compile, &pto::backend::module_host_cpu_name};
  return &module;
}
