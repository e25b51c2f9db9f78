#pragma once
// `pto::Tensor<T>`: a host tensor in "GM" — the memory a kernel reads and writes. 1-D or 2-D,
// row-major, 64-byte aligned, shared ownership (a queued launch keeps its tensors alive).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "pto/support/DType.hpp"
#include "pto/support/Error.hpp"

namespace pto {

namespace detail {
/// GM storage: 64-byte aligned; large tensors on transparent huge pages where the host offers
/// them (strided tile access then costs fewer TLB misses). Throws a UserError when out of memory.
void* allocate_gm(size_t bytes);
void free_gm(void* p);
}  // namespace detail

template <Element T>
class Tensor {
 public:
  using element_type = T;
  Tensor() = default;

  /// Uninitialised contents, like torch.empty.
  static Tensor empty(std::vector<int64_t> shape) { return Tensor(std::move(shape)); }
  static Tensor zeros(std::vector<int64_t> shape) { return full(std::move(shape), T(0.0f)); }
  static Tensor full(std::vector<int64_t> shape, T value) {
    Tensor t(std::move(shape));
    std::fill_n(t.data(), t.numel(), value);
    return t;
  }
  /// Deterministic pseudo-random values, uniform in [lo, hi) (integers: [lo, hi] rounded).
  static Tensor random(std::vector<int64_t> shape, uint64_t seed = 1, double lo = -1.0, double hi = 1.0) {
    Tensor t(std::move(shape));
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    T* p = t.data();
    for (int64_t i = 0; i < t.numel(); ++i) {
      state += 0x9E3779B97F4A7C15ull;  // splitmix64
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
      const double v = lo + (hi - lo) * u;
      if constexpr (std::is_integral_v<T>) {
        p[i] = static_cast<T>(std::llround(v));
      } else {
        p[i] = T(static_cast<float>(v));
      }
    }
    return t;
  }
  static Tensor from(std::vector<int64_t> shape, const std::vector<T>& values) {
    Tensor t(std::move(shape));
    PTO_USER_CHECK(static_cast<int64_t>(values.size()) == t.numel(), ErrorSite{})
        << "Tensor::from: " << values.size() << " values for a shape of " << t.numel() << " elements";
    std::copy(values.begin(), values.end(), t.data());
    return t;
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  int64_t numel() const { return numel_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t dim(int i) const { return shape_.at(i); }
  size_t bytes() const { return static_cast<size_t>(numel_) * sizeof(T); }
  T& operator[](int64_t i) { return data_.get()[i]; }
  const T& operator[](int64_t i) const { return data_.get()[i]; }
  T& at(int64_t r, int64_t c) { return data_.get()[r * shape_.back() + c]; }
  const T& at(int64_t r, int64_t c) const { return data_.get()[r * shape_.back() + c]; }
  std::span<T> span() { return {data(), static_cast<size_t>(numel_)}; }
  std::span<const T> span() const { return {data(), static_cast<size_t>(numel_)}; }
  /// Keeps the storage alive (type-erased), for queued launches.
  std::shared_ptr<void> owner() const { return data_; }
  explicit operator bool() const { return data_ != nullptr; }

 private:
  explicit Tensor(std::vector<int64_t> shape) : shape_(std::move(shape)) {
    PTO_USER_CHECK(shape_.size() == 1 || shape_.size() == 2, ErrorSite{})
        << "tensors are 1-D or 2-D, got " << shape_.size() << " dimensions";
    numel_ = 1;
    for (int64_t d : shape_) {
      PTO_USER_CHECK(d > 0, ErrorSite{}) << "tensor dimensions must be positive, got " << d;
      numel_ *= d;
    }
    data_ = std::shared_ptr<T>(static_cast<T*>(detail::allocate_gm(static_cast<size_t>(numel_) * sizeof(T))), detail::free_gm);
  }

  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  std::shared_ptr<T> data_;
};

}  // namespace pto
