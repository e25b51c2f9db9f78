#pragma once
// Storage kept between launches (private to the emulator): a launch records tens of thousands of
// ops per core, and fresh vectors would grow, copy and fault in their pages every time.
#include <cstddef>
#include <mutex>
#include <vector>

namespace pto::emulator {

/// A free list of `T` (movable storage: vectors, or structs of them), shared by the host threads.
template <class T>
class StoragePool {
 public:
  /// Storage given back before, or a fresh T.
  T take() {
    std::lock_guard lock(mu_);
    if (free_.empty()) return {};
    T t = std::move(free_.back());
    free_.pop_back();
    return t;
  }
  void give(T&& t) {
    std::lock_guard lock(mu_);
    if (free_.size() < kKept) free_.push_back(std::move(t));
  }

 private:
  static constexpr size_t kKept = 3 * 64;  // a launch's worth of cores on the largest profile
  std::mutex mu_;
  std::vector<T> free_;
};

}  // namespace pto::emulator
