#pragma once
// A chip profile: the architecture of one AI Core product as one table of data — core counts per
// kernel mode, memory sizes and alignment per space, the data paths with their transfer costs,
// the vector unit's cost per operation class, the cube's fractal rate, the shared L2 and HBM, and
// the launch cost. Profiles are data (runtime/chips/*.json, each number with its source or marked
// as an assumption); the built-in ones are those files, embedded at build time. The validator, the
// cost model (runtime/timing) and the advisor read this table; nothing else hard-codes a number.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "pto/ir/InstrClass.hpp"
#include "pto/ir/IR.hpp"
#include "pto/ir/Layout.hpp"

namespace pto {

struct MemoryLimits {
  int64_t bytes = 0;
  int64_t align = 32;
};

/// The data paths a pipe moves data on. GM paths go through the shared L2 and HBM.
enum class PathId : uint8_t { GmToVec, GmToMat, VecToGm, AccToGm, MatToLeft, MatToRight, AccToVec, VecToMat };
inline constexpr int kPathCount = 8;
const char* path_name(PathId p);  // "gm_to_vec", ... (the JSON keys)
/// The GM path of a load into / a store from `space`, and the path of a local move into `dst` from `src`.
PathId load_path(ir::MemSpace dst);
PathId store_path(ir::MemSpace src);
PathId move_path(ir::MemSpace dst, ir::MemSpace src);

/// One transfer of B bytes on a path takes latency + B / peak cycles (the peak * B / (K + B) rate
/// form, with K = latency * peak). A path with peak 0 does not exist on the chip.
struct DataPath {
  double peak_bytes_per_cycle = 0;
  double latency_cycles = 0;
  bool present() const { return peak_bytes_per_cycle > 0; }
  double cycles(double bytes) const { return latency_cycles + bytes / peak_bytes_per_cycle; }
};

/// A vector operation class: head cycles (paid when the V pipe starts from idle) plus a slope per
/// repeat of `vector_repeat_bytes` (per_repeat for 32-bit elements, per_repeat_16bit for 16-bit).
struct VectorOpCost {
  double head = 0, per_repeat = 0, per_repeat_16bit = 0;
};

/// The cube: an (m, k, n) multiply is ceil(m/16) * ceil(k/k0) * ceil(n/16) fractal steps of
/// `cycles` each, plus `head` when the M pipe starts from idle.
struct CubeRate {
  double k0 = 16, cycles = 1;
};

/// The chip's tile layouts (PyPTO Pro's TileType defaults and checks, ir/Layout.hpp): per memory
/// its default and the layouts it takes, and what the data paths' conversions cost. A converting
/// transfer runs at `efficiency` times its path's rate; the extra cycles are the conversion's.
struct LayoutRules {
  std::array<ir::Layout, 6> defaults{};  // by ir::MemSpace (GM unused)
  std::array<uint8_t, 6> allowed{};      // by ir::MemSpace: bit l for ir::Layout l
  /// Layouts a chip rejects in its cube buffers (Left, Right, Acc) with PyPTO Pro's "use the
  /// default" message (a5: ZZ, NN); a bit mask as `allowed`.
  uint8_t rejected_in_cube = 0;
  double nd2nz_efficiency = 1;            // ND -> NZ (DN -> ZN) when the source's rows are a multiple of
  double nd2nz_unaligned_efficiency = 1;  // `nd2nz_aligned_bytes`, and when they are not
  int64_t nd2nz_aligned_bytes = 256;
  double nz2nd_efficiency = 1;            // NZ -> ND out of Acc (FIX)
  double transpose_efficiency = 1;        // an L1 -> L0 load that transposes each block: 1- and 2-byte elements
  double transpose_efficiency_32bit = 1;  // and 4-byte ones

  bool allows(ir::MemSpace s, ir::Layout l) const { return (allowed[static_cast<size_t>(s)] >> static_cast<int>(l)) & 1; }
  ir::Layout default_of(ir::MemSpace s) const { return defaults[static_cast<size_t>(s)]; }
  /// The rate factor of a transfer performing `c` of `dtype` elements; `gm_row_bytes`: the GM
  /// source's row pitch (0: not from GM, counted as aligned).
  double efficiency(ir::Conversion c, DType dtype, int64_t gm_row_bytes) const;
};

struct ChipProfile {
  std::string name;
  std::string origin;  // what it was loaded from: a built-in name or a file path (ChipProfile::get takes it back)
  std::string description;
  int aic_count = 0;
  int aiv_count = 0;
  double clock_ghz = 1.0;
  std::array<MemoryLimits, 6> memory{};  // indexed by ir::MemSpace; GM unused
  std::array<DataPath, kPathCount> paths{};
  std::array<VectorOpCost, ir::kVecOpCount> vector_ops{};
  double vector_repeat_bytes = 256;
  double vector_unaligned_cycles = 0;  // per operation whose bytes are not a whole number of repeats
  double vector_vf_head_cycles = 0;    // a pl::vector_function's start and drain, paid once per function
  double vector_vf_op_cycles = 1;      // an element-wise register operation inside one, per repeat
  CubeRate cube_f16, cube_bf16, cube_f32, cube_i8;
  double cube_head_cycles = 0;
  double issue_cycles = 1;             // the scalar unit: cycles per instruction issued (and per S-pipe instruction)
  // Shared by every core of the chip:
  int64_t l2_bytes = 0, l2_line_bytes = 512;
  int l2_ways = 16;
  double l2_gbps = 0;                  // all cores' reads and writes served by L2 together
  double hbm_gbps = 0;                 // sustained HBM bandwidth the model shares among transfers
  double hbm_peak_gbps = 0;            // the datasheet figure (for reports; the model uses hbm_gbps)
  double launch_overhead_us = 0;       // a launch's fixed device cost
  double block_dispatch_cycles = 0;    // block b starts b * this after the first
  double sync_all_cycles = 0;          // a sync_all, from the last core's arrival to everyone going on
  LayoutRules layouts;

  const MemoryLimits& limits(ir::MemSpace s) const { return memory[static_cast<size_t>(s)]; }
  const DataPath& path(PathId p) const { return paths[static_cast<size_t>(p)]; }
  /// Peak GiB/s of a path (0: absent), for reports and the advisor.
  double path_gibps(PathId p) const { return path(p).peak_bytes_per_cycle * clock_ghz * 1e9 / 1073741824.0; }
  const VectorOpCost& vector_op(ir::VecOp op) const { return vector_ops[static_cast<size_t>(op)]; }
  const CubeRate& cube_rate(DType dtype) const;
  /// Peak cube multiply-accumulates per cycle for inputs of `dtype`.
  double cube_macs(DType dtype) const;
  /// Bytes of 32-bit elements a simple binary op (add) streams per cycle: the vector unit's peak.
  double vector_bytes_per_cycle() const;

  /// Parses a profile; a missing, negative or non-numeric field is a UserError naming it and `origin`.
  static ChipProfile from_json(std::string_view text, const std::string& origin);
  /// A built-in profile by name ("a2", "a5") or a JSON file by path.
  static const ChipProfile& get(const std::string& name_or_path);
  /// The default profile, "a2".
  static const ChipProfile& default_profile();
  static std::vector<std::string> builtin_names();
};

}  // namespace pto
