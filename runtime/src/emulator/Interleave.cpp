#include "Interleave.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <immintrin.h>

#include "FiberStack.hpp"

namespace pto::emulator {
namespace {

/// A wait on another host thread: pauses, then gives up the CPU (in case that thread waits for it).
class SpinWait {
 public:
  static constexpr int kPauses = 64;
  void pause() {
    if (++spins_ < kPauses) return _mm_pause();
    std::this_thread::yield();
  }

 private:
  int spins_ = 0;
};

/// Waits until `a` holds `value`: spins for up to kSpinFor (the other thread is about to set it;
/// a futex wake-up costs tens of microseconds on a VM), then sleeps (std::atomic::wait) so that
/// a host with more runnable threads than CPUs runs the thread that will set it. Whoever sets
/// `value` calls notify_all.
template <class T>
void wait_until(const std::atomic<T>& a, T value) {
  constexpr auto kSpinFor = std::chrono::microseconds(100);
  const auto until = std::chrono::steady_clock::now() + kSpinFor;
  for (int i = 0; a.load(std::memory_order_acquire) != value; ++i) {
    _mm_pause();
    if (i % 64 == 63 && std::chrono::steady_clock::now() > until) break;
  }
  for (T now = a.load(std::memory_order_acquire); now != value; now = a.load(std::memory_order_acquire)) a.wait(now, std::memory_order_acquire);
}

}  // namespace

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
  first_ = ctx.data();
  count_ = ctx.size();
  for (size_t i = 0; i < count_; ++i) {
    ctx[i].block = this;
    ctx[i].yield = &Interleave::yield;
    cores_[i].start(k_, &ctx[i]);
  }
  left_.store(static_cast<int>(count_), std::memory_order_release);
  run_held(/*helper=*/false);
  wait_until(left_, 0);  // the helper's cores
}

int Interleave::run_held(bool helper) {
  int turns = 0;
  for (bool any = true; any;) {
    any = false;
    for (size_t i = 0; i < count_; ++i) {
      if (!helper && !handed_.load(std::memory_order_relaxed) && asked_.load(std::memory_order_relaxed)) hand_over();
      Core& c = cores_[i];
      if (c.helped != helper || c.done()) continue;
      c.resume();
      any = true;
      turns += 1;
      if (c.done() && left_.fetch_sub(1, std::memory_order_release) == 1) left_.notify_all();
    }
  }
  if (helper) pto_rt_fence();  // the helper's streaming stores, before run()'s thread returns
  return turns;
}

void Interleave::hand_over() {
  int unfinished = 0;
  for (size_t i = 0; i < count_; ++i) unfinished += cores_[i].done() ? 0 : 1;
  for (size_t i = count_, give = static_cast<size_t>(unfinished / 2); i-- > 0 && give > 0;) {
    if (cores_[i].done()) continue;
    cores_[i].helped = true;
    give -= 1;
  }
  pto_rt_fence();  // the handed cores' streaming stores, before the helper runs them
  handed_.store(true, std::memory_order_release);
}

int Interleave::help() {
  SpinWait spin;
  while (!handed_.load(std::memory_order_acquire)) {
    if (unfinished() < 2) return 0;
    spin.pause();
  }
  return run_held(/*helper=*/true);
}

void Interleave::yield(CoreContext* ctx) {
  auto* self = static_cast<Interleave*>(ctx->block);
  self->cores_[static_cast<size_t>(ctx - self->first_)].yield();
}

void RunsInFlight::run(Interleave& run, std::span<CoreContext> ctx) {
  {
    const std::lock_guard lock(mutex_);
    runs_.push_back(&run);
  }
  run.run(ctx);
  {
    const std::lock_guard lock(mutex_);
    std::erase(runs_, &run);
  }
  wait_until(run.helper_in_, false);
}

int RunsInFlight::help() {
  int turns = 0;
  while (true) {
    Interleave* most = nullptr;
    {
      const std::lock_guard lock(mutex_);
      int unfinished = 1;
      for (Interleave* r : runs_) {
        if (!r->asked_.load(std::memory_order_relaxed) && r->unfinished() > unfinished) most = r, unfinished = r->unfinished();
      }
      if (!most) return turns;
      most->helper_in_.store(true, std::memory_order_relaxed);
      most->asked_.store(true, std::memory_order_relaxed);
    }
    turns += most->help();
    most->helper_in_.store(false, std::memory_order_release);
    most->helper_in_.notify_all();
  }
}

}  // namespace pto::emulator
