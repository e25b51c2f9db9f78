#pragma once
// Object file -> shared object, with LLVM's linker lld as a library (ld.lld -shared): what the
// compiler module hands back for a kernel, so that the same bytes can be cached on disk, packaged,
// and opened with dlopen in any later process without LLVM (KernelLibrary.cpp).
//
// Contract: the objects define the kernel symbol and refers to nothing but libc (the runtime's
// functions come through CoreContext::rt). lld keeps global state, so links are serialised; each
// uses two files in a private temporary directory of the process, removed right after.
#include <string>
#include <string_view>
#include <vector>

namespace pto::backend {

/// The shared object linked from `objects` (a kernel, or a mix kernel's parts and dispatcher;
/// named `symbol` in diagnostics); an InternalError with lld's message when the link fails.
std::string link_shared_object(const std::vector<std::string_view>& objects, const std::string& symbol);

}  // namespace pto::backend
