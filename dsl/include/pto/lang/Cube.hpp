#pragma once
// Cube instructions and the mix-kernel structure (PyPTO Pro names).
//   load   GM -> Mat                 (MTE2)  as for Vec tiles
//   move   Mat -> Left / Right       (MTE1)  optionally transposed
//   extract Mat -> Left / Right      (MTE1)  a window of the L1 tile (pto-isa TEXTRACT): a K slice
//          of an L1 panel into L0
//   move   Acc -> Vec                (FIX)   on the AIC, into its AIVs' UB (acc_to_vec_mode),
//          converting float to half/bfloat16; where the profile has the path (a5), mix kernels
//   move   Vec -> Mat                (MTE3)  on an AIV, into its AIC's L1 at `offset`; as above
//   set_validshape(tile, rows, cols) (S)     declares a tile's valid extent: a core that received
//          data through a cross-core move says how much it got (as in PyPTO Pro)
//   matmul Left x Right -> Acc       (M)     half/bfloat16/float accumulate in float, int8 in int32
//   store  Acc -> GM                 (FIX)   with a cast to the tensor's dtype (float -> half, ...)
//   section_cube(f) / section_vector(f)      code that runs only on the AIC / the AIVs of a block
//   set_cross_core(pipe, e) / wait_cross_core(pipe, e)   flags between the AIC and the AIVs of a
//          block (event ids 0..15); the data goes through a GM workspace
//   get_subblock_idx() / get_subblock_num()  which AIV of the block (0 or 1) / 2 in mix kernels
#include <functional>
#include <source_location>

#include "pto/lang/Ops.hpp"

namespace pto::lang {

/// Acc -> Vec: which AIVs receive the accumulator. SingleModeVec0/1: all of it to AIV 0/1.
/// DualModeSplitM: AIV 0 gets the first ceil(m / 2) rows, AIV 1 the other m - ceil(m / 2).
/// DualModeSplitN: AIV 0 gets the first min(n, ceil32(n) / 2) columns, AIV 1 the rest.
using AccToVecMode = ir::AccToVec;

/// Where a Vec -> Mat move puts the source's valid region in the destination tile.
struct Offset {
  Int row = 0;
  Int col = 0;
};

struct MoveOptions {
  bool transpose = false;                                       // Mat -> Left/Right
  AccToVecMode acc_to_vec_mode = AccToVecMode::SingleModeVec0;  // Acc -> Vec
  Offset offset{};                                              // Vec -> Mat
};
struct MatmulOptions {
  bool accumulate = false;
};

namespace detail {
void emit_move(const ir::TileRef& dst, const TileShape& dst_shape, const ir::TileRef& src, const TileShape& src_shape,
               const MoveOptions& options, const std::source_location& loc);
void emit_extract(const ir::TileRef& dst, const TileShape& dst_shape, const ir::TileRef& src, const TileShape& src_shape,
                  const Int& row, const Int& col, bool transpose, const std::source_location& loc);
void emit_set_valid(const ir::TileRef& tile, const TileShape& shape, const Int& rows, const Int& cols, const std::source_location& loc);
void emit_matmul(const ir::TileRef& acc, const TileShape& acc_shape, const ir::TileRef& a, const TileShape& a_shape,
                 const ir::TileRef& b, const TileShape& b_shape, bool accumulate, const std::source_location& loc,
                 const ir::TileRef& bias = {}, const TileShape* bias_shape = nullptr);
void emit_section(ir::CoreKind core, const std::function<void()>& body, const std::source_location& loc);
void emit_cross_core(ir::SyncOp op, Pipe pipe, const Int& event, const std::source_location& loc);
}  // namespace detail

/// A local copy between tiles (see the table above for the paths). The element types match,
/// except that Acc -> Vec may convert a float accumulator to half or bfloat16.
template <Element T, Element U>
  requires(std::is_same_v<T, U> || (std::is_same_v<U, float> && (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)))
void move(const Tile<T>& dst, const Tile<U>& src, MoveOptions options = {},
          std::source_location loc = std::source_location::current()) {
  detail::emit_move(dst.ref(), dst.shape(), src.ref(), src.shape(), options, loc);
}

struct ExtractOptions {
  bool transpose = false;  // the window is transposed on the way (as move's transpose)
};

/// Mat -> Left/Right on MTE1: the window of `src` whose top-left element is (row, col), in src's
/// coordinates (pto-isa's TEXTRACT). The window is as large as `dst` holds (transposed: dst's
/// columns x rows), cut to what src has valid past (row, col), so a K tail needs no special case;
/// dst's valid extent becomes the window's (transposed: swapped). The offsets are runtime values,
/// checked: not negative, not past src's valid extent.
///   for (auto s : pl::range(0, ksteps)) pl::extract(left.current(), a_l1.current(), 0, s * 64);
template <Element T>
void extract(const Tile<T>& dst, const Tile<T>& src, Int row, Int col, ExtractOptions options = {},
             std::source_location loc = std::source_location::current()) {
  detail::emit_extract(dst.ref(), dst.shape(), src.ref(), src.shape(), row, col, options.transpose, loc);
}

/// Declares that `tile` (its current slot) holds valid data in its first rows x cols.
template <Element T>
void set_validshape(const Tile<T>& tile, Int rows, Int cols, std::source_location loc = std::source_location::current()) {
  detail::emit_set_valid(tile.ref(), tile.shape(), rows, cols, loc);
}

/// The accumulator type of a cube multiply of `In` elements.
template <Element In>
using accumulator_t = std::conditional_t<std::is_same_v<In, int8_t>, int32_t, float>;

/// acc (+)= left x right on the cube (M pipe).
template <Element A, Element L, Element R>
void matmul(const Tile<A>& acc, const Tile<L>& left, const Tile<R>& right, MatmulOptions options = {},
            std::source_location loc = std::source_location::current()) {
  static_assert(std::is_same_v<L, R>, "pto: matmul needs left and right tiles of the same element type");
  static_assert(!std::is_same_v<L, int32_t>, "pto: the cube multiplies half, bfloat16, float or int8, not int32");
  static_assert(std::is_same_v<A, accumulator_t<L>>,
                "pto: matmul accumulates half/bfloat16/float in a float Acc tile and int8 in an int32 Acc tile");
  detail::emit_matmul(acc.ref(), acc.shape(), left.ref(), left.shape(), right.ref(),
                      right.shape(), options.accumulate, loc);
}

/// acc = bias + left x right: `bias` is a [1, >= N] Mat tile of the accumulator's type, added to
/// every row as the start of the accumulation (pto-isa's TMATMUL_BIAS; on the chip the bias
/// table is filled from L1, here the matmul reads the L1 tile).
template <Element A, Element L, Element R>
void matmul(const Tile<A>& acc, const Tile<L>& left, const Tile<R>& right, const Tile<A>& bias,
            std::source_location loc = std::source_location::current()) {
  static_assert(std::is_same_v<L, R>, "pto: matmul needs left and right tiles of the same element type");
  static_assert(std::is_same_v<A, accumulator_t<L>>,
                "pto: matmul accumulates half/bfloat16/float in a float Acc tile and int8 in an int32 Acc tile");
  const TileShape bias_shape = bias.shape();
  detail::emit_matmul(acc.ref(), acc.shape(), left.ref(), left.shape(), right.ref(), right.shape(), false, loc, bias.ref(), &bias_shape);
}

/// acc += left x right (PyPTO Pro's matmul_acc): matmul with {.accumulate = true}.
template <Element A, Element L, Element R>
void matmul_acc(const Tile<A>& acc, const Tile<L>& left, const Tile<R>& right,
                std::source_location loc = std::source_location::current()) {
  matmul(acc, left, right, {.accumulate = true}, loc);
}

/// The conversions FIX makes on the way out of Acc: a float accumulator to half, bfloat16 or
/// int8, an int32 one to half, bfloat16, float or int8 (usually with a StoreOptions::scale).
template <class T, class U>
concept FixConversion = !std::is_same_v<T, U> && (std::is_same_v<U, float> || std::is_same_v<U, int32_t>) &&
                        (std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || std::is_same_v<T, int8_t> || std::is_same_v<T, float>);

/// Acc -> GM on FIX, converting the accumulator to the tensor's dtype (FixConversion).
template <Element T, Element U>
  requires FixConversion<T, U>
void store(const Slice<T>& dst, const Tile<U>& src, std::source_location loc = std::source_location::current()) {
  detail::emit_store(dst.region, dst.rank, src.ref(), src.shape(), dtype_of<U>, loc);
}
template <Element T, Element U>
  requires FixConversion<T, U>
void store(const Slice<T>& dst, const Tile<U>& src, StoreOptions options, std::source_location loc = std::source_location::current()) {
  detail::emit_store(dst.region, dst.rank, src.ref(), src.shape(), dtype_of<U>, loc, options);
}

/// Code run only by the AIC of each block.
inline void section_cube(const std::function<void()>& body, std::source_location loc = std::source_location::current()) {
  detail::emit_section(ir::CoreKind::AIC, body, loc);
}
/// Code run only by the AIVs of each block.
inline void section_vector(const std::function<void()>& body, std::source_location loc = std::source_location::current()) {
  detail::emit_section(ir::CoreKind::AIV, body, loc);
}

/// Which AIV of its block this core is: 0 or 1 in a mix kernel (0 on an AIC and in vector kernels).
Int get_subblock_idx(std::source_location loc = std::source_location::current());
/// AIVs per block: 2 in a mix kernel, 1 otherwise.
Int get_subblock_num(std::source_location loc = std::source_location::current());

/// Signals cross-core flag `event` once `pipe`'s earlier instructions are done: from the AIC to
/// both AIVs of the block, or from an AIV to the AIC.
inline void set_cross_core(Pipe pipe, Int event, std::source_location loc = std::source_location::current()) {
  detail::emit_cross_core(ir::SyncOp::CrossSet, pipe, event, loc);
}
/// Holds `pipe` until flag `event` arrives: on an AIV, one set by the AIC; on the AIC, one set by each AIV.
inline void wait_cross_core(Pipe pipe, Int event, std::source_location loc = std::source_location::current()) {
  detail::emit_cross_core(ir::SyncOp::CrossWait, pipe, event, loc);
}

/// Every core of the launch that takes part meets here before any goes on (PyPTO Pro's
/// `sync_all`, pto-isa's SYNCALL): each drains its pipes, so the GM writes of all of them before
/// the call are seen by all of them after it. Who takes part follows where it is called:
/// in section_vector every AIV of the launch, in section_cube every AIC, outside sections every
/// core (in a vector or cube kernel: every core). A kernel's calls all have one such scope. A
/// core that ends without reaching a sync_all the others wait at is a deadlock report.
void sync_all(std::source_location loc = std::source_location::current());

}  // namespace pto::lang
