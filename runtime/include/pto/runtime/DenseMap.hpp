#pragma once
// A map from small non-negative keys to values: keys below kDense live in a vector indexed by the
// key (no search, no node allocation), larger ones in a std::map. The pipeline model's race and
// mutex state is keyed by tile slot ids and tensor numbers, which are small and dense; hand-built
// programs (tests) may use any key.
//
// Contract: operator[] default-constructs a missing value and returns a reference that stays
// valid until the next operator[] with a new key (the vector may grow).
#include <cstdint>
#include <map>
#include <vector>

namespace pto {

template <class T>
class DenseMap {
 public:
  static constexpr uint64_t kDense = 4096;

  T& operator[](uint64_t key) {
    if (key >= kDense) return sparse_[key];
    if (key >= dense_.size()) dense_.resize(key + 1);
    return dense_[key];
  }

  /// Calls f(value) for every value held (keys made by operator[] stay made).
  template <class F>
  void for_each(F&& f) {
    for (T& v : dense_) f(v);
    for (auto& [key, v] : sparse_) f(v);
  }

 private:
  std::vector<T> dense_;
  std::map<uint64_t, T> sparse_;
};

}  // namespace pto
