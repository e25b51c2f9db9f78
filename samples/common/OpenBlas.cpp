// OpenBlas.hpp: dlopen of OpenBLAS with its thread pool switched off for the duration of the open.
#include "OpenBlas.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>


namespace pto::samples {
namespace {

/// Sets an environment variable for the lifetime of the object, then puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

template <class Fn>
Fn symbol(void* handle, const char* name) {
  void* p = ::dlsym(handle, name);
  if (!p) throw std::runtime_error(std::string("OpenBLAS (" PTO_OPENBLAS_LIBRARY ") has no symbol ") + name);
  return reinterpret_cast<Fn>(p);
}

OpenBlas open_openblas() {
  void* handle = nullptr;
  {
    // Read by OpenBLAS's load-time constructor: one thread, so no pool is started.
    const ScopedEnv one_thread("OPENBLAS_NUM_THREADS", "1");
    handle = ::dlopen(PTO_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  }
  if (!handle) {
    const char* why = ::dlerror();
    throw std::runtime_error(std::string("cannot open OpenBLAS: ") + (why ? why : PTO_OPENBLAS_LIBRARY) +
                    " (scripts/bootstrap.sh installs libopenblas-dev)");
  }
  using CoreName = char* (*)();
  const auto core_name = reinterpret_cast<CoreName>(::dlsym(handle, "openblas_get_corename"));
  return {symbol<decltype(&cblas_sgemm)>(handle, "cblas_sgemm"), symbol<decltype(&cblas_dgemm)>(handle, "cblas_dgemm"),
          core_name ? std::string(core_name()) : std::string("unknown")};
}

}  // namespace

const OpenBlas& openblas() {
  static const OpenBlas blas = open_openblas();  // never closed: its code may run until exit
  return blas;
}

std::string openblas_sgemm_name() { return "OpenBLAS sgemm (" + openblas().kernels + " kernels)"; }

}  // namespace pto::samples
