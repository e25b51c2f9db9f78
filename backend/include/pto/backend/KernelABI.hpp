#pragma once
// The contract between generated kernel code and the emulator that calls it.
// A compiled kernel is `void kernel(CoreContext*)`, run once per core. It reads its arguments
// and the core's local memories through the context and reports a failed runtime check by
// calling `pto_rt_fail`, then returning at once.
#include <cstddef>
#include <cstdint>

namespace pto {

/// The outcome of a failed runtime check inside a kernel.
enum class RuntimeCheck : int32_t {
  ok = 0,
  region_negative,     // a = rows, b = cols
  region_out_of_bounds,// a = offset, b = extent, c = tensor extent; axis in `axis`
  region_over_tile,    // a = extent, b = tile capacity; axis
  region_misaligned,   // a = byte offset, b = alignment
  store_beyond_valid,  // a = extent, b = valid; axis
  operand_smaller,     // a = needed, b = operand valid; axis
  result_over_tile,    // a = extent, b = destination capacity; axis
  range_step,          // a = step
};

struct CoreStatus {
  int32_t failed = 0;
  int32_t instr = -1;
  RuntimeCheck check = RuntimeCheck::ok;
  int32_t axis = 0;   // 0 rows, 1 columns
  int64_t a = 0, b = 0, c = 0;
};

struct CoreContext {
  void* const* tensors;    // GM base pointer of each tensor parameter
  const int64_t* scalars;  // runtime scalar parameters
  uint8_t* arena[6];       // local memory of each ir::MemSpace (GM unused)
  int64_t block_idx;
  int64_t block_num;
  CoreStatus* status;
};

namespace abi {
inline constexpr size_t kTensors = offsetof(CoreContext, tensors);
inline constexpr size_t kScalars = offsetof(CoreContext, scalars);
inline constexpr size_t kArena = offsetof(CoreContext, arena);
inline constexpr size_t kBlockIdx = offsetof(CoreContext, block_idx);
inline constexpr size_t kBlockNum = offsetof(CoreContext, block_num);
}  // namespace abi

using KernelFn = void (*)(CoreContext*);

/// Copies `bytes` from a tile to GM with non-temporal (cache-bypassing) stores, as a DMA engine
/// writes: used for stores into tensors too large to stay in the host's cache.
extern "C" void pto_rt_stream_to_gm(void* dst, const void* src, int64_t bytes);
/// Orders the streaming stores of this host thread before what follows; called by the emulator
/// after each core's kernel returns.
extern "C" void pto_rt_fence();

/// Tensors at least this large are written with pto_rt_stream_to_gm (host tuning, not chip data).
inline constexpr int64_t kStreamingStoreBytes = 8 << 20;

extern "C" void pto_rt_fail(CoreContext* ctx, int32_t instr, int32_t check, int32_t axis, int64_t a, int64_t b, int64_t c);

}  // namespace pto
