#pragma once
// `pl::Tensor<T>`: a kernel parameter in GM with a static shape (1-D or 2-D, row-major).
// `slice` cuts a rectangular region with runtime offsets and lengths; `view` reinterprets the
// same memory with another static shape of equal size.
#include <array>
#include <source_location>
#include <vector>

#include "pto/lang/Scalar.hpp"
#include "pto/lang/Trace.hpp"

namespace pto::lang {

/// A region of a GM tensor, as passed to `pl::load` / `pl::store`.
template <Element T>
struct Slice {
  ir::GMRegion region;
  int rank;
};

template <Element T>
class Tensor {
 public:
  using element_type = T;

  /// Made by the runtime while tracing; `index` is the parameter's position among tensors.
  Tensor(int index, int rank, std::array<int64_t, 2> shape) : index_(index), rank_(rank), view_(shape) {}

  int rank() const { return rank_; }
  /// The parameter's position among the kernel's tensors.
  int index() const { return index_; }
  int64_t numel() const { return view_[0] * view_[1]; }
  /// Extent of dimension i (0-based) of the declared rank.
  int64_t dim(int i) const { return rank_ == 1 ? view_[1] : view_[i]; }
  std::vector<int64_t> shape() const {
    return rank_ == 1 ? std::vector<int64_t>{view_[1]} : std::vector<int64_t>{view_[0], view_[1]};
  }

  /// 1-D: elements [offset, offset + length). 2-D: rows [offset, offset + length), all columns.
  Slice<T> slice(Int offset, Int length) const {
    if (rank_ == 1) return region({0, offset}, {1, length});
    return region({offset, 0}, {length, view_[1]});
  }
  /// 2-D: rows [row, row + rows) x columns [col, col + cols).
  Slice<T> slice(Int row, Int rows, Int col, Int cols,
                 std::source_location loc = std::source_location::current()) const {
    PTO_USER_CHECK(rank_ == 2, TraceContext::get(loc).site(SourceLoc::from(loc)))
        << "slice(row, rows, col, cols) needs a 2-D tensor; this one is 1-D";
    return region({row, col}, {rows, cols});
  }
  /// The same memory seen with another static shape (equal element count).
  Tensor view(std::vector<int64_t> shape, std::source_location loc = std::source_location::current()) const {
    auto& ctx = TraceContext::get(loc);
    PTO_USER_CHECK(shape.size() == 1 || shape.size() == 2, ctx.site(SourceLoc::from(loc)))
        << "view needs a 1-D or 2-D shape, got rank " << shape.size();
    std::array<int64_t, 2> v = shape.size() == 1 ? std::array<int64_t, 2>{1, shape[0]} : std::array<int64_t, 2>{shape[0], shape[1]};
    PTO_USER_CHECK(v[0] * v[1] == numel(), ctx.site(SourceLoc::from(loc)))
        << "view of " << v[0] * v[1] << " elements on a tensor of " << numel();
    return Tensor(index_, static_cast<int>(shape.size()), v);
  }

 private:
  Slice<T> region(std::array<Int, 2> offset, std::array<Int, 2> extent) const {
    return Slice<T>{ir::GMRegion{index_, view_, {offset[0].expr(), offset[1].expr()}, {extent[0].expr(), extent[1].expr()}}, rank_};
  }

  int index_;
  int rank_;
  std::array<int64_t, 2> view_;
};

}  // namespace pto::lang
