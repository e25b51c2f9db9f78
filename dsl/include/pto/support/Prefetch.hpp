#pragma once
// Asks for the cache line at `p` in the state a store needs (x86 PREFETCHW), so that a later write
// to it does not wait for the line and then again for the right to write it.
//
// Recording and replay storage is reused from launch to launch and handed between host threads:
// a line last written or read on the other core comes back shared, and __builtin_prefetch(p, 1)
// compiles to PREFETCHT0 without -mprfchw (a read: the store still pays an ownership round trip,
// which measured ~20% of the race-checked per-instruction cost). PREFETCHW is a hint: it never
// faults, so `p` may point past the end of an allocation, and CPUs without it run it as a NOP.
// Elsewhere than x86-64, the compiler's write prefetch.

namespace pto {

inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw (%0)" : : "r"(p));
#else
  __builtin_prefetch(p, 1);
#endif
}

}  // namespace pto
