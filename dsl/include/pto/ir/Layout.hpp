#pragma once
// Tile layouts (PyPTO Pro's TensorLayout, pto-isa's BLayout + SLayout): how a tile's elements lie
// in its memory. A layout is an outer order of blocks and an inner order inside a block:
//   ND  row-major, no blocks             DN  column-major, no blocks
//   NZ  blocks column-first, rows inside  ZN  blocks row-first, columns inside
//   ZZ  blocks row-first, rows inside     NN  blocks column-first, columns inside
// A block (fractal) is 512 B: 16 rows x (32 B / element) columns with rows inside (NZ, ZZ), the
// transpose with columns inside (ZN, NN); an Acc tile of 4-byte elements has 16 x 16 (1024 B).
// Which layouts a memory takes, and its default, are the chip's (ChipProfile::layouts).
//
// The emulator keeps every tile's elements in logical (row-major) order whatever its layout: a
// layout decides what a tile may be moved to, how much of its memory it takes (whole blocks), and
// what the data paths that convert between layouts cost (the timing model), not the values.
#include <cstdint>

namespace pto::ir {

enum class Layout : uint8_t { Default, ND, DN, NZ, ZN, ZZ, NN };
inline constexpr int kLayoutCount = 7;

constexpr const char* layout_name(Layout l) {
  constexpr const char* kNames[kLayoutCount] = {"default", "ND", "DN", "NZ", "ZN", "ZZ", "NN"};
  return kNames[static_cast<int>(l)];
}
/// Blocked into 512 B fractals (NZ, ZN, ZZ, NN).
constexpr bool is_fractal(Layout l) { return l >= Layout::NZ; }
/// Rows are contiguous inside the layout's unit (a block, or the whole tile for ND/DN).
constexpr bool rows_inside(Layout l) { return l == Layout::ND || l == Layout::NZ || l == Layout::ZZ; }
/// The same layout with rows and columns swapped (PyPTO Pro's _FRACTAL_TRANSPOSE: a [K, N] ZN
/// tile holds the bytes of a [N, K] NZ tile).
constexpr Layout transposed(Layout l) {
  switch (l) {
    case Layout::ND: return Layout::DN;
    case Layout::DN: return Layout::ND;
    case Layout::NZ: return Layout::ZN;
    case Layout::ZN: return Layout::NZ;
    case Layout::ZZ: return Layout::NN;
    case Layout::NN: return Layout::ZZ;
    default: return l;
  }
}

/// A layout conversion a data path performs on the way (what the timing model charges).
///   Nd2Nz     GM ND -> L1 NZ on MTE2 (and DN -> ZN, its transpose; UB -> L1 on a5)
///   Nz2Nd     L0C NZ -> GM / UB ND on FIX
///   Transpose L1 -> L0 with each block transposed (rows inside <-> columns inside) on MTE1
enum class Conversion : uint8_t { None, Nd2Nz, Nz2Nd, Transpose };
inline constexpr int kConversionCount = 4;
constexpr const char* conversion_name(Conversion c) {
  constexpr const char* kNames[kConversionCount] = {"none", "nd2nz", "nz2nd", "transpose"};
  return kNames[static_cast<int>(c)];
}

}  // namespace pto::ir
