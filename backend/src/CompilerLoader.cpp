// compile_kernel and friends on the LLVM-free side: the compiler module (CompilerModule.hpp) is
// opened with dlopen on first use — never by a process whose kernels all come from caches.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "CodegenFingerprint.hpp"
#include "CompilerModule.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/support/Error.hpp"
#include "pto/support/Stopwatch.hpp"

namespace pto::backend {
namespace {

using Clock = SteadyClock;

std::atomic<double> load_ms{0};

/// The module at `path`, or nullptr with the reason in `why`.
const CompilerModule* try_open(const std::string& path, std::string& why) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    why = path + ": no such file";
    return nullptr;
  }
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    why = ::dlerror();  // names the path
    return nullptr;
  }
  auto entry = reinterpret_cast<const CompilerModule* (*)()>(::dlsym(handle, "pto_compiler_module"));
  if (!entry) {
    why = path + ": not a PTO-JIT compiler module (no pto_compiler_module symbol)";
    return nullptr;
  }
  const CompilerModule* module = entry();
  if (module->codegen_fingerprint != generated::codegen_fingerprint) {
    why = path + ": built from other sources than this program (codegen fingerprint " +
          std::string(module->codegen_fingerprint.substr(0, 16)) + ", this program " +
          std::string(generated::codegen_fingerprint.substr(0, 16)) + "); rebuild or reinstall PTO-JIT";
    return nullptr;
  }
  return module;
}

/// PTO_COMPILER_MODULE when set (and then only it: a path the user chose is never passed over);
/// else this build's module, then the installed one.
const CompilerModule* open_module() {
  const auto t = Clock::now();
  const CompilerModule* module = nullptr;
  std::string why;
  if (const char* env = std::getenv("PTO_COMPILER_MODULE"); env && *env) {
    module = try_open(env, why);
    PTO_USER_CHECK(module != nullptr, ErrorSite{}) << "PTO_COMPILER_MODULE: cannot use " << why;
  } else {
    std::string tried;
    for (const std::string path : {PTO_COMPILER_BUILD_PATH, PTO_COMPILER_INSTALL_PATH}) {
      if ((module = try_open(path, why))) break;
      tried += "\n  " + why;
    }
    if (!module) throw InternalError("pto: cannot load the compiler module libpto_compiler.so (set PTO_COMPILER_MODULE to its path); tried:" + tried);
  }
  module->init();
  load_ms = ms_since(t);  // the dlopen (which loads libLLVM) and LLVM's native target together
  return module;
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
