#pragma once
// `pl::Tensor<T>`: a kernel parameter in GM, 1 to 5 dimensions. Each dimension is static
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
// `slice` cuts a rectangular region of a 1-D or 2-D tensor with runtime offsets and lengths;
// `x[i]` / `select`, `permute` and `view` see the same memory another way (N-D tensors are cut
// down to 2-D matrices by fixing their leading dimensions).
#include <array>
#include <cstdint>
#include <optional>
#include <source_location>
#include <span>
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

/// The tensor as the kernel sees it; `pl::Tensor<T, Dims...>` parameters convert to it. A value
/// is a view of a tensor parameter: its dimensions (extents and strides, as expressions), and the
/// element its origin is at. `select`, `operator[]` and `permute` make other views of the same
/// memory, without moving data; `slice` cuts the 2-D region a load or store moves.
template <Element T>
class Tensor<T> {
 public:
  using element_type = T;

  /// Made by the runtime while tracing: parameter `index` as its IR describes it.
  Tensor(int index, const ir::TensorParam& p) : index_(index), rank_(p.rank), plain_(p.contiguous()) {
    for (int d = 0; d < rank_; ++d) {
      static_[d] = p.shape[d];
      extent_[d] = p.extent[d] ? p.extent[d] : ir::IntImm::make(p.shape[d]);
      stride_[d] = p.stride[d];
      dim_of_[d] = d;
    }
    if (!stride_[rank_ - 1]) row_major_strides();
  }
  /// A contiguous static 1-D ({1, n}) or 2-D tensor, for tests that trace without a runtime.
  Tensor(int index, int rank, std::array<int64_t, 2> shape) : index_(index), rank_(rank), plain_(true) {
    for (int d = 0; d < rank_; ++d) {
      static_[d] = rank == 1 ? shape[1] : shape[d];
      extent_[d] = ir::IntImm::make(static_[d]);
      dim_of_[d] = d;
    }
    row_major_strides();
  }

  int rank() const { return rank_; }
  /// The parameter's position among the kernel's tensors.
  int index() const { return index_; }
  /// Whether dimension i (0-based) is dynamic.
  bool is_dynamic(int i) const { return !ir::int_constant(extent_[i]); }
  /// The extent of dimension i as a pl::Int: a constant for a static dimension, the launch's
  /// value for a dynamic one.
  Int extent(int i) const { return Int(extent_[i]); }
  /// Elements from one index of dimension i to the next, as a pl::Int.
  Int stride(int i) const { return Int(stride_[i]); }
  /// The extent of static dimension i; a dynamic one is a UserError (use `extent(i)`).
  int64_t dim(int i, std::source_location loc = std::source_location::current()) const {
    if (is_dynamic(i)) detail::dynamic_dim_used_statically(index_, i, "dim", loc);
    return static_[i];
  }
  /// Element count; every dimension must be static.
  int64_t numel(std::source_location loc = std::source_location::current()) const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) {
      if (is_dynamic(i)) detail::dynamic_dim_used_statically(index_, i, "numel", loc);
      n *= static_[i];
    }
    return n;
  }
  /// Element count when every dimension is static, else nullopt.
  std::optional<int64_t> static_numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) {
      if (is_dynamic(i)) return std::nullopt;
      n *= static_[i];
    }
    return n;
  }
  std::vector<int64_t> shape(std::source_location loc = std::source_location::current()) const {
    std::vector<int64_t> out;
    for (int i = 0; i < rank_; ++i) out.push_back(dim(i, loc));
    return out;
  }
  /// Whether this is a contiguous tensor parameter itself (no view taken, row-major without gaps).
  bool is_plain() const { return plain_; }

  /// 1-D: elements [offset, offset + length). 2-D: rows [offset, offset + length), all columns.
  Slice<T> slice(Int offset, Int length, std::source_location loc = std::source_location::current()) const {
    if (rank_ == 1) return region({0, offset}, {1, length});
    need_2d("slice(offset, length)", loc);
    return region({offset, 0}, {length, Int(extent_[1])});
  }
  /// 2-D: rows [row, row + rows) x columns [col, col + cols).
  Slice<T> slice(Int row, Int rows, Int col, Int cols,
                 std::source_location loc = std::source_location::current()) const {
    need_2d("slice(row, rows, col, cols)", loc);
    return region({row, col}, {rows, cols});
  }
  /// The view at index `i` of dimension `d`: one dimension fewer (torch's select). The index is
  /// checked against the dimension's extent by every load and store of the view.
  Tensor select(int d, Int i, std::source_location loc = std::source_location::current()) const {
    auto& ctx = TraceContext::get(loc);
    PTO_USER_CHECK(rank_ >= 2, ctx.site(SourceLoc::from(loc))) << "select needs a tensor of 2 or more dimensions, this one is 1-D";
    PTO_USER_CHECK(d >= 0 && d < rank_, ctx.site(SourceLoc::from(loc))) << "select of dimension " << d << " of a " << rank_ << "-D tensor";
    Tensor v = *this;
    v.base_ = add(base_, ir::Binary::make(ir::BinaryOp::Mul, i.expr(), stride_[d]));
    v.fixed_.push_back({i.expr(), extent_[d], dim_of_[d]});
    for (int k = d; k + 1 < rank_; ++k) {
      v.static_[k] = static_[k + 1];
      v.extent_[k] = extent_[k + 1];
      v.stride_[k] = stride_[k + 1];
      v.dim_of_[k] = dim_of_[k + 1];
    }
    --v.rank_;
    v.plain_ = false;
    return v;
  }
  /// select(0, i): x[b] of a [B, S, D] tensor is its [S, D] matrix b.
  Tensor operator[](Int i) const { return select(0, std::move(i)); }
  /// The same memory with the dimensions in the order `dims` (torch's permute): permute({1, 0})
  /// of a matrix is its transpose, whose 2-D regions a load reads column by column.
  Tensor permute(std::vector<int> dims, std::source_location loc = std::source_location::current()) const {
    auto& ctx = TraceContext::get(loc);
    PTO_USER_CHECK(static_cast<int>(dims.size()) == rank_, ctx.site(SourceLoc::from(loc)))
        << "permute of a " << rank_ << "-D tensor needs " << rank_ << " dimensions, got " << dims.size();
    Tensor v = *this;
    std::array<bool, ir::kMaxRank> seen{};
    for (int k = 0; k < rank_; ++k) {
      const int d = dims[static_cast<size_t>(k)];
      PTO_USER_CHECK(d >= 0 && d < rank_ && !seen[d], ctx.site(SourceLoc::from(loc))) << "permute: the dimensions must be a permutation of 0.." << rank_ - 1;
      seen[d] = true;
      v.static_[k] = static_[d];
      v.extent_[k] = extent_[d];
      v.stride_[k] = stride_[d];
      v.dim_of_[k] = dim_of_[d];
      v.plain_ = v.plain_ && d == k;
    }
    return v;
  }
  /// The same memory seen with another static shape of 1 or 2 dimensions (equal element count);
  /// the tensor must be a plain, static parameter.
  Tensor view(std::vector<int64_t> shape, std::source_location loc = std::source_location::current()) const {
    auto& ctx = TraceContext::get(loc);
    for (int i = 0; i < rank_; ++i) {
      if (is_dynamic(i)) detail::view_of_dynamic_tensor(index_, loc);
    }
    PTO_USER_CHECK(plain_, ctx.site(SourceLoc::from(loc))) << "view reshapes a contiguous tensor parameter; this is a view with other strides";
    PTO_USER_CHECK(shape.size() == 1 || shape.size() == 2, ctx.site(SourceLoc::from(loc)))
        << "view needs a 1-D or 2-D shape, got rank " << shape.size();
    std::array<int64_t, 2> v = shape.size() == 1 ? std::array<int64_t, 2>{1, shape[0]} : std::array<int64_t, 2>{shape[0], shape[1]};
    PTO_USER_CHECK(v[0] * v[1] == numel(loc), ctx.site(SourceLoc::from(loc)))
        << "view of " << v[0] * v[1] << " elements on a tensor of " << numel(loc);
    return Tensor(index_, static_cast<int>(shape.size()), v);
  }
  /// PyPTO Pro's make_tensor(ptr, shape, stride) on this parameter's memory: a view of `shape`
  /// with `strides` (elements, >= 0) whose origin is element `offset` of the tensor. Extents and
  /// strides may be runtime values; every load and store of the view checks that the elements it
  /// reaches lie inside the tensor (and that the strides are not negative).
  Tensor reinterpret(const std::vector<Int>& shape, const std::vector<Int>& strides, Int offset,
                     std::source_location loc = std::source_location::current()) const {
    auto& ctx = TraceContext::get(loc);
    const auto site = ctx.site(SourceLoc::from(loc));
    PTO_USER_CHECK(plain_, site) << "make_tensor takes a tensor parameter itself (contiguous, no view taken): it reinterprets its memory";
    PTO_USER_CHECK(!shape.empty() && shape.size() <= static_cast<size_t>(ir::kMaxRank) && strides.size() == shape.size(), site)
        << "make_tensor needs 1 to 5 extents and one stride per extent, got " << shape.size() << " and " << strides.size();
    Tensor v = *this;
    v.rank_ = static_cast<int>(shape.size());
    v.plain_ = false;
    v.storage_ = ir::IntImm::make(1);
    for (int d = 0; d < rank_; ++d) v.storage_ = ir::Binary::make(ir::BinaryOp::Mul, v.storage_, extent_[d]);
    for (int d = 0; d < v.rank_; ++d) {
      const auto e = shape[d].constant(), st = strides[d].constant();
      PTO_USER_CHECK(!e || *e >= 0, site) << "make_tensor: extent " << *e << " of dimension " << d << " is negative";
      PTO_USER_CHECK(!st || *st >= 0, site) << "make_tensor: stride " << *st << " of dimension " << d << " is negative (strides are elements, >= 0)";
      v.static_[d] = e.value_or(-1);
      v.extent_[d] = shape[d].expr();
      v.stride_[d] = strides[d].expr();
      v.dim_of_[d] = d;
    }
    v.base_ = offset.expr();
    return v;
  }
  /// The 2-D view left by fixing every dimension but the last two at `leading` (rank - 2 indices).
  Tensor matrix_at(std::span<const Int> leading, std::source_location loc = std::source_location::current()) const {
    Tensor v = *this;
    for (const Int& i : leading) v = v.select(0, i, loc);
    return v;
  }

 private:
  static ir::Expr add(const ir::Expr& a, const ir::Expr& b) { return a ? ir::Binary::make(ir::BinaryOp::Add, a, b) : b; }
  void row_major_strides() {
    stride_[rank_ - 1] = ir::IntImm::make(1);
    for (int d = rank_ - 2; d >= 0; --d) stride_[d] = ir::Binary::make(ir::BinaryOp::Mul, stride_[d + 1], extent_[d + 1]);
  }
  void need_2d(const char* what, const std::source_location& loc) const {
    PTO_USER_CHECK(rank_ == 2, TraceContext::get(loc).site(SourceLoc::from(loc)))
        << what << " needs a 2-D tensor; this one is " << rank_ << "-D (x[i] or select(d, i) fixes a dimension, permute reorders them)";
  }
  Slice<T> region(std::array<Int, 2> offset, std::array<Int, 2> extent) const {
    ir::GMRegion r;
    r.tensor = index_;
    r.offset = {offset[0].expr(), offset[1].expr()};
    r.extent = {extent[0].expr(), extent[1].expr()};
    r.base = base_;
    if (rank_ == 1) {
      r.view = {ir::IntImm::make(1), extent_[0]};
      r.stride = {ir::Binary::make(ir::BinaryOp::Mul, extent_[0], stride_[0]), stride_[0]};
    } else {
      r.view = {extent_[0], extent_[1]};
      r.stride = {stride_[0], stride_[1]};
    }
    r.fixed = fixed_;
    r.storage = storage_;
    return Slice<T>{std::move(r), rank_};
  }

  int index_;
  int rank_;
  bool plain_;
  std::array<int64_t, ir::kMaxRank> static_{};       // a dynamic dimension's entry is -1
  std::array<ir::Expr, ir::kMaxRank> extent_{}, stride_{};
  std::array<int, ir::kMaxRank> dim_of_{};           // the parameter's dimension each one is
  ir::Expr base_;                                    // element offset of the view's origin; null: 0
  std::vector<ir::GMRegion::Fixed> fixed_;
  ir::Expr storage_;                                 // a make_tensor view: the parameter's element count
};

/// PyPTO Pro's `make_tensor(ptr, shape, stride)`: a view of tensor parameter `x`'s memory (see
/// Tensor::reinterpret); `pl::make_tensor(x, {rows, cols}, {1, rows})` is x read as a column-major matrix.
template <Element T>
Tensor<T> make_tensor(const Tensor<T>& x, const std::vector<Int>& shape, const std::vector<Int>& strides, Int offset = 0,
                      std::source_location loc = std::source_location::current()) {
  return x.reinterpret(shape, strides, std::move(offset), loc);
}

/// A parameter with declared dimensions (see the top of this file): what the kernel sees is a
/// Tensor<T>; the declaration is read by the launch, which checks the argument against it.
template <Element T, int64_t... Dims>
class Tensor : public Tensor<T> {
  static_assert(sizeof...(Dims) >= 1 && sizeof...(Dims) <= ir::kMaxRank, "pto: pl::Tensor<T, dims...> declares 1 to 5 dimensions");
  static_assert(((Dims >= 0 || Dims == DYNAMIC || Dims == STATIC) && ...),
                "pto: a declared dimension is an extent (>= 0), pl::DYNAMIC or pl::STATIC");

 public:
  /// The declaration as written: an extent, DYNAMIC or STATIC per dimension.
  static constexpr std::array<int64_t, sizeof...(Dims)> declared{Dims...};
  using Tensor<T>::Tensor;
};

}  // namespace pto::lang
