// load_kernel_object: a kernel's shared object into the process without LLVM. The bytes are written
// to <scratch>/kernel<N>.so, opened with dlopen and unlinked at once (the mapping stays), so no
// file outlives the load. N counts the process's loads: dlopen returns an already loaded library
// for a path it has seen, so no path may be used twice (which is why an anonymous memfd, whose
// /proc/self/fd/N path the next one reuses, can't serve).
#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include "ScratchDir.hpp"
#include "pto/backend/Compiler.hpp"
#include "pto/support/Error.hpp"
#include "pto/support/Stopwatch.hpp"

namespace pto::backend {
namespace {

std::mutex loaded_mu;
std::map<std::string, KernelFn>& loaded_kernels() {  // symbol -> function, for the process's lifetime
  static std::map<std::string, KernelFn> m;
  return m;
}

KernelFn open_library(const ObjectCode& object) {
  static ScratchDir scratch("pto-kernels");
  static uint64_t serial = 0;  // under loaded_mu
  const std::filesystem::path path = scratch.path() / ("kernel" + std::to_string(serial++) + ".so");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(object.bytes.data(), static_cast<std::streamsize>(object.bytes.size()));
    if (!out) throw InternalError("pto: cannot write kernel " + object.symbol + " to " + path.string());
  }
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::error_code ec;
  std::filesystem::remove(path, ec);  // the mapping stays
  if (!handle) throw InternalError("pto: cannot load kernel " + object.symbol + ": " + ::dlerror());
  void* fn = ::dlsym(handle, object.symbol.c_str());
  if (!fn) throw InternalError("pto: the shared object of kernel " + object.symbol + " does not define it");
  return reinterpret_cast<KernelFn>(fn);
}

}  // namespace

KernelFn load_kernel_object(const ObjectCode& object, double* link_ms) {
  const auto t = SteadyClock::now();
  std::lock_guard lock(loaded_mu);
  auto [it, fresh] = loaded_kernels().try_emplace(object.symbol, nullptr);
  if (fresh) {
    try {
      it->second = open_library(object);
    } catch (...) {
      loaded_kernels().erase(it);
      throw;
    }
  }
  if (link_ms) *link_ms = ms_since(t);
  return it->second;
}

}  // namespace pto::backend
