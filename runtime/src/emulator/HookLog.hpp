#pragma once
// A core's pipeline-model hooks written down while the core runs and played into its CoreModel
// after (private to the emulator).
//
// A timed core calls its model at every instruction and sync point: on vector_add 16M (8 blocks),
// 32K calls a launch between the tiles' GM streams, each finding the model's state gone from the
// host's cache. Written down, a call is one to seven words appended to one buffer; played back
// after the core's run (on the thread that ran it, the log still in cache), the model's state
// stays in cache. Measured on that launch (2 host threads, perf_pipeline
// BM_TimingCostPaired/replay_cache:0, medians over ~330 launches): the model's calls took 0.47 ms
// of its run; written down, the run takes 0.13 ms more than untimed and the play 0.30 ms (played
// on both threads once every core had run; played by each core's own thread instead, the timed
// launch costs the same).
// The generated code writes an exec record and a packed sync record itself, at the log's cursor
// (CoreContext::hook_cursor), and calls the hooks below only when a record would pass the
// cursor's limit or a sync does not pack: against a hook called for every record, vector_add's
// timed launch ran 1.012-1.039x faster (six runs paired in one process), flash attention's
// 1.008-1.013x.
// The model sees the same calls in the same order, so its trace, counters, race reports and
// errors are the ones calling it live gives (tests/timing/hook_log_test.cpp). Only for blocks whose
// models meet nothing outside the block while it runs (Emulator.cpp: no sync_all, no debug output
// reading the model's op count).
//
// A mix block's three cores write into one log, each record tagged with the writing core's slot
// (SlotWriter), and the block's cross-core flags are records too: the log holds the calls of the
// three models in the order the fibers made them, which is the order the models share the block's
// GM race state in and the cross-core flags pass between them, and play() calls them in that order.
#include <cstdint>
#include <span>
#include <vector>

#include "pto/backend/HookRecord.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/ir/Kernel.hpp"
#include "pto/runtime/PipelineModel.hpp"
#include "StoragePool.hpp"

namespace pto::emulator {

/// Aligned to a cache line: a launch keeps its blocks' logs side by side, and the host threads
/// running neighbouring blocks write their logs' fields at every hook (sharing a line, the field
/// loads of vector_add's and flash attention's hooks missed: 40% of their samples).
class alignas(64) HookLog {
 public:
  /// `tiles_of[instr]`: how many tile slots the exec hook of `instr` is given (ir::tile_accesses);
  /// it must outlive the log. `storage`: words to write over (hook_storage_pool()).
  HookLog(std::span<const uint8_t> tiles_of, std::vector<int64_t>&& storage);
  // Not copied: a copy's cursor would point into the other log's words. A move keeps the words
  // where they are, and so the cursor right.
  HookLog(const HookLog&) = delete;
  HookLog& operator=(const HookLog&) = delete;
  HookLog(HookLog&&) = default;
  HookLog& operator=(HookLog&&) = default;

  /// The CoreContext hooks (KernelABI.hpp) with a HookLog as their model: a block of one core.
  static void exec_hook(void* log, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi);
  static void sync_hook(void* log, int32_t instr, int64_t event, int64_t slot);

  /// A core of a mix block writing into its block's log: the CoreContext's model for the hooks
  /// below, which tag each record with the core's slot.
  struct SlotWriter {
    HookLog* log = nullptr;
    int slot = 0;
  };
  static void slot_exec_hook(void* writer, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi);
  /// What a record of core `slot` carries in its first word (CoreContext::hook_tag).
  static uint64_t slot_tag(int slot) { return static_cast<uint64_t>(slot) << hook_record::kSlotShift; }
  static void slot_sync_hook(void* writer, int32_t instr, int64_t event, int64_t slot);
  /// Core `slot` sets (`set`) or has waited for cross-core flag `event` (0..15) on `pipe`, at
  /// `instr`: CoreModel::cross_set or cross_wait, where the live run would call them.
  void cross(int slot, bool set, ir::Pipe pipe, int64_t event, int32_t instr);

  /// Calls the models as the hooks were called, in their order: `models[slot]` is the model of
  /// the block's core `slot` (one model for a block of one core).
  void play(std::span<CoreModel* const> models) const;

  /// What an instruction's exec hook gives as gm_lo and gm_hi: a region of `tensor`, in rows
  /// `width` elements wide (0: a 1-D range), or, with width -1, no GM region (compared as they are).
  struct GmRegionShape {
    int64_t width = -1;
    int32_t tensor = -1;
  };
  /// Per tensor, the one shift (in elements) by which every GM region of it in this log lies
  /// further on than the same call's in `twin`, when the two logs are otherwise the same calls in
  /// the same order (CoreModel::record_shifted): into `shifts` (one a tensor of the launch; 0 for
  /// a tensor neither log touches). False if they differ elsewhere, or one tensor's regions move
  /// by two shifts, or a region of rows moves by other than whole rows without lying within one row
  /// in both logs (the race checker compares such regions as rectangles). `shape[instr]`: as above.
  bool gm_shifts_from(const HookLog& twin, std::span<const GmRegionShape> shape, std::vector<int64_t>& shifts) const;

  /// Where generated code writes its records itself (CoreContext::hook_cursor): the log's write
  /// position, which the hooks above and cross() move on too. The log must not move while a
  /// core writes through it.
  HookCursor* cursor() { return &cursor_; }

  /// The storage back, for the pool.
  std::vector<int64_t> release() { return std::move(words_); }

 private:
  void append_exec(uint64_t tag, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi);
  void append_sync(uint64_t tag, int32_t instr, int64_t event, int64_t slot);
  /// Where the next record goes: room for the largest (4 + the most tiles an instruction has).
  int64_t* reserve();
  [[gnu::noinline]] void grow();
  /// The cursor's limit for the storage as it is now.
  void set_limit();
  /// Words written.
  size_t used() const { return static_cast<size_t>(cursor_.at - words_.data()); }
  /// The words of the record whose first word is `first`.
  size_t record_words(uint64_t first) const;

  std::span<const uint8_t> tiles_of_;
  size_t max_record_;
  std::vector<int64_t> words_;  // records (pto/backend/HookRecord.hpp)
  HookCursor cursor_;            // into words_
};

/// Per instruction of `k`, how many tile slots its exec hook is given; empty (the hooks are then
/// not written down) when an instruction has more than 255, `k` has no instruction, or more than
/// a record's 30 bits of instruction index hold.
std::vector<uint8_t> hook_tile_counts(const ir::Kernel& k);

/// HookLog storage kept between launches (StoragePool.hpp).
StoragePool<std::vector<int64_t>>& hook_storage_pool();

}  // namespace pto::emulator
