#pragma once
// The stacks of the fibers the emulator runs cores on (CoreGroup, Interleave), private to it.
#include <cstddef>
#include <memory>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include "pto/runtime/CompiledKernel.hpp"

namespace pto::emulator {

/// A boost.context stack allocator handing out guarded 256 KiB stacks (mmap with a guard page)
/// from a pool kept per host thread: a fresh stack costs an mmap, an mprotect and a munmap with
/// its TLB shootdown, more than a small core's whole run. A stack goes back to the pool of the
/// thread that ends its fiber (the thread that ran it). Under AddressSanitizer the frames that
/// ran on a stack leave their redzones poisoned in ASan's shadow, so its shadow is cleared when
/// it comes back.
class FiberStack {
 public:
  static constexpr size_t kBytes = 256 * 1024;
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;
};

/// A fiber on a FiberStack that runs kernel `k` on core context `c`: when first resumed it keeps
/// the fiber to return to in `core.back`, and when the kernel returns it sets `core.done` and
/// goes back. `core` (fiber, back, done) must outlive the fiber.
template <class Core>
boost::context::fiber core_fiber(const CompiledKernel& k, CoreContext* c, Core& core) {
  return boost::context::fiber(std::allocator_arg, FiberStack(), [&k, c, &core](boost::context::fiber&& back) {
    core.back = std::move(back);
    k.fn.load(std::memory_order_acquire)(c);
    core.done = true;
    return std::move(core.back);
  });
}

}  // namespace pto::emulator
