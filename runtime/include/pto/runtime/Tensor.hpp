#pragma once
// `pto::Tensor<T>`: a host tensor in "GM" — the memory a kernel reads and writes. 1 to 5
// dimensions, allocated row-major and 64-byte aligned, shared ownership (a queued launch keeps its
// tensors alive). `permute`, `narrow` and `select` make views of the same storage with other
// strides (non-contiguous tensors, as torch's); a kernel takes either.
#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
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

  /// The first element (a view's, inside its storage).
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  int64_t numel() const { return numel_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t dim(int i) const { return shape_.at(i); }
  /// Elements from one index of dimension i to the next (row-major: the product of the later extents).
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t stride(int i) const { return strides_.at(i); }
  /// Row-major without gaps (every tensor made by empty/zeros/full/random/from is).
  bool is_contiguous() const {
    int64_t want = 1;
    for (int i = rank() - 1; i >= 0; --i) {
      if (shape_[i] != 1 && strides_[i] != want) return false;
      want *= shape_[i];
    }
    return true;
  }
  size_t bytes() const { return static_cast<size_t>(numel_) * sizeof(T); }
  /// Element i of the storage from data(), linearly: the row-major index of a contiguous tensor.
  T& operator[](int64_t i) { return data_.get()[i]; }
  const T& operator[](int64_t i) const { return data_.get()[i]; }
  /// The element at one index per dimension (through the strides).
  template <std::integral... I>
  T& at(I... index) {
    return data_.get()[offset_of({static_cast<int64_t>(index)...})];
  }
  template <std::integral... I>
  const T& at(I... index) const {
    return data_.get()[offset_of({static_cast<int64_t>(index)...})];
  }
  std::span<T> span() { return {data(), static_cast<size_t>(numel_)}; }
  std::span<const T> span() const { return {data(), static_cast<size_t>(numel_)}; }
  /// Keeps the storage alive (type-erased), for queued launches.
  std::shared_ptr<void> owner() const { return data_; }
  /// The storage the tensor (or view) lives in: its first element and its element count.
  const T* storage() const { return storage_; }
  int64_t storage_numel() const { return storage_numel_; }
  explicit operator bool() const { return data_ != nullptr; }

  /// A view with the dimensions in the order `dims` (a permutation of 0..rank-1), like torch's permute.
  Tensor permute(const std::vector<int>& dims) const {
    PTO_USER_CHECK(static_cast<int>(dims.size()) == rank(), ErrorSite{}) << "permute of a " << rank() << "-D tensor needs " << rank() << " dimensions, got " << dims.size();
    Tensor v = *this;
    std::vector<bool> seen(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      PTO_USER_CHECK(dims[i] >= 0 && dims[i] < rank() && !seen[dims[i]], ErrorSite{}) << "permute: dimensions must be a permutation of 0.." << rank() - 1;
      seen[dims[i]] = true;
      v.shape_[i] = shape_[dims[i]];
      v.strides_[i] = strides_[dims[i]];
    }
    return v;
  }
  /// A view of indices [start, start + length) of dimension `d`, like torch's narrow.
  Tensor narrow(int d, int64_t start, int64_t length) const {
    PTO_USER_CHECK(d >= 0 && d < rank(), ErrorSite{}) << "narrow: dimension " << d << " of a " << rank() << "-D tensor";
    PTO_USER_CHECK(start >= 0 && length > 0 && start + length <= shape_[d], ErrorSite{})
        << "narrow: [" << start << ", " << start + length << ") is outside dimension " << d << " of extent " << shape_[d];
    Tensor v = *this;
    v.data_ = std::shared_ptr<T>(data_, data_.get() + start * strides_[d]);
    v.shape_[d] = length;
    v.numel_ = numel_ / shape_[d] * length;
    return v;
  }
  /// The view at index `i` of dimension `d`, one dimension fewer, like torch's select.
  Tensor select(int d, int64_t i) const {
    PTO_USER_CHECK(rank() >= 2, ErrorSite{}) << "select needs a tensor of 2 or more dimensions";
    Tensor v = narrow(d, i, 1);
    v.shape_.erase(v.shape_.begin() + d);
    v.strides_.erase(v.strides_.begin() + d);
    return v;
  }

 private:
  explicit Tensor(std::vector<int64_t> shape) : shape_(std::move(shape)) {
    PTO_USER_CHECK(!shape_.empty() && shape_.size() <= 5, ErrorSite{})
        << "tensors have 1 to 5 dimensions, got " << shape_.size();
    numel_ = 1;
    strides_.assign(shape_.size(), 1);
    for (size_t i = shape_.size(); i-- > 0;) {
      PTO_USER_CHECK(shape_[i] > 0, ErrorSite{}) << "tensor dimensions must be positive, got " << shape_[i];
      strides_[i] = numel_;
      numel_ *= shape_[i];
    }
    data_ = std::shared_ptr<T>(static_cast<T*>(detail::allocate_gm(static_cast<size_t>(numel_) * sizeof(T))), detail::free_gm);
    storage_ = data_.get();
    storage_numel_ = numel_;
  }
  /// The last index goes with the last dimension; indices before the first dimension (at(0, i) of
  /// a 1-D tensor, read as a 1 x n row) count as 0.
  int64_t offset_of(std::initializer_list<int64_t> index) const {
    int64_t off = 0;
    int d = rank() - static_cast<int>(index.size());
    for (int64_t i : index) {
      if (d >= 0) off += i * strides_[static_cast<size_t>(d)];
      ++d;
    }
    return off;
  }

  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  int64_t numel_ = 0;
  std::shared_ptr<T> data_;
  const T* storage_ = nullptr;
  int64_t storage_numel_ = 0;
};

}  // namespace pto
