#include "Interleave.hpp"

#include "FiberStack.hpp"

namespace pto::emulator {

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
