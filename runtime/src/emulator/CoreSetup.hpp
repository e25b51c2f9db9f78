#pragma once
// Where the cores of a launch sit and the local memories they run in (private to the emulator).
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "pto/backend/ChipProfile.hpp"
#include "pto/ir/Kernel.hpp"
#include "pto/runtime/PipelineModel.hpp"

namespace pto::emulator {

/// The local memories of one emulated core, reused by every core that runs on this host thread
/// in the same block slot (the three cores of a mix block are alive at once).
struct CoreMemory {
  std::array<std::unique_ptr<uint8_t[], void (*)(void*)>, 6> space{
      {{nullptr, std::free}, {nullptr, std::free}, {nullptr, std::free}, {nullptr, std::free}, {nullptr, std::free}, {nullptr, std::free}}};
  std::array<int64_t, 6> bytes{};

  void fit(const ChipProfile& chip) {
    for (size_t s = 1; s < 6; ++s) {
      const int64_t need = chip.memory[s].bytes;
      if (need <= bytes[s]) continue;
      space[s].reset(static_cast<uint8_t*>(std::aligned_alloc(64, static_cast<size_t>((need + 63) / 64 * 64))));
      bytes[s] = need;
    }
  }
};

/// Where the cores of a launch sit: `per_block` cores per block (1, or AIC + 2 AIVs in mix mode).
struct CoreLayout {
  ir::KernelMode mode;
  int per_block;
  explicit CoreLayout(ir::KernelMode m) : mode(m), per_block(m == ir::KernelMode::Mix ? kCoresPerBlock : 1) {}
  ir::CoreKind kind(int slot) const {
    if (mode == ir::KernelMode::Mix) return slot == 0 ? ir::CoreKind::AIC : ir::CoreKind::AIV;
    return mode == ir::KernelMode::Cube ? ir::CoreKind::AIC : ir::CoreKind::AIV;
  }
  /// The core's number among the cores of its kind (AIC b; AIV b, or 2b + subblock in mix mode).
  int number(int block, int slot) const { return mode == ir::KernelMode::Mix && slot > 0 ? 2 * block + slot - 1 : block; }
};

}  // namespace pto::emulator
