#include "pto/runtime/Tensor.hpp"

#include <sys/mman.h>

namespace pto::detail {

void* allocate_gm(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const bool huge = bytes >= kHugePage;
  const size_t align = huge ? kHugePage : 64;
  const size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  PTO_USER_CHECK(p != nullptr, ErrorSite{}) << "out of host memory for a tensor of " << bytes << " B";
  if (huge) madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

void free_gm(void* p) { std::free(p); }

}  // namespace pto::detail
