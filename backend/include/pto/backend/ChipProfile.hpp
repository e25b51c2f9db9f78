#pragma once
// A chip profile: the numbers that describe one AI Core product — core counts per kernel mode,
// memory sizes and alignment per space, bandwidths, throughputs and fixed costs. Profiles are
// data (runtime/chips/*.json, each number with its source); the built-in ones are those files,
// embedded at build time. Nothing else in the code hard-codes these numbers.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "pto/ir/IR.hpp"

namespace pto {

struct MemoryLimits {
  int64_t bytes = 0;
  int64_t align = 32;
};

struct ChipProfile {
  std::string name;
  std::string origin;  // what it was loaded from: a built-in name or a file path (ChipProfile::get takes it back)
  std::string description;
  int aic_count = 0;
  int aiv_count = 0;
  double clock_ghz = 1.0;
  std::array<MemoryLimits, 6> memory{};  // indexed by ir::MemSpace; GM unused
  double gm_to_vec_gibps = 0, gm_to_mat_gibps = 0, vec_to_gm_gibps = 0, acc_to_gm_gibps = 0;
  double mat_to_left_gibps = 0, mat_to_right_gibps = 0;
  double acc_to_vec_gibps = 0, vec_to_mat_gibps = 0;  // 0: the chip has no such path
  /// Peak cube multiply-accumulates per cycle for inputs of `dtype`.
  double cube_macs(DType dtype) const;
  double hbm_gbps = 0;
  double vector_bytes_per_cycle = 0;
  double cube_macs_f16 = 0, cube_macs_bf16 = 0, cube_macs_f32 = 0, cube_macs_i8 = 0;
  double issue_cycles = 0;
  double launch_overhead_us = 0;

  const MemoryLimits& limits(ir::MemSpace s) const { return memory[static_cast<size_t>(s)]; }

  /// Parses a profile; a missing or mistyped field is a UserError naming it.
  static ChipProfile from_json(std::string_view text, const std::string& origin);
  /// A built-in profile by name ("a2", "a5") or a JSON file by path.
  static const ChipProfile& get(const std::string& name_or_path);
  /// The default profile, "a2".
  static const ChipProfile& default_profile();
  static std::vector<std::string> builtin_names();
};

}  // namespace pto
