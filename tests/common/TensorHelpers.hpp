#pragma once
// Host tensor helpers shared by the test suites and benchmarks.
#include <cstdint>
#include <cstring>

#include <pto/pto.hpp>

namespace pto::test {

/// A fresh tensor with the same shape and elements as `t` (the "before" of a no-write check).
template <class T>
pto::Tensor<T> copy_of(const pto::Tensor<T>& t) {
  auto c = pto::Tensor<T>::empty(t.shape());
  std::memcpy(c.data(), t.data(), t.bytes());
  return c;
}

/// Same shape and the same bytes (NaN payloads and signed zeros included).
template <class T>
bool bitwise_equal(const pto::Tensor<T>& a, const pto::Tensor<T>& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

/// vector_add's 16M-float inputs for the benchmarks, made once per process.
struct LargeVectorInputs {
  static constexpr int64_t kLength = 16 << 20;
  pto::Tensor<float> x = pto::Tensor<float>::random({kLength}, 1);
  pto::Tensor<float> y = pto::Tensor<float>::random({kLength}, 2);
  pto::Tensor<float> z = pto::Tensor<float>::zeros({kLength});
  static LargeVectorInputs& get() {
    static LargeVectorInputs in;
    return in;
  }
};

}  // namespace pto::test
