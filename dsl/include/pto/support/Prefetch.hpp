#pragma once
// Asks for the cache line at `p` in the state a store needs (x86 PREFETCHW), so that a later write
// to it does not wait for the line and then again for the right to write it.
//
// Recording and replay storage is reused from launch to launch and handed between host threads:
// a line last written or read on the other core comes back shared, and __builtin_prefetch(p, 1)
// compiles to PREFETCHT0 without -mprfchw (a read: the store still pays an ownership round trip,
// which measured ~20% of the race-checked per-instruction cost). A prefetch never faults, so `p`
// may point past the end of an allocation. PREFETCHW is used where CPUID reports it (every AMD64
// part, Intel since Broadwell); elsewhere, and off x86-64, the compiler's write prefetch.
#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace pto {

namespace detail {
#if defined(__x86_64__)
inline bool cpu_has_prefetchw() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 8)) != 0;  // 3DNowPrefetch
}
inline const bool kHasPrefetchw = cpu_has_prefetchw();
#endif
}  // namespace detail

inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__)
  if (detail::kHasPrefetchw) {
    asm volatile("prefetchw (%0)" : : "r"(p));
    return;
  }
#endif
  __builtin_prefetch(p, 1);
}

}  // namespace pto
