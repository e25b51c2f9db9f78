#pragma once
// PyPTO Pro's vector instructions that place elements by an index or a rule (V pipe, Vec tiles),
// each one instruction: gather, gatherb, gathermask, scatter, fillpad, sort32, mrgsort, mrgsort2,
// and transpose.
// What each computes, and where PTO-JIT defines what PyPTO Pro leaves undefined (an index out of
// range stops the core with an error), is in docs/semantics.md. PyPTO Pro's UINT32 index and
// offset tiles are int32 tiles here.
#include <source_location>
#include <vector>

#include "pto/lang/Tile.hpp"

namespace pto::lang {

namespace detail {
struct RoutineOperand {
  ir::TileRef ref;
  TileShape shape;
  DType dtype;
  template <Element T>
  RoutineOperand(const Tile<T>& t) : ref(t.ref()), shape(t.shape()), dtype(dtype_of<T>) {}  // NOLINT
};
/// Emits one vector routine; `operands` as ir::VecRoutine lists them, the first `writes` written.
void emit_vec_routine(ir::Routine routine, const std::vector<RoutineOperand>& operands, int writes, std::array<int64_t, 2> params,
                      const std::source_location& loc);
}  // namespace detail

/// gather's keyword arguments. `offset` is added to every index; `cmp_mode` must be 0 (PyPTO Pro
/// leaves its other values undocumented).
struct GatherOptions {
  int cmp_mode = 0;
  int64_t offset = 0;
};

/// out[i, j] = the element of src at flat (row-major) index idx[i, j] + offset, over idx's valid
/// extent, which becomes out's. `tmp` (PyPTO Pro's work tile, idx's type and shape) is accepted
/// and unused. An index outside src's valid elements stops the core.
template <Element T>
void gather(const Tile<T>& out, const Tile<T>& src, const Tile<int32_t>& idx, const Tile<int32_t>& tmp, GatherOptions options = {},
            std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::Gather, {out, tmp, src, idx}, 2, {options.offset, options.cmp_mode}, loc);
}
template <Element T>
void gather(const Tile<T>& out, const Tile<T>& src, const Tile<int32_t>& idx, GatherOptions options = {},
            std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::Gather, {out, src, idx}, 1, {options.offset, options.cmp_mode}, loc);
}

/// Row i of out is the 32-byte blocks of src starting at the byte offsets offsets[i, 0..]: out
/// gets offsets' valid rows and (its valid columns x 32 / element size) columns. An offset must
/// be a multiple of the element size and its block inside src's valid rows.
template <Element T>
void gatherb(const Tile<T>& out, const Tile<T>& src, const Tile<int32_t>& offsets, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::GatherB, {out, src, offsets}, 1, {0, 0}, loc);
}

/// gathermask's keyword argument: 1 even columns, 2 odd columns, 3..6 the first..fourth column of
/// every 4, 7 every column (PyPTO Pro's pattern_mode, pto-isa's MaskPattern P0101 .. P1111).
struct GatherMaskOptions {
  int pattern_mode = 0;
};
/// out = the columns of src's valid extent that `pattern_mode` selects, per row.
template <Element T>
void gathermask(const Tile<T>& out, const Tile<T>& src, GatherMaskOptions options,
                std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::GatherMask, {out, src}, 1, {options.pattern_mode, 0}, loc);
}

/// out's element at flat (row-major) index idx[i, j] = src[i, j], over src's valid extent (idx
/// must cover it); other elements of out keep their values, and out's valid extent stays. Where two
/// indices are equal the later one in row-major order wins. An index outside out stops the core.
template <Element T>
void scatter(const Tile<T>& out, const Tile<T>& src, const Tile<int32_t>& idx, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::Scatter, {out, src, idx}, 1, {0, 0}, loc);
}

/// fillpad's modes: NORMAL (out and src different tiles of one shape), EXPAND (out at least src's
/// shape), INPLACE (out and src the same tile).
enum class FillPadMode { NORMAL, EXPAND, INPLACE };
struct FillPadOptions {
  FillPadMode mode = FillPadMode::NORMAL;
};
/// out = src inside src's valid extent and out's pad value (make_tile(..., pl::TilePad::Zero))
/// everywhere else in out's shape; out's valid extent becomes its whole shape.
template <Element T>
void fillpad(const Tile<T>& out, const Tile<T>& src, FillPadOptions options = {},
             std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::FillPad, {out, src}, 1, {static_cast<int64_t>(options.mode), 0}, loc);
}

/// Each row of src (f32 or f16) in groups of 32 valid elements, each group sorted by value,
/// greatest first, the smaller index first among equal values, NaN last; each element becomes an
/// 8-byte record in dst: f32 [value, index], f16 [value, 0, index] (2 or 4 dst elements), the
/// index the element's entry of idx (one row for every row, or one row per row). `tmp` is
/// accepted and unused.
template <Element T>
void sort32(const Tile<T>& dst, const Tile<T>& src, const Tile<int32_t>& idx, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::Sort32, {dst, src, idx}, 1, {0, 0}, loc);
}
template <Element T>
void sort32(const Tile<T>& dst, const Tile<T>& src, const Tile<int32_t>& idx, const Tile<T>& tmp,
            std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::Sort32, {dst, tmp, src, idx}, 2, {0, 0}, loc);
}

/// mrgsort's keyword argument: the length of each sorted block in tile elements (not records).
struct MrgSortOptions {
  int64_t block_len = 0;
};
/// Merges each group of 4 consecutive sorted blocks of sort32 records of src (per row) into one
/// sorted block of dst; src's valid columns must be a multiple of 4 x block_len.
template <Element T>
void mrgsort(const Tile<T>& dst, const Tile<T>& src, MrgSortOptions options, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::MrgSort, {dst, src}, 1, {options.block_len, 0}, loc);
}

/// mrgsort2's keyword argument: stop merging when any list runs out.
struct MrgSort2Options {
  bool exhausted = false;
};
/// Merges 2 to 4 one-row lists of sort32 records (each sorted) into tmp (all of them, or up to
/// the first list to run out with `exhausted`); dst gets the first of them, as many as its valid
/// columns hold (its valid extent becomes that).
template <Element T>
void mrgsort2(const Tile<T>& src0, const Tile<T>& src1, const Tile<T>& dst, const Tile<T>& tmp, MrgSort2Options options = {},
              std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::MrgSort2, {dst, tmp, src0, src1}, 2, {options.exhausted, 0}, loc);
}
template <Element T>
void mrgsort2(const Tile<T>& src0, const Tile<T>& src1, const Tile<T>& dst, const Tile<T>& tmp, const Tile<T>& src2,
              MrgSort2Options options = {}, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::MrgSort2, {dst, tmp, src0, src1, src2}, 2, {options.exhausted, 0}, loc);
}
template <Element T>
void mrgsort2(const Tile<T>& src0, const Tile<T>& src1, const Tile<T>& dst, const Tile<T>& tmp, const Tile<T>& src2,
              const Tile<T>& src3, MrgSort2Options options = {}, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::MrgSort2, {dst, tmp, src0, src1, src2, src3}, 2, {options.exhausted, 0}, loc);
}

/// transpose(dst, src): dst[c, r] = src[r, c] over src's valid extent (rows x cols), which
/// becomes dst's valid extent transposed (cols x rows); it must fit dst's capacity (else the
/// core stops). Vec tiles of one dtype, any dtype; dst may be src (the source is read before dst
/// is written). Timed as one element-wise pass (assumption).
template <Element T>
void transpose(const Tile<T>& dst, const Tile<T>& src, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::Transpose, {dst, src}, 1, {0, 0}, loc);
}

/// iota(dst, start): dst[r, c] = start + r * cols + c over dst's whole capacity, row-major, which
/// becomes its valid extent: a {1, n} tile holds start, start + 1, ..., start + n - 1 (broadcast
/// down a {rows, n} operand, column indices for every row). Any dtype, the values converted as a
/// tile expression's result is written (integers wrap; floats round to nearest even, exact up to
/// 2^24 in f32, 2048 in f16, 256 in bf16). `start` is a trace-time constant. Timed as one
/// element-wise pass (assumption).
template <Element T>
void iota(const Tile<T>& dst, int64_t start = 0, std::source_location loc = std::source_location::current()) {
  detail::emit_vec_routine(ir::Routine::Iota, {dst}, 1, {start, 0}, loc);
}

}  // namespace pto::lang
