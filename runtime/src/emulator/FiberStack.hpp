#pragma once
// The fibers the emulator runs cores on (CoreGroup, Interleave) and their stacks, private to it.
#include <cstddef>
#include <memory>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include "pto/runtime/CompiledKernel.hpp"

namespace pto::emulator {

/// A boost.context stack allocator handing out guarded 256 KiB stacks (mmap with a guard page)
/// from a pool kept per host thread: a fresh stack costs an mmap, an mprotect and a munmap with
/// its TLB shootdown, more than a small core's whole run. A stack goes back to the pool of the
/// thread that ends its fiber (the thread that ran its last turn). Under AddressSanitizer the
/// frames that ran on a stack leave their redzones poisoned in ASan's shadow, so its shadow is
/// cleared when it comes back.
class FiberStack {
 public:
  static constexpr size_t kBytes = 256 * 1024;
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;
};

/// One core running as a fiber: resume() (on a host thread) runs it until it calls yield() (on
/// its fiber) or its kernel returns (then done). A core may be resumed by a different host
/// thread each turn, if the threads hand it over with a release / acquire pair (Interleave):
/// yield() goes back to whichever thread resumed it last. Under ThreadSanitizer each core is a
/// fiber of TSan's fiber API too, so that TSan keeps its frames and its happens-before apart
/// from the host thread's.
class CoreFiber {
 public:
  CoreFiber() = default;
  CoreFiber(const CoreFiber&) = delete;
  CoreFiber& operator=(const CoreFiber&) = delete;
  ~CoreFiber();

  /// Makes the fiber that runs kernel `k` on core context `c`; this object must outlive it.
  void start(const CompiledKernel& k, CoreContext* c);
  /// Runs the core to its next yield() or its end.
  void resume();
  /// On the core's fiber: back to the thread that resumed it, until the next resume().
  void yield();
  bool done() const { return done_; }

 private:
  boost::context::fiber fiber_, back_;
  bool done_ = false;
  void* sanitizer_fiber_ = nullptr;  // TSan's fiber for this core (TSan builds)
  void* sanitizer_back_ = nullptr;  // TSan's fiber of the thread that resumed it
};

}  // namespace pto::emulator
