#include "FiberStack.hpp"

#include <vector>

#include <boost/context/protected_fixedsize_stack.hpp>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
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

}  // namespace pto::emulator
