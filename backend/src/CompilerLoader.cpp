// compile_kernel and friends on the LLVM-free side: the compiler module (CompilerModule.hpp) is
// opened with dlopen on first use — never by a process whose kernels all come from caches.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "CompilerModule.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/support/Error.hpp"

namespace pto::generated {
extern const std::string_view codegen_fingerprint;  // codegen_fingerprint.cpp (cmake/HashFiles.cmake)
}

namespace pto::backend {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::atomic<double> load_ms{0};

/// Where the module may be: PTO_COMPILER_MODULE, then this build's, then the installed one.
std::vector<std::string> module_candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("PTO_COMPILER_MODULE"); env && *env) out.emplace_back(env);
  out.emplace_back(PTO_COMPILER_BUILD_PATH);
  out.emplace_back(PTO_COMPILER_INSTALL_PATH);
  return out;
}

const CompilerModule* open_module() {
  const auto t = Clock::now();
  std::string tried;
  for (const auto& path : module_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += "\n  " + path + ": no such file";
      continue;
    }
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      tried += "\n  " + path + ": " + ::dlerror();
      continue;
    }
    auto entry = reinterpret_cast<const CompilerModule* (*)()>(::dlsym(handle, "pto_compiler_module"));
    if (!entry) {
      tried += "\n  " + path + ": no pto_compiler_module symbol";
      continue;
    }
    const CompilerModule* module = entry();
    if (module->codegen_fingerprint != generated::codegen_fingerprint) {
      tried += "\n  " + path + ": built from other sources than this program (codegen fingerprint " +
               std::string(module->codegen_fingerprint.substr(0, 16)) + ", this program " +
               std::string(generated::codegen_fingerprint.substr(0, 16)) + "); rebuild or reinstall PTO-JIT";
      continue;
    }
    module->init();
    load_ms = ms_since(t);  // the dlopen (which loads libLLVM) and LLVM's native target together
    return module;
  }
  throw InternalError("pto: cannot load the compiler module libpto_compiler.so (set PTO_COMPILER_MODULE to its path); tried:" + tried);
}

const CompilerModule& module() {
  static const CompilerModule* m = open_module();
  return *m;
}

}  // namespace

CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options, ObjectCode* object_out) {
  CompileOptions o = options;
  o.print_llvm_ir = o.print_llvm_ir || debug_level() >= 3;
  ObjectCode object;
  CompiledCode out = module().compile(k, chip, o, &object);
  double load = 0;
  out.fn = load_kernel_object(object, &load);
  out.timings.link_ms += load;
  if (object_out) *object_out = std::move(object);
  return out;
}

CompiledCode compile_kernel(const ir::Kernel& k, const ChipProfile& chip, const CompileOptions& options) {
  return compile_kernel(k, chip, options, nullptr);
}

std::string host_cpu_name() { return module().host_cpu_name(); }

double take_engine_init_ms() {
  module();
  return load_ms.exchange(0);
}

bool llvm_loaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("/libLLVM") != std::string::npos) return true;
  }
  return false;
}

}  // namespace pto::backend
