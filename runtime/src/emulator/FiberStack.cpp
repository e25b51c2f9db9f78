#include "FiberStack.hpp"

#include <vector>

#include <boost/context/protected_fixedsize_stack.hpp>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace pto::emulator {
namespace {

constexpr size_t kPooledPerThread = 64;  // more than any one thread keeps alive in practice

/// The stacks this thread has finished with; freed when the thread ends.
struct Pool {
  std::vector<boost::context::stack_context> free;
  ~Pool() {
    for (auto& sc : free) boost::context::protected_fixedsize_stack(FiberStack::kBytes).deallocate(sc);
  }
};
thread_local Pool pool;

/// Tells TSan that this thread's context switches to `fiber` (no-op elsewhere). Without a flag,
/// the switch orders what came before it before what runs after it, as the hand-over does.
void sanitizer_switch([[maybe_unused]] void* fiber) {
#if defined(__SANITIZE_THREAD__)
  __tsan_switch_to_fiber(fiber, 0);
#endif
}

}  // namespace

boost::context::stack_context FiberStack::allocate() {
  if (!pool.free.empty()) {
    const boost::context::stack_context sc = pool.free.back();
    pool.free.pop_back();
    return sc;
  }
  return boost::context::protected_fixedsize_stack(kBytes).allocate();
}

void FiberStack::deallocate(boost::context::stack_context& sc) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
  if (pool.free.size() < kPooledPerThread) {
    pool.free.push_back(sc);
    return;
  }
  boost::context::protected_fixedsize_stack(kBytes).deallocate(sc);
}

CoreFiber::~CoreFiber() {
#if defined(__SANITIZE_THREAD__)
  if (sanitizer_fiber_) __tsan_destroy_fiber(sanitizer_fiber_);
#endif
}

void CoreFiber::start(const CompiledKernel& k, CoreContext* c) {
#if defined(__SANITIZE_THREAD__)
  sanitizer_fiber_ = __tsan_create_fiber(0);
#endif
  fiber_ = boost::context::fiber(std::allocator_arg, FiberStack(), [this, &k, c](boost::context::fiber&& back) {
    back_ = std::move(back);
    k.fn.load(std::memory_order_acquire)(c);
    done_ = true;
    sanitizer_switch(sanitizer_back_);
    return std::move(back_);
  });
}

void CoreFiber::resume() {
#if defined(__SANITIZE_THREAD__)
  sanitizer_back_ = __tsan_get_current_fiber();
#endif
  sanitizer_switch(sanitizer_fiber_);
  fiber_ = std::move(fiber_).resume();
}

void CoreFiber::yield() {
  sanitizer_switch(sanitizer_back_);
  back_ = std::move(back_).resume();
}

}  // namespace pto::emulator
