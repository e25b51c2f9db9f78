// jit_target_description without LLVM: the LLVM version the compiler module was built against, the
// host's architecture and CPU identity, and the codegen fingerprint. On x86 the identity is cpuid's
// vendor, family/model/stepping and feature words plus the OS-enabled register state (XCR0): what
// LLVM's host detection reads to pick the CPU name and features it compiles for. Elsewhere it is
// /proc/cpuinfo's hash.
#include <fmt/format.h>
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "pto/backend/Compiler.hpp"
#include "CodegenFingerprint.hpp"

namespace pto::backend {
namespace {

#if defined(__x86_64__) || defined(__i386__)
std::string cpu_identity() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __get_cpuid(0, &a, &b, &c, &d);
  const unsigned max_leaf = a;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  std::string out = vendor;
  // Leaf 1: family/model/stepping (eax) and features (ecx, edx); not ebx, which holds the APIC id
  // of whichever core the thread runs on.
  __get_cpuid(1, &a, &b, &c, &d);
  out += fmt::format(" 1:{:08x}{:08x}{:08x}", a, c, d);
  const bool osxsave = (c >> 27) & 1u;
  auto features = [&](unsigned leaf, unsigned sub) {  // ebx, ecx, edx (eax is a count or signature)
    if (__get_cpuid_count(leaf, sub, &a, &b, &c, &d)) out += fmt::format(" {:x}.{:x}:{:08x}{:08x}{:08x}", leaf, sub, b, c, d);
  };
  if (max_leaf >= 7) {
    features(7, 0);
    if (__get_cpuid_count(7, 1, &a, &b, &c, &d)) out += fmt::format(" 7.1:{:08x}", a);
  }
  if (max_leaf >= 0xd && __get_cpuid_count(0xd, 1, &a, &b, &c, &d)) out += fmt::format(" d.1:{:08x}", a);
  if (__get_cpuid_max(0x80000000, nullptr) >= 0x80000001) features(0x80000001, 0);
  if (osxsave) {  // XCR0: the register state (AVX, AVX-512, AMX) the OS saves, so code may use it
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    out += fmt::format(" xcr0:{:08x}", lo);
  }
  return out;
}
#else
std::string cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  return fmt::format("cpuinfo:{:016x}", XXH3_64bits(text.data(), text.size()));
}
#endif

}  // namespace

std::string jit_target_description() {
  static const std::string description =
      fmt::format("LLVM {} {} cpu {} codegen {}", PTO_LLVM_VERSION, PTO_HOST_ARCH, cpu_identity(), generated::codegen_fingerprint.substr(0, 16));
  return description;
}

}  // namespace pto::backend
