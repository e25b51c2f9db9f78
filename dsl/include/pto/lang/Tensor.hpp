#pragma once
// `pl::Tensor<T>`: a kernel parameter in GM, 1-D or 2-D, row-major. Each dimension is static
// (its extent is part of the specialisation: a compile-time number inside the kernel) unless the
// parameter declares it dynamic, as PyPTO Pro's `pl.Tensor[[pl.DYNAMIC, 128], pl.DT_FP16]`:
//
//   pl::Tensor<float>                            every dimension static, any rank (the default)
//   pl::Tensor<float, pl::DYNAMIC>               1-D, its length a runtime value
//   pl::Tensor<half, pl::DYNAMIC, 128>           2-D, runtime rows, exactly 128 columns
//   pl::Tensor<half, pl::DYNAMIC, pl::STATIC>    2-D, runtime rows, columns from the argument
//
// One compiled kernel serves every extent of a dynamic dimension (the compile cache's key holds
// only the static ones); inside the kernel `extent(i)` is a pl::Int, and bounds checks, tails and
// the race checker work as for static shapes. A launch whose argument has another rank or another
// declared static extent is a UserError. docs/semantics.md, "Dynamic dimensions".
//
// `slice` cuts a rectangular region with runtime offsets and lengths; `view` reinterprets the
// same memory with another static shape of equal size.
#include <array>
#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

#include "pto/lang/Scalar.hpp"
#include "pto/lang/Trace.hpp"

namespace pto::lang {

/// A dimension whose extent is a runtime value (PyPTO Pro's pl.DYNAMIC).
inline constexpr int64_t DYNAMIC = -1;
/// A static dimension whose extent is taken from the launch's argument.
inline constexpr int64_t STATIC = -2;

/// A region of a GM tensor, as passed to `pl::load` / `pl::store`.
template <Element T>
struct Slice {
  ir::GMRegion region;
  int rank;
};

namespace detail {
/// The trace-time error for using a dynamic dimension's extent as a C++ number.
[[noreturn]] void dynamic_dim_used_statically(int tensor, int dim, const char* what, const std::source_location& loc);
/// The trace-time error for `view` of a tensor with a dynamic dimension.
[[noreturn]] void view_of_dynamic_tensor(int tensor, const std::source_location& loc);
}  // namespace detail

template <Element T, int64_t... Dims>
class Tensor;

/// The tensor as the kernel sees it; `pl::Tensor<T, Dims...>` parameters convert to it.
template <Element T>
class Tensor<T> {
 public:
  using element_type = T;

  /// Made by the runtime while tracing; `index` is the parameter's position among tensors.
  /// `extent`: each dimension's extent as an expression (a dynamic one's Param Var); empty
  /// entries are the static `shape`'s.
  Tensor(int index, int rank, std::array<int64_t, 2> shape, std::array<ir::Expr, 2> extent = {})
      : index_(index), rank_(rank), view_(shape), extent_(std::move(extent)) {
    for (int d = 0; d < 2; ++d) {
      if (!extent_[d]) extent_[d] = ir::IntImm::make(view_[d]);
    }
  }

  int rank() const { return rank_; }
  /// The parameter's position among the kernel's tensors.
  int index() const { return index_; }
  /// Whether dimension i (0-based, of the declared rank) is dynamic.
  bool is_dynamic(int i) const { return !ir::int_constant(extent_[internal(i)]); }
  /// The extent of dimension i as a pl::Int: a constant for a static dimension, the launch's
  /// value for a dynamic one.
  Int extent(int i) const { return Int(extent_[internal(i)]); }
  /// The extent of static dimension i; a dynamic one is a UserError (use `extent(i)`).
  int64_t dim(int i, std::source_location loc = std::source_location::current()) const {
    if (is_dynamic(i)) detail::dynamic_dim_used_statically(index_, i, "dim", loc);
    return view_[internal(i)];
  }
  /// Element count; every dimension must be static.
  int64_t numel(std::source_location loc = std::source_location::current()) const {
    for (int i = 0; i < rank_; ++i) {
      if (is_dynamic(i)) detail::dynamic_dim_used_statically(index_, i, "numel", loc);
    }
    return view_[0] * view_[1];
  }
  /// Element count when every dimension is static, else nullopt.
  std::optional<int64_t> static_numel() const {
    if (is_dynamic(0) || (rank_ == 2 && is_dynamic(1))) return std::nullopt;
    return view_[0] * view_[1];
  }
  std::vector<int64_t> shape(std::source_location loc = std::source_location::current()) const {
    return rank_ == 1 ? std::vector<int64_t>{dim(0, loc)} : std::vector<int64_t>{dim(0, loc), dim(1, loc)};
  }

  /// 1-D: elements [offset, offset + length). 2-D: rows [offset, offset + length), all columns.
  Slice<T> slice(Int offset, Int length) const {
    if (rank_ == 1) return region({0, offset}, {1, length});
    return region({offset, 0}, {length, Int(extent_[1])});
  }
  /// 2-D: rows [row, row + rows) x columns [col, col + cols).
  Slice<T> slice(Int row, Int rows, Int col, Int cols,
                 std::source_location loc = std::source_location::current()) const {
    PTO_USER_CHECK(rank_ == 2, TraceContext::get(loc).site(SourceLoc::from(loc)))
        << "slice(row, rows, col, cols) needs a 2-D tensor; this one is 1-D";
    return region({row, col}, {rows, cols});
  }
  /// The same memory seen with another static shape (equal element count); the tensor's own
  /// dimensions must be static.
  Tensor view(std::vector<int64_t> shape, std::source_location loc = std::source_location::current()) const {
    auto& ctx = TraceContext::get(loc);
    if (is_dynamic(0) || (rank_ == 2 && is_dynamic(1))) detail::view_of_dynamic_tensor(index_, loc);
    PTO_USER_CHECK(shape.size() == 1 || shape.size() == 2, ctx.site(SourceLoc::from(loc)))
        << "view needs a 1-D or 2-D shape, got rank " << shape.size();
    std::array<int64_t, 2> v = shape.size() == 1 ? std::array<int64_t, 2>{1, shape[0]} : std::array<int64_t, 2>{shape[0], shape[1]};
    PTO_USER_CHECK(v[0] * v[1] == numel(loc), ctx.site(SourceLoc::from(loc)))
        << "view of " << v[0] * v[1] << " elements on a tensor of " << numel(loc);
    return Tensor(index_, static_cast<int>(shape.size()), v);
  }

 private:
  int internal(int i) const { return rank_ == 1 ? 1 : i; }
  Slice<T> region(std::array<Int, 2> offset, std::array<Int, 2> extent) const {
    return Slice<T>{ir::GMRegion{index_, extent_, {offset[0].expr(), offset[1].expr()}, {extent[0].expr(), extent[1].expr()}}, rank_};
  }

  int index_;
  int rank_;
  std::array<int64_t, 2> view_;      // a dynamic dimension's entry is -1
  std::array<ir::Expr, 2> extent_;
};

/// A parameter with declared dimensions (see the top of this file): what the kernel sees is a
/// Tensor<T>; the declaration is read by the launch, which checks the argument against it.
template <Element T, int64_t... Dims>
class Tensor : public Tensor<T> {
  static_assert(sizeof...(Dims) == 1 || sizeof...(Dims) == 2, "pto: pl::Tensor<T, dims...> declares 1 or 2 dimensions");
  static_assert(((Dims >= 0 || Dims == DYNAMIC || Dims == STATIC) && ...),
                "pto: a declared dimension is an extent (>= 0), pl::DYNAMIC or pl::STATIC");

 public:
  /// The declaration as written: an extent, DYNAMIC or STATIC per dimension.
  static constexpr std::array<int64_t, sizeof...(Dims)> declared{Dims...};
  using Tensor<T>::Tensor;
};

}  // namespace pto::lang
