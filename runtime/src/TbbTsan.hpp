#pragma once
// oneTBB is not built with ThreadSanitizer, so the hand-offs into and out of its workers are
// invisible to TSan; these annotations state them (no-ops in other builds). Release before
// handing work to TBB and at the end of each task; acquire at the start of each task and after.
#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define PTO_TSAN_ACQUIRE(p) __tsan_acquire(p)
#define PTO_TSAN_RELEASE(p) __tsan_release(p)
#else
#define PTO_TSAN_ACQUIRE(p) ((void)(p))
#define PTO_TSAN_RELEASE(p) ((void)(p))
#endif
