// The compiler module (libpto_compiler.so, CompilerModule.hpp): lowered IR -> LLVM IR ->
// optimised -> object code -> shared object. The only translation unit that exports a symbol.
#include "CompilerModule.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <thread>
#include <vector>
#include <cstdio>

#include <fmt/format.h>

#include "CodeGenLLVM.hpp"
#include "CodegenFingerprint.hpp"
#include "NativeTarget.hpp"
#include "SharedObjectLinker.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/support/Error.hpp"
#include "pto/support/Stopwatch.hpp"

#include <xxhash.h>

namespace pto::backend {
namespace {

using Clock = SteadyClock;

llvm::OptimizationLevel level(int o) {
  switch (o) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 3: return llvm::OptimizationLevel::O3;
    default: return llvm::OptimizationLevel::O2;
  }
}

/// The quick tier's pipeline: promote the emitter's allocas, fold the redundant address
/// arithmetic it emits, hoist loop invariants and vectorise the inner tile loops; no unrolling,
/// no GVN, no SLP (measured on softmax: 12 ms against O2's 28).
constexpr const char* kQuickPipeline =
    "function(sroa,early-cse,simplifycfg,instcombine,loop-mssa(licm),loop-simplify,lcssa,loop-rotate,indvars,"
    "loop-vectorize,instcombine,simplifycfg)";

void optimise(llvm::Module& m, llvm::TargetMachine& tm, int opt_level, bool quick) {
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
  if (quick) {
    if (auto err = pb.parsePassPipeline(mpm, kQuickPipeline)) {
      throw InternalError("pto compiler: quick pipeline: " + llvm::toString(std::move(err)));
    }
  } else {
    mpm = opt_level == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0) : pb.buildPerModuleDefaultPipeline(level(opt_level));
  }
  mpm.run(m, mam);
}

/// One module compiled to an object: the whole kernel, or (mix kernels) one core kind's part.
struct Part {
  std::unique_ptr<llvm::MemoryBuffer> object;
  std::string llvm_ir;
  CompileTimings timings;
};

Part compile_part(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, const std::string& symbol,
                  std::optional<ir::CoreKind> only, const std::function<void(llvm::Module&, const llvm::TargetMachine&)>& add = {}) {
  auto& target = NativeTarget::instance();
  const NativeTarget::Lease tm = target.lease();  // this compile's own TargetMachine
  Part out;
  auto t = Clock::now();
  llvm::LLVMContext context;
  llvm::Module module(symbol, context);
  module.setDataLayout(target.data_layout());
  module.setTargetTriple(target.triple().str());
  emit_kernel_llvm(k, chip, module, symbol, *tm, options.instrument, options.elide_copies, options.fuse_rows, only);
  if (only) module.getFunction(symbol)->setVisibility(llvm::GlobalValue::HiddenVisibility);  // reached through the dispatcher
  if (add) add(module, *tm);
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  PTO_INTERNAL_CHECK(!llvm::verifyModule(module, &verify_os)) << "invalid LLVM IR for kernel " << k.name << ": " << verify_errors;
  out.timings.emit_ms = ms_since(t);

  // Each compile optimises on its own TargetMachine: specialisations and parts compile side by side.
  t = Clock::now();
  optimise(module, *tm, options.opt_level, options.quick);
  out.timings.optimise_ms = ms_since(t);
  if (options.keep_llvm_ir || options.print_llvm_ir) {
    llvm::raw_string_ostream os(out.llvm_ir);
    module.print(os, nullptr);
  }
  t = Clock::now();
  out.object = target.compile(module, *tm, options.quick ? llvm::CodeGenOpt::None : llvm::CodeGenOpt::Default);
  out.timings.codegen_ms = ms_since(t);
  return out;
}

CompiledCode module_compile(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, ObjectCode* object_out) {
  CompiledCode out;
  // A content-derived name: the same kernel compiled twice (or loaded from a cache) is one symbol;
  // its quick tier's code is another (both are loaded in a process that tiers up).
  out.symbol = !options.symbol.empty()
                   ? options.symbol
                   : fmt::format("pto_{}_{:016x}", k.name,
                                 XXH3_64bits_withSeed(ir::to_string(k).data(), ir::to_string(k).size(),
                                                      static_cast<uint64_t>(options.opt_level * 16 + options.fuse_rows * 8 + options.elide_copies * 4 + options.quick * 2 +
                                                                            options.instrument)));
  for (auto& ch : out.symbol) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';

  std::vector<Part> parts;
  if (k.mode == ir::KernelMode::Mix) {
    // The AIC's and the AIVs' code as two modules compiled on two threads (each about half the
    // kernel), joined by a dispatcher on the context's core kind.
    const std::string aic = out.symbol + "_aic", aiv = out.symbol + "_aiv";
    Part cube;
    std::exception_ptr cube_error;
    {
      std::jthread worker([&] {
        try {
          cube = compile_part(k, chip, options, aic, ir::CoreKind::AIC);
        } catch (...) {
          cube_error = std::current_exception();
        }
      });
      parts.push_back(compile_part(k, chip, options, aiv, ir::CoreKind::AIV, [&](llvm::Module& m, const llvm::TargetMachine& tm) {
        emit_core_dispatch(m, out.symbol, aic, aiv, tm);
      }));
    }
    if (cube_error) std::rethrow_exception(cube_error);
    parts.push_back(std::move(cube));
  } else {
    parts.push_back(compile_part(k, chip, options, out.symbol, std::nullopt));
  }
  std::vector<std::string_view> objects;
  for (const auto& p : parts) {  // side by side: each phase took as long as its slower part
    out.timings.emit_ms = std::max(out.timings.emit_ms, p.timings.emit_ms);
    out.timings.optimise_ms = std::max(out.timings.optimise_ms, p.timings.optimise_ms);
    out.timings.codegen_ms = std::max(out.timings.codegen_ms, p.timings.codegen_ms);
    out.llvm_ir += p.llvm_ir;
    objects.push_back(p.object->getBuffer());
  }
  if (options.print_llvm_ir) std::fprintf(stderr, "---- LLVM IR (O%d) ----\n%s\n", options.opt_level, out.llvm_ir.c_str());

  const auto t = Clock::now();
  std::string shared = link_shared_object(objects, out.symbol);
  out.timings.link_ms = ms_since(t);
  out.object_bytes = shared.size();
  if (object_out) *object_out = ObjectCode{out.symbol, std::move(shared)};
  return out;
}

void module_init() { NativeTarget::instance(); }

std::string module_host_cpu_name() { return NativeTarget::instance().target_machine().getTargetCPU().str(); }

}  // namespace
}  // namespace pto::backend

extern "C" __attribute__((visibility("default"))) const pto::backend::CompilerModule* pto_compiler_module() {
  static const pto::backend::CompilerModule module{pto::generated::codegen_fingerprint, &pto::backend::module_init,
                                                   &pto::backend::module_compile, &pto::backend::module_host_cpu_name};
  return &module;
}
