#include "Interleave.hpp"

#include <unistd.h>

#include <algorithm>

#include "FiberStack.hpp"

namespace pto::emulator {

bool Interleave::worth_it(ir::KernelMode mode, const detail::LaunchArgs& args) {
  auto bytes = [](const detail::TensorArg& t) { return t.numel() * static_cast<int64_t>(dtype_size(t.dtype)); };
  switch (mode) {
    case ir::KernelMode::Vector:
      return std::any_of(args.tensors.begin(), args.tensors.end(), [&](const detail::TensorArg& t) { return bytes(t) >= kStreamingStoreBytes; });
    case ir::KernelMode::Cube: {
      int64_t total = 0;
      for (const auto& t : args.tensors) total += bytes(t);
      return total > host_cache_bytes();
    }
    default: return false;
  }
}

int64_t Interleave::host_cache_bytes() {
  static const int64_t bytes = [] {
    const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
    constexpr int64_t kAssumed = int64_t{32} << 20, kAmdComplex = int64_t{32} << 20;
    if (l3 <= 0) return kAssumed;
    return __builtin_cpu_is("amd") ? std::min<int64_t>(l3, kAmdComplex) : static_cast<int64_t>(l3);
  }();
  return bytes;
}

void Interleave::run(std::span<CoreContext> ctx) {
  cores_.clear();
  cores_.resize(ctx.size());
  for (size_t i = 0; i < ctx.size(); ++i) {
    ctx[i].block = this;
    ctx[i].yield = &Interleave::yield;
    cores_[i].fiber = core_fiber(k_, &ctx[i], cores_[i]);
  }
  for (size_t left = cores_.size(); left > 0;) {
    for (size_t i = 0; i < cores_.size(); ++i) {
      if (cores_[i].done) continue;
      current_ = i;
      cores_[i].fiber = std::move(cores_[i].fiber).resume();
      if (cores_[i].done) --left;
    }
  }
}

void Interleave::yield(CoreContext* ctx) {
  auto* self = static_cast<Interleave*>(ctx->block);
  Core& c = self->cores_[self->current_];
  c.back = std::move(c.back).resume();
}

}  // namespace pto::emulator
