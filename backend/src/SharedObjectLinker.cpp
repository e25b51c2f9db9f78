#include "SharedObjectLinker.hpp"

#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include <lld/Common/CommonLinkerContext.h>
#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include "ScratchDir.hpp"
#include "pto/support/Error.hpp"

// lld 16 keeps pointers to a link's special symbols in static members of lld::elf::ElfSym and sets
// some of them only when a link defines the symbol (_TLS_MODULE_BASE_, for one): the next link
// then writes through a pointer into the previous link's freed memory (seen as heap corruption
// after a few hundred kernels). They are not in lld's installed headers, so they are reached by
// their mangled names and cleared before every link.
#define PTO_LLD_ELFSYM(name, mangled) extern void* pto_lld_elfsym_##name asm(mangled);
#define PTO_LLD_ELFSYMS(X)                                                                                             \
  X(bss, "_ZN3lld3elf6ElfSym3bssE") X(etext1, "_ZN3lld3elf6ElfSym6etext1E") X(etext2, "_ZN3lld3elf6ElfSym6etext2E")   \
  X(edata1, "_ZN3lld3elf6ElfSym6edata1E") X(edata2, "_ZN3lld3elf6ElfSym6edata2E") X(end1, "_ZN3lld3elf6ElfSym4end1E") \
  X(end2, "_ZN3lld3elf6ElfSym4end2E") X(got, "_ZN3lld3elf6ElfSym17globalOffsetTableE")                                \
  X(mips_gp, "_ZN3lld3elf6ElfSym6mipsGpE") X(mips_gp_disp, "_ZN3lld3elf6ElfSym10mipsGpDispE")                        \
  X(mips_local_gp, "_ZN3lld3elf6ElfSym11mipsLocalGpE") X(rela_iplt_start, "_ZN3lld3elf6ElfSym13relaIpltStartE")       \
  X(rela_iplt_end, "_ZN3lld3elf6ElfSym11relaIpltEndE") X(tls_module_base, "_ZN3lld3elf6ElfSym13tlsModuleBaseE")
PTO_LLD_ELFSYMS(PTO_LLD_ELFSYM)

namespace pto::backend {
namespace {

void reset_lld_special_symbols() {
#define PTO_LLD_RESET(name, mangled) pto_lld_elfsym_##name = nullptr;
  PTO_LLD_ELFSYMS(PTO_LLD_RESET)
#undef PTO_LLD_RESET
}

namespace fs = std::filesystem;

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw InternalError("pto compiler: cannot write " + path.string());
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) throw InternalError("pto compiler: cannot read " + path.string());
  return ss.str();
}

/// The C library this process runs on (found from where memcpy lives). Linking kernels against
/// it gives their memcpy / memset references glibc's symbol versions: an unversioned reference
/// binds at dlopen to the oldest version, memcpy@GLIBC_2.2.5, a compatibility entry that runs
/// the SSE2 copy instead of the one glibc picks for this CPU (measured: the SSE2 copy took 42%
/// of a vector_add's host time on an AVX-512 part).
const std::string& c_library() {
  static const std::string path = [] {
    Dl_info info{};
    void* (*copy)(void*, const void*, size_t) = &std::memcpy;
    return dladdr(reinterpret_cast<void*>(copy), &info) != 0 && info.dli_fname != nullptr ? std::string(info.dli_fname) : std::string();
  }();
  return path;
}

}  // namespace

std::string link_shared_object(const std::vector<std::string_view>& objects, const std::string& symbol) {
  static ScratchDir scratch("pto-link");
  static std::mutex lld_mu;  // lld's state is global
  static std::atomic<uint64_t> serial{0};
  const std::string stem = "link" + std::to_string(serial++);  // not the symbol: a long kernel name stays a short file name
  const fs::path out = scratch.path() / (stem + ".so");
  std::vector<std::string> inputs;
  for (size_t i = 0; i < objects.size(); ++i) {
    inputs.push_back((scratch.path() / (stem + "." + std::to_string(i) + ".o")).string());
    write_file(inputs.back(), objects[i]);
  }
  const std::string out_s = out.string();
  // One thread: a kernel is a small object or two, and lld's worker threads would only add start-up.
  std::vector<const char*> args = {"ld.lld", "-shared", "--threads=1", "--hash-style=gnu", "-z", "noexecstack", "-o", out_s.c_str()};
  for (const auto& in : inputs) args.push_back(in.c_str());
  if (!c_library().empty()) args.push_back(c_library().c_str());
  std::string errors;
  bool ok = false;
  {
    std::lock_guard lock(lld_mu);
    llvm::raw_string_ostream err(errors);
    reset_lld_special_symbols();
    ok = lld::elf::link(args, llvm::nulls(), err, /*exitEarly=*/false, /*disableOutput=*/false);
    lld::CommonLinkerContext::destroy();
  }
  std::error_code ec;
  for (const auto& in : inputs) fs::remove(in, ec);
  if (!ok) throw InternalError("pto compiler: linking kernel " + symbol + " into a shared object failed: " + errors);
  std::string so = read_file(out);
  fs::remove(out, ec);
  return so;
}

}  // namespace pto::backend
