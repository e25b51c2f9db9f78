#pragma once
// Tiles and tile groups. A tile is a static-capacity (rows, cols) buffer in one of the core's
// local memories; its valid extent is set at run time by the instruction that writes it (a
// load of a tail region is shorter than the tile). A tile group is `depth` slots of one tile
// shape, one per mutex id, rotated with `next()`: the double/multi-buffering of PyPTO Pro. As in
// PyPTO Pro, a group's cursor starts at the last slot (depth - 1), so the first `next()` returns
// slot 0: `for (...) { auto t = g.next(); ... }`. Code that uses `current()` and calls `next()`
// at the end of each step works as well (it starts on the last slot).
#include <initializer_list>
#include <source_location>
#include <vector>

#include "pto/lang/Scalar.hpp"
#include "pto/lang/Trace.hpp"

namespace pto::lang {

using ir::MemSpace;
inline constexpr MemSpace GM = MemSpace::GM;
inline constexpr MemSpace Vec = MemSpace::Vec;
inline constexpr MemSpace Mat = MemSpace::Mat;
inline constexpr MemSpace Left = MemSpace::Left;
inline constexpr MemSpace Right = MemSpace::Right;
inline constexpr MemSpace Acc = MemSpace::Acc;
using ir::Pipe;

template <Element T> struct TExpr;

/// The static facts of a tile that the language needs while tracing.
struct TileShape {
  int64_t rows, cols;
  int rank;
  MemSpace space;
};

/// The right-hand side of a tile assignment, remembering the user's source line.
template <Element T>
struct TileValue {
  ir::Expr expr;
  SourceLoc loc;
  TileValue(const TExpr<T>& e, std::source_location l = std::source_location::current())  // NOLINT
      : expr(e.node), loc(SourceLoc::from(l)) {}
  template <class S> requires std::is_arithmetic_v<S>
  TileValue(S s, std::source_location l = std::source_location::current())  // NOLINT: fill
      : expr(is_floating(dtype_of<T>) ? ir::FloatImm::make(static_cast<double>(s), DType::f32)
                                      : ir::IntImm::make(static_cast<int64_t>(s), DType::i32)),
        loc(SourceLoc::from(l)) {}
};

namespace detail {
void emit_vec_compute(const ir::TileRef& dst, const ir::Expr& value, const SourceLoc& loc);
/// The window [row, row + rows) x [col, col + cols) of `tile` (itself possibly a view, whose
/// shape is `shape`): checked at trace time where the offsets are constants.
ir::TileRef make_view(const ir::TileRef& tile, const TileShape& shape, const ir::Expr& row, int64_t rows, const ir::Expr& col,
                      int64_t cols, const std::source_location& loc);
/// The UserError of a view given to an instruction that takes whole tiles.
[[noreturn]] void view_not_a_whole_tile(const ir::TileRef& view);
}

/// One slot of a tile group. Copying a Tile copies the handle; assigning to a Tile emits a
/// vector instruction that writes its elements.
template <Element T>
class Tile {
 public:
  using element_type = T;
  Tile(ir::TileRef ref, TileShape s) : ref_(std::move(ref)), rows_(s.rows), cols_(s.cols), rank_(s.rank), space_(s.space) {}
  Tile(const Tile&) = default;

  Tile& operator=(const TileValue<T>& v) {
    detail::emit_vec_compute(ref_, v.expr, v.loc);  // a view's window included
    return *this;
  }
  /// `a = b` copies b's elements into a (a vector instruction).
  Tile& operator=(const Tile& other) {
    detail::emit_vec_compute(ref_, other.read(), TraceContext::current() ? TraceContext::current()->last_loc() : SourceLoc{});
    return *this;
  }

  /// The slot this tile names, for instructions that take whole tiles (load, store, move,
  /// matmul, reduction destinations, ...); a view is a UserError there.
  const ir::TileRef& ref() const {
    if (ref_.window) detail::view_not_a_whole_tile(ref_);
    return ref_;
  }
  /// A view of rows [row, row + rows) and columns [col, col + cols) of this 2-D tile (or of this
  /// view): an operand or destination of tile expressions (`t.view(0, 1, 0, n) = pl::exp(x)`,
  /// `y = a.view(r, 8, 0, 64) * 2`) with the shape {rows, cols}, so a one-column view broadcasts
  /// along rows and a one-row view down columns. Offsets may be runtime values, extents are
  /// static; it must lie inside the tile (checked at trace time for constant offsets, else at run
  /// time). A view's valid extent is its shape; writing one leaves the tile's valid extent as it was.
  Tile view(Int row, int64_t rows, Int col, int64_t cols, std::source_location loc = std::source_location::current()) const {
    return Tile(detail::make_view(ref_, shape(), row.expr(), rows, col.expr(), cols, loc), {rows, cols, rank_, space_});
  }
  /// Elements [offset, offset + count) of this 1-D tile.
  Tile view(Int offset, int64_t count, std::source_location loc = std::source_location::current()) const {
    return Tile(detail::make_view(ref_, shape(), Int(0).expr(), 1, offset.expr(), count, loc), {1, count, rank_, space_});
  }
  /// The slot or view, as the destination of a tile expression (the PyPTO forms' `out`).
  const ir::TileRef& expr_ref() const { return ref_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int rank() const { return rank_; }
  MemSpace space() const { return space_; }
  TileShape shape() const { return {rows_, cols_, rank_, space_}; }
  /// This tile as an operand of a tile expression; a one-column 2-D tile broadcasts along rows.
  ir::Expr read() const { return ir::TileRead::make(ref_, dtype_of<T>, rank_ == 2 && cols_ == 1); }  // views included

 private:
  ir::TileRef ref_;
  int64_t rows_, cols_;
  int rank_;
  MemSpace space_;
};

template <Element T>
class TileGroup {
 public:
  TileGroup(int group, TileShape shape, ir::Expr counter, int depth)
      : group_(group), shape_(shape), counter_(std::move(counter)), depth_(depth) {}

  int depth() const { return depth_; }
  /// The index of the current slot (0 .. depth-1), e.g. as a flag event id for manual sync.
  Int slot() const { return depth_ == 1 ? Int(0) : Int(counter_); }
  /// The slot the group currently points at.
  Tile<T> current() const { return Tile<T>({group_, slot_expr(0)}, shape_); }
  /// The slot used before the last `next()`.
  Tile<T> previous() const { return Tile<T>({group_, slot_expr(depth_ - 1)}, shape_); }
  /// Slot `i` (0 <= i < depth), independent of the current position.
  Tile<T> operator[](int i) const { return Tile<T>({group_, ir::IntImm::make(i)}, shape_); }
  /// Advances to the next slot (cyclically) and returns it; a runtime operation inside `pl::range`.
  Tile<T> next(std::source_location loc = std::source_location::current()) const {
    auto& ctx = TraceContext::get(loc);
    ctx.note(loc);
    if (depth_ > 1) {
      Int c(counter_);
      ctx.emit(ir::Assign::make(counter_, ((c + 1) % depth_).expr()));
    }
    return current();
  }

 private:
  ir::Expr slot_expr(int ahead) const {
    if (depth_ == 1) return ir::IntImm::make(0);
    if (ahead == 0) return counter_;
    return ((Int(counter_) + ahead) % depth_).expr();
  }

  int group_;
  TileShape shape_;
  ir::Expr counter_;
  int depth_;
};

namespace detail {
int declare_group(DType dtype, MemSpace space, std::vector<int64_t> shape, std::vector<int> mutex_ids,
                  const std::source_location& loc, ir::TilePad pad = ir::TilePad::Null, std::vector<int64_t> addrs = {},
                  ir::Layout layout = ir::Layout::Default);
TileShape group_shape(int group);
ir::Expr group_counter(int group);
int group_depth(int group);
}  // namespace detail

/// PyPTO Pro's TilePad: a tile's pad value, what pl::fillpad writes outside the valid extent
/// (null: none; max / min: +inf / -inf for floating-point tiles, the extreme numbers for integers).
using ir::TilePad;

/// `depth = mutex_ids.size()` slots (at least one) of a tile of `shape` ({n} or {rows, cols}),
/// with an optional pad value (PyPTO Pro's TileType(pad=...)).
template <Element T>
TileGroup<T> make_tile_group(MemSpace space, std::vector<int64_t> shape, std::vector<int> mutex_ids, TilePad pad,
                             std::source_location loc = std::source_location::current()) {
  const int g = detail::declare_group(dtype_of<T>, space, std::move(shape), std::move(mutex_ids), loc, pad);
  return TileGroup<T>(g, detail::group_shape(g), detail::group_counter(g), detail::group_depth(g));
}
template <Element T>
TileGroup<T> make_tile_group(MemSpace space, std::vector<int64_t> shape, std::vector<int> mutex_ids,
                             std::source_location loc = std::source_location::current()) {
  return make_tile_group<T>(space, std::move(shape), std::move(mutex_ids), TilePad::Null, loc);
}

/// PyPTO Pro's `addrs=`: where a tile (one address) or each slot of a group (one per slot, a
/// constant step apart) lives in its memory, in bytes. Tiles placed at the same bytes alias on
/// purpose (a `[rows, 1]` column and its `[1, rows]` row view): the race checker sees one memory
/// (auto_mutex's locks cover both), and a placed tile starts with its whole shape valid. Unplaced
/// tiles go around placed ones (docs/semantics.md, "Memory").
struct Addrs {
  std::vector<int64_t> bytes;
  Addrs(std::initializer_list<int64_t> b) : bytes(b) {}  // NOLINT: pl::Addrs{0x0, 0x8000}
};
template <Element T>
TileGroup<T> make_tile_group(MemSpace space, std::vector<int64_t> shape, std::vector<int> mutex_ids, Addrs addrs,
                             std::source_location loc = std::source_location::current()) {
  const int g = detail::declare_group(dtype_of<T>, space, std::move(shape), std::move(mutex_ids), loc, TilePad::Null, std::move(addrs.bytes));
  return TileGroup<T>(g, detail::group_shape(g), detail::group_counter(g), detail::group_depth(g));
}
template <Element T>
Tile<T> make_tile(MemSpace space, std::vector<int64_t> shape, Addrs addr, std::source_location loc = std::source_location::current()) {
  return make_tile_group<T>(space, std::move(shape), {}, std::move(addr), loc).current();
}

/// PyPTO Pro's layouts (TileType(layout=...)): how a tile's elements lie in its memory
/// (ir/Layout.hpp). Each memory has the chip's default (a2: Mat NZ, Left ZZ, Right ZN, Acc NZ,
/// Vec ND; a5: Left NZ) and takes only the layouts the chip's data paths handle; the timing model
/// charges the conversions those paths make (ND -> NZ on a GM -> Mat load, a block transpose on an
/// L1 -> L0 move, NZ -> ND out of Acc). docs/semantics.md, "Layouts".
using Layout = ir::Layout;
inline constexpr Layout ND = Layout::ND;
inline constexpr Layout DN = Layout::DN;
inline constexpr Layout NZ = Layout::NZ;
inline constexpr Layout ZN = Layout::ZN;
inline constexpr Layout ZZ = Layout::ZZ;
inline constexpr Layout NN = Layout::NN;

/// Everything optional about a tile or group, by name:
///   pl::make_tile_group<half>(pl::Mat, {128, 64}, {0, 1}, {.layout = pl::ZN, .addrs = {0, 0x4000}});
struct TileOptions {
  Layout layout = Layout::Default;  // the memory's default on the chip
  TilePad pad = TilePad::Null;
  std::vector<int64_t> addrs{};     // as Addrs: one byte address per slot, or empty (the planner places it)
};
template <Element T>
TileGroup<T> make_tile_group(MemSpace space, std::vector<int64_t> shape, std::vector<int> mutex_ids, TileOptions options,
                             std::source_location loc = std::source_location::current()) {
  const int g = detail::declare_group(dtype_of<T>, space, std::move(shape), std::move(mutex_ids), loc, options.pad,
                                      std::move(options.addrs), options.layout);
  return TileGroup<T>(g, detail::group_shape(g), detail::group_counter(g), detail::group_depth(g));
}
template <Element T>
TileGroup<T> make_tile_group(MemSpace space, std::vector<int64_t> shape, std::vector<int> mutex_ids, Layout layout,
                             std::source_location loc = std::source_location::current()) {
  return make_tile_group<T>(space, std::move(shape), std::move(mutex_ids), TileOptions{.layout = layout}, loc);
}
template <Element T>
Tile<T> make_tile(MemSpace space, std::vector<int64_t> shape, TileOptions options, std::source_location loc = std::source_location::current()) {
  return make_tile_group<T>(space, std::move(shape), {}, std::move(options), loc).current();
}
template <Element T>
Tile<T> make_tile(MemSpace space, std::vector<int64_t> shape, Layout layout, std::source_location loc = std::source_location::current()) {
  return make_tile_group<T>(space, std::move(shape), {}, TileOptions{.layout = layout}, loc).current();
}

/// A single tile (a group of depth 1).
template <Element T>
Tile<T> make_tile(MemSpace space, std::vector<int64_t> shape, TilePad pad, std::source_location loc = std::source_location::current()) {
  return make_tile_group<T>(space, std::move(shape), {}, pad, loc).current();
}
template <Element T>
Tile<T> make_tile(MemSpace space, std::vector<int64_t> shape,
                  std::source_location loc = std::source_location::current()) {
  return make_tile_group<T>(space, std::move(shape), {}, TilePad::Null, loc).current();
}

}  // namespace pto::lang
