// emulate_launch in named steps: the cores of each block run (in parallel over blocks, on TBB),
// failures become UserErrors, and for a timed kernel the launch is replayed on the chip model and
// its profile assembled. The parts live in emulator/: CoreSetup (core layout and memories),
// CoreGroup (cores co-scheduled as fibers: a mix block, or a launch that calls sync_all),
// Interleave (neighbouring vector cores taking turns on one host thread),
// DebugLog, HookLog (timed cores' model calls written down, played after their run), LaunchErrors,
// LaunchReplay.
#include "pto/runtime/Emulator.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "emulator/CoreSetup.hpp"
#include "emulator/DebugLog.hpp"
#include "emulator/HookLog.hpp"
#include "emulator/LaunchErrors.hpp"
#include "emulator/LaunchReplay.hpp"
#include "emulator/ReplayAhead.hpp"
#include "emulator/RaceAudit.hpp"
#include "emulator/RacePolicy.hpp"
#include "emulator/ReplayCache.hpp"
#include "emulator/CoreGroup.hpp"
#include "emulator/Interleave.hpp"
#include "emulator/LaunchCpus.hpp"
#include "emulator/KnownLaunches.hpp"
#include "TbbTsan.hpp"
#include "pto/runtime/BlockRaces.hpp"
#include "pto/runtime/PipelineModel.hpp"
#include "pto/runtime/Profiler.hpp"

namespace pto {
namespace {

using namespace emulator;

std::atomic<uint64_t> launches{0};
std::atomic<uint64_t> compiles{0};
std::atomic<uint64_t> disk_loads{0};
std::atomic<bool> race_audit{false};
std::atomic<bool> core_interleaving{true};
std::atomic<bool> hook_log{true};
std::atomic<uint64_t> hook_logged_launches{0};
std::atomic<bool> play_folding{true};
std::atomic<uint64_t> copied_cores{0};
std::atomic<uint64_t> interleaved_launches{0};
std::atomic<bool> interleave_help{true};
std::atomic<bool> host_pinning{true};
std::atomic<uint64_t> helped_turns{0};
std::atomic<uint64_t> known_launch_hits{0};
std::atomic<uint64_t> tier_ups{0};
std::atomic<double> tier_up_ms{0};
std::mutex threads_mu;
std::unique_ptr<tbb::global_control> thread_limit;

void exec_hook(void* model, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  static_cast<CoreModel*>(model)->exec(instr, amount, slots, gm_lo, gm_hi);
}
void sync_hook(void* model, int32_t instr, int64_t event, int64_t slot) {
  static_cast<CoreModel*>(model)->sync(instr, event, slot);
}
// A known launch's hooks (KnownLaunches.hpp): its profile is the one its traces gave before.
void known_exec_hook(void*, int32_t, int64_t, const int64_t*, int64_t, int64_t) {}
void known_sync_hook(void*, int32_t, int64_t, int64_t) {}

/// Each tensor's columns in this launch, for the pipeline model's GM regions of dynamic width;
/// empty when the kernel has no dynamic dimension.
std::vector<int64_t> dynamic_tensor_cols(const CompiledKernel& k, const detail::LaunchArgs& args) {
  const bool dynamic = std::any_of(k.ir.tensors.begin(), k.ir.tensors.end(), [](const ir::TensorParam& t) { return t.dynamic != 0; });
  std::vector<int64_t> cols;
  if (!dynamic) return cols;
  for (const auto& t : args.tensors) cols.push_back(t.cols());
  return cols;
}

/// Each tensor's first element in its storage (elements), when some tensor is a view into
/// storage it shares or does not start: the race checker compares accesses in the storage's
/// coordinates. Empty when every tensor starts its own storage.
std::vector<int64_t> tensor_storage_offsets(const detail::LaunchArgs& args) {
  std::vector<int64_t> offsets;
  if (std::all_of(args.tensors.begin(), args.tensors.end(), [](const detail::TensorArg& t) { return t.storage_offset() == 0; })) {
    return offsets;  // the usual launch: nothing allocated
  }
  for (const auto& t : args.tensors) offsets.push_back(t.storage_offset());
  return offsets;
}

/// One launch being emulated: its cores' status, pipeline models and debug output.
class Launch {
 public:
  Launch(const CompiledKernel& k, const detail::LaunchArgs& args, int block_dim)
      : k_(k), args_(args), block_dim_(block_dim), layout_(k.ir.mode), cores_(block_dim * layout_.per_block), cost_(*k.chip),
        audit_(k.instrumented && k.race_check && race_audit.load(std::memory_order_relaxed)),
        record_(k.instrumented && detail::profiling()),
        known_key_(k.instrumented && !audit_ && replay_cache().enabled() && k.known_launches->applies(k)
                       ? std::optional(known_launch_key(k, args, block_dim, record_))
                       : std::nullopt),
        known_(known_key_ ? k.known_launches->find(*known_key_) : nullptr),
        models_(recording() ? cores_ : 0),
        hook_tiles_(writes_hooks_down() ? hook_tile_counts(k.ir) : std::vector<uint8_t>{}),
        logs_(hook_tiles_.empty() ? 0 : block_dim), writers_(hook_tiles_.empty() || layout_.per_block == 1 ? 0 : cores_),
        status_(static_cast<size_t>(cores_)),
        memory_of_(recording() && k.race_check ? gm_memory_of(k, args) : std::vector<int>{}),
        tensor_cols_(recording() ? dynamic_tensor_cols(k, args) : std::vector<int64_t>{}),
        tensor_offsets_(recording() && k.race_check ? tensor_storage_offsets(args) : std::vector<int64_t>{}),
        gm_shape_(gm_region_shapes()),
        gm_state_(layout_.per_block > 1 && recording() ? block_dim : 0),
        deadlocks_(meets_across_blocks() ? 1 : layout_.per_block > 1 ? block_dim : 0),
        debug_log_(k, layout_, status_) {
    if (args.tensors.size() > small_.size()) large_.resize(args.tensors.size());
    tensors_ = large_.empty() ? small_.data() : large_.data();
    for (size_t i = 0; i < args.tensors.size(); ++i) tensors_[i] = args.tensors[i].data;
  }

  /// Step 1: every block runs to its end (and the hooks it wrote down are played into its
  /// models on the same thread, where the log is still in cache). Blocks are handed out in order
  /// from a shared counter: the host threads run neighbouring blocks at the same time, and with
  /// strided tile assignment their tiles are GM neighbours. A vector or cube kernel with more blocks
  /// than host threads hands out runs of neighbouring blocks, each run interleaved on its thread
  /// (emulator/Interleave.hpp).
  void run_blocks() {
    if (meets_across_blocks()) return run_together();
    if (!logs_.empty()) hook_logged_launches.fetch_add(1, std::memory_order_relaxed);
    if (block_dim_ == 1) {
      run_block(0);
      std::vector<int64_t> shifts;
      play_hooks(0, 1, shifts);
      return release_twins();
    }
    const int threads = tbb::this_task_arena::max_concurrency();
    const bool interleave = Interleave::worth_it(k_.ir.mode, args_) && core_interleaving.load(std::memory_order_relaxed);
    const int turn = interleave && block_dim_ > threads
                         ? std::min(Interleave::kCoresPerThread, (block_dim_ + threads - 1) / threads)
                         : 1;
    if (turn > 1) interleaved_launches.fetch_add(1, std::memory_order_relaxed);
    std::atomic<int> next{0};
    const int workers = std::min((block_dim_ + turn - 1) / turn, threads);
    const bool helped = turn > 1 && Interleave::worth_helping(k_.ir.mode) && interleave_help.load(std::memory_order_relaxed);
    const bool hold_cpus = helped && workers > 1 && host_pinning.load(std::memory_order_relaxed);
    PTO_TSAN_RELEASE(&next);
    tbb::parallel_for(0, workers, [&](int) {
      PTO_TSAN_ACQUIRE(&next);
      const CpuHold cpu(cpus_, hold_cpus);  // a CPU of its own while it runs helped runs (LaunchCpus.hpp)
      std::vector<int64_t> shifts;  // play_hooks' scratch, reused from block to block
      std::vector<int> mine;  // the blocks this thread ran (for the replay ahead)
      for (int b = next.fetch_add(turn); b < block_dim_; b = next.fetch_add(turn)) {
        const int count = std::min(turn, block_dim_ - b);
        if (turn == 1) {
          run_block(b);
        } else {
          run_interleaved(b, count);
        }
        play_hooks(b, count, shifts);
        if (ahead_wanted_) {
          for (int i = 0; i < count; ++i) mine.push_back(b + i);
        }
      }
      if (helped) helped_turns.fetch_add(in_flight_.help(), std::memory_order_relaxed);
      if (ahead_wanted_) out_of_blocks(mine);
      PTO_TSAN_RELEASE(&next);
    });
    PTO_TSAN_ACQUIRE(&next);
    release_twins();
  }

  /// A host thread that has run the blocks `mine` (in order) and found no more. The last to finish
  /// settles the replay ahead (ReplayAhead.hpp); the first, while others still run their blocks,
  /// replays the launch ahead, their traces predicted from its own (and block 0's, when its blocks
  /// are copies of it).
  void out_of_blocks(std::span<const int> mine) {
    if (mine.empty()) return;
    const int ran = static_cast<int>(mine.size());
    if (played_.fetch_add(ran, std::memory_order_acq_rel) + ran == block_dim_) return settle_ahead();
    if (predicting_.exchange(true, std::memory_order_relaxed)) return;  // another thread predicts (more than two host threads)
    // Block 0 is known too when this thread's blocks are copies of it (read after it was played).
    const int n = layout_.per_block;
    std::vector<const timing::CoreTrace*> known(static_cast<size_t>(cores_), nullptr);
    if (models_[static_cast<size_t>(mine[0] * n)]->trace().copy_of == 0) {
      for (int c = 0; c < n; ++c) known[static_cast<size_t>(c)] = &models_[static_cast<size_t>(c)]->trace();
    }
    for (int b : mine) {
      for (int c = b * n; c < (b + 1) * n; ++c) known[static_cast<size_t>(c)] = &models_[static_cast<size_t>(c)]->trace();
    }
    if (!ahead_.predict(k_, args_, known, n, record_)) return;
    int idle = kAheadIdle;
    if (!ahead_state_.compare_exchange_strong(idle, kAheadRunning, std::memory_order_acq_rel)) return;  // the last blocks are done
    ahead_.replay(ahead_stop_);
  }
  /// The last host thread out of blocks, every block played: nothing ahead, or the launch's traces
  /// compared with the prediction. The same, the check between blocks runs here while the replay
  /// ahead ends on its thread; else the replay ahead is called off.
  void settle_ahead() {
    int state = kAheadIdle;
    if (ahead_state_.compare_exchange_strong(state, kAheadClosed, std::memory_order_acq_rel)) return;
    const LaunchInput& actual = launch_input_.emplace(k_, args_, all_traces(), layout_.per_block, record_);
    ahead_matched_ = ahead_.matches(actual);
    if (!ahead_matched_) return ahead_stop_.store(true, std::memory_order_relaxed);
    if (checks_between_blocks()) between_ = races_between_blocks(), between_checked_ = true;
  }

  /// Step 2: the lowest failing core's failure (a runtime check, a deadlock, then what the
  /// pipeline model found) as a UserError. A failed launch delivers its debug output first: the
  /// output leading up to the failure is the point.
  void raise_failures() {
    bool failed = false;
    for (const auto& st : status_) failed = failed || st.failed;
    for (const auto& d : deadlocks_) failed = failed || d.has_value();
    for (const auto& m : models_) failed = failed || (m && m->failure());
    if (!failed) return;
    debug_log_.deliver();
    for (int b = 0; b < block_dim_; ++b) {
      for (int slot = 0; slot < layout_.per_block; ++slot) {
        const auto& st = status_[b * layout_.per_block + slot];
        if (st.failed) throw_failure(k_, st, layout_.number(b, slot), layout_.kind(slot));
      }
      for (const auto& d : deadlocks_) {
        if (d && d->block == b) throw_model_failure(k_, d->message, d->instr, layout_.number(b, d->slot), layout_.kind(d->slot));
      }
    }
    for (size_t c = 0; c < models_.size(); ++c) {
      if (!models_[c]) continue;
      if (const auto& f = models_[c]->failure()) {
        throw_model_failure(k_, f->first, f->second, layout_.number(c / layout_.per_block, c % layout_.per_block),
                            layout_.kind(c % layout_.per_block));
      }
    }
  }

  /// Step 3: the profile. Untimed kernels get the launch's description only; timed ones are
  /// replayed on the chip model (shared L2 and HBM), then checked for races between blocks.
  LaunchProfile profile() {
    if (known_) {
      known_launch_hits.fetch_add(1, std::memory_order_relaxed);
      debug_log_.deliver();
      return *known_;
    }
    LaunchProfile prof = measured_profile();
    if (known_key_) k_.known_launches->put(*known_key_, std::make_shared<const LaunchProfile>(prof));
    return prof;
  }

  /// Step 4: the cores' trace storage goes back to the pool for the next launch.
  void recycle_traces() {
    for (auto& m : models_) {
      if (m) trace_pool().give(m->release_recording());
    }
  }

 private:
  /// Whether the cores run pipeline models (a timed launch that is not known).
  bool recording() const { return k_.instrumented && !known_; }

  /// Whether the cores' hooks are written down and played into their models after the run
  /// (emulator/HookLog.hpp): models that meet nothing outside their own block while it runs (no
  /// sync_all, no debug output that reads a model's op count).
  bool writes_hooks_down() const {
    return recording() && !meets_across_blocks() && !k_.has_debug && hook_log.load(std::memory_order_relaxed);
  }

  /// The hooks that blocks [first, first + count) wrote down, into their cores' models. A block
  /// whose calls were those of a twin (a block played in full, by any host thread) with each
  /// tensor's GM regions one shift apart records copies of the twin's models instead
  /// (set_play_folding); a block played in full becomes a twin while there is room, its log kept
  /// until release_twins. `shifts` is the caller's scratch (HookLog::gm_shifts_from's answer).
  void play_hooks(int first, int count, std::vector<int64_t>& shifts) {
    if (logs_.empty()) return;
    const bool fold = play_folding.load(std::memory_order_relaxed) && !gm_shape_.empty();
    shifts.resize(fold ? k_.ir.tensors.size() : 0);
    for (int b = first; b < first + count; ++b) {
      HookLog& log = *logs_[static_cast<size_t>(b)];
      bool copied = false;
      // Only an earlier block's: the replay folds a copy into its original's group only then (CoreGroups).
      for (size_t i = 0; fold && i < twins_.size() && !copied; ++i) {
        const int twin = twins_[i].load(std::memory_order_acquire);  // its models played, its log whole
        copied = twin >= 0 && twin < b && log.gm_shifts_from(*logs_[static_cast<size_t>(twin)], gm_shape_, shifts) && copy_block(twin, b, shifts);
      }
      if (copied) {
        copied_cores.fetch_add(static_cast<uint64_t>(layout_.per_block), std::memory_order_relaxed);
      } else {
        std::array<CoreModel*, kCoresPerBlock> models{};
        for (int s = 0; s < layout_.per_block; ++s) models[static_cast<size_t>(s)] = &*models_[static_cast<size_t>(b * layout_.per_block + s)];
        log.play(std::span(models.data(), static_cast<size_t>(layout_.per_block)));
        if (fold && twins_claimed_.load(std::memory_order_relaxed) < static_cast<int>(twins_.size())) {
          const auto place = static_cast<size_t>(twins_claimed_.fetch_add(1, std::memory_order_relaxed));
          if (place < twins_.size()) {
            twins_[place].store(b, std::memory_order_release);
            continue;  // its log is kept
          }
        }
      }
      hook_storage_pool().give(log.release());
    }
  }
  /// Block b's models record copies of block `twin`'s (CoreModel::record_shifted), each tensor's
  /// GM regions `shifts` further on; false, with nothing recorded, if one of them cannot.
  bool copy_block(int twin, int b, std::span<const int64_t> shifts) {
    const int n = layout_.per_block;
    auto model = [&](int block, int s) -> CoreModel& { return *models_[static_cast<size_t>(block * n + s)]; };
    for (int s = 0; s < n; ++s) {
      if (!model(b, s).copyable_from(model(twin, s), n)) return false;
    }
    for (int s = 0; s < n; ++s) model(b, s).record_shifted(model(twin, s), shifts, n);
    return true;
  }
  /// The logs play_hooks kept, back to the pool (every block played).
  void release_twins() {
    for (const auto& twin : twins_) {
      const int b = twin.load(std::memory_order_relaxed);
      if (b >= 0) hook_storage_pool().give(logs_[static_cast<size_t>(b)]->release());
    }
  }

  /// Per instruction, what its exec hook's gm_lo and gm_hi are (HookLog::gm_shifts_from). Empty
  /// when no core's model may be a copy (no hooks written down, the race audit on, or two tensors
  /// sharing a buffer).
  std::vector<HookLog::GmRegionShape> gm_region_shapes() const {
    std::vector<HookLog::GmRegionShape> shape;
    bool shared_buffer = false;  // gm_memory_of: tensor t's memory is t unless an earlier one shares its buffer
    for (size_t t = 0; t < memory_of_.size(); ++t) shared_buffer = shared_buffer || memory_of_[t] != static_cast<int>(t);
    if (hook_tiles_.empty() || audit_ || shared_buffer) return shape;
    for (const auto& info : k_.ir.instrs) shape.push_back({gm_region_width(info, tensor_cols_), info.tensor});
    return shape;
  }

  LaunchProfile measured_profile() {
    LaunchProfile prof;
    const ChipProfile& chip = *k_.chip;
    prof.kernel = k_.ir.name;
    prof.specialization = k_.ir.specialization;
    prof.chip = chip.origin.empty() ? chip.name : chip.origin;
    prof.block_dim = block_dim_;
    prof.timed = k_.instrumented;
    prof.clock_ghz = chip.clock_ghz;
    prof.warnings = k_.ir.warnings;
    prof.mode = ir::kernel_mode_name(k_.ir.mode);
    if (!k_.instrumented) {
      debug_log_.deliver();
      return prof;
    }
    // The replay and the check between blocks read what the cores recorded and nothing else:
    // they run side by side (unless both are done: a replay ahead that matched).
    const LaunchInput& launch = launch_input_ ? *launch_input_ : launch_input_.emplace(k_, args_, all_traces(), layout_.per_block, record_);
    const std::shared_ptr<const timing::ReplayResult> ahead = ahead_matched_ ? ahead_.result() : nullptr;
    std::shared_ptr<const timing::ReplayResult> replay_result;
    std::vector<RaceReport> between = std::move(between_);
    if (checks_between_blocks() && !between_checked_) {
      PTO_TSAN_RELEASE(&between);
      tbb::parallel_for(0, 2, [&](int part) {
        PTO_TSAN_ACQUIRE(&between);
        if (part == 0) {
          replay_result = replay_launch(launch, ahead);
        } else {
          between = races_between_blocks();
        }
        PTO_TSAN_RELEASE(&between);
      });
      PTO_TSAN_ACQUIRE(&between);
    } else {  // one part: no tasks to hand out (waking TBB's workers costs a small launch more than the replay)
      replay_result = replay_launch(launch, ahead);
    }
    const timing::ReplayResult& replayed = *replay_result;
    debug_log_.timed([&](size_t c) -> const std::vector<double>& { return replayed.cores[c].op_start; });
    debug_log_.deliver();
    add_core_timings(prof, replayed);
    prof.races.insert(prof.races.end(), between.begin(), between.end());
    if (audit_) {
      std::vector<const CoreModel*> all(static_cast<size_t>(cores_));
      for (int c = 0; c < cores_; ++c) all[static_cast<size_t>(c)] = &*models_[static_cast<size_t>(c)];
      AuditResult audit = audit_races(k_, all, layout_.per_block);
      prof.audited = audit.audited;
      prof.audit_races = std::move(audit.races);
      if (!audit.audited) prof.warnings.push_back(std::move(audit.skipped));
    }
    prof.mac_util = mac_utilization(k_, prof, block_dim_);
    if (record_) add_recording(prof, replayed);
    return prof;
  }

  /// The context (and, timed, the pipeline model) of core `slot` of block `b` (slots in order).
  /// Returns the model its block's CoreGroup calls at cross-core flags: null unless the core is
  /// timed and calls its model live.
  CoreModel* prepare_core(int b, int slot, CoreContext& ctx, CoreMemory& memory) {
    const int c = b * layout_.per_block + slot;
    const ir::CoreKind kind = layout_.kind(slot);
    const bool mix_aiv = layout_.per_block > 1 && slot > 0;
    memory.fit(*k_.chip);
    ctx = CoreContext{.tensors = tensors_,
                      .scalars = args_.scalars.data(),
                      .arena = {},
                      .block_idx = b,
                      .block_num = block_dim_,
                      .status = &status_[c],
                      .model = nullptr,
                      .exec = &exec_hook,
                      .sync = &sync_hook,
                      .core_kind = static_cast<int64_t>(kind),
                      .subblock_idx = mix_aiv ? slot - 1 : 0,
                      .subblock_num = layout_.per_block > 1 ? 2 : 1,
                      .block = nullptr,
                      .cross = &cross_hook,
                      .program = k_.program,
                      .debug = &debug_hook,
                      .launch = &debug_log_,
                      .budget = k_.instruction_budget,
                      .peer = {}};
    for (size_t s = 1; s < 6; ++s) ctx.arena[s] = memory.space[s].get();
    if (known_) {
      ctx.exec = &known_exec_hook;
      ctx.sync = &known_sync_hook;
    } else if (recording()) {
      ctx.model = &models_[c].emplace(&k_, cost_, layout_.number(b, slot), k_.race_check, slot,
                                      gm_state_.empty() ? nullptr : &gm_state_[b], static_cast<int>(kind), c);
      models_[c]->reuse(trace_pool().take());
      models_[c]->keep_gm_spans(k_.race_check && block_dim_ > 1);  // for the check between blocks
      models_[c]->check_gm_by_memory(memory_of_);
      models_[c]->set_tensor_cols(tensor_cols_);
      models_[c]->set_tensor_offsets(tensor_offsets_);
      models_[c]->keep_accesses(audit_);
      if (!logs_.empty()) {
        auto& log = logs_[static_cast<size_t>(b)];
        if (slot == 0) log.emplace(hook_tiles_, hook_storage_pool().take());
        if (writers_.empty()) {
          ctx.model = &*log;
          ctx.exec = &HookLog::exec_hook;
          ctx.sync = &HookLog::sync_hook;
        } else {  // a mix block: its three cores write into one log
          ctx.model = &(writers_[static_cast<size_t>(c)] = {&*log, slot});
          ctx.exec = &HookLog::slot_exec_hook;
          ctx.sync = &HookLog::slot_sync_hook;
        }
        // The generated code writes most records itself, at the log's cursor, tagged with the core's slot.
        ctx.hook_cursor = log->cursor();
        ctx.hook_tag = HookLog::slot_tag(slot);
      }
    }
    return recording() && logs_.empty() ? &*models_[c] : nullptr;
  }

  /// Whether the kernel calls sync_all: then every core of the launch must be alive at once.
  bool meets_across_blocks() const { return k_.ir.sync_all != ir::SyncAllScope::None; }

  /// Connects a mix block's cores: the AIC reaches its AIVs' UB (Acc -> Vec), each AIV its AIC's L1 (Vec -> Mat).
  static void connect_block(std::span<CoreContext> ctx, std::span<CoreMemory> memory) {
    const auto vec = static_cast<size_t>(ir::MemSpace::Vec), mat = static_cast<size_t>(ir::MemSpace::Mat);
    ctx[0].peer[0] = memory[1].space[vec].get();
    ctx[0].peer[1] = memory[2].space[vec].get();
    ctx[1].peer[0] = ctx[2].peer[0] = memory[0].space[mat].get();
  }

  /// A kernel that calls sync_all: every core of every block runs as a fiber of one CoreGroup on
  /// this host thread (the blocks of a launch meet, so none may run to its end alone).
  void run_together() {
    thread_local std::vector<CoreMemory> memory;
    if (memory.size() < static_cast<size_t>(cores_)) memory.resize(static_cast<size_t>(cores_));
    std::vector<CoreContext> ctx(static_cast<size_t>(cores_));
    std::vector<CoreModel*> models(static_cast<size_t>(cores_));
    int participants = 0;
    for (int b = 0; b < block_dim_; ++b) {
      for (int slot = 0; slot < layout_.per_block; ++slot) {
        const size_t c = static_cast<size_t>(b * layout_.per_block + slot);
        models[c] = prepare_core(b, slot, ctx[c], memory[c]);
        participants += ir::takes_part_in_sync_all(k_.ir.sync_all, k_.ir.mode, layout_.kind(slot)) ? 1 : 0;
      }
      if (layout_.per_block > 1) {
        const size_t first = static_cast<size_t>(b * layout_.per_block);
        connect_block(std::span(ctx).subspan(first, kCoresPerBlock), std::span(memory).subspan(first, kCoresPerBlock));
      }
    }
    CoreGroup group(k_, layout_, 0, block_dim_, participants);
    group.run(ctx, models);
    deadlocks_[0] = group.deadlock();
    pto_rt_fence();
  }

  /// Runs the single-core blocks [first, first + count) of a vector or cube kernel interleaved on this thread.
  void run_interleaved(int first, int count) {
    thread_local std::array<CoreMemory, Interleave::kCoresPerThread> memory;
    std::array<CoreContext, Interleave::kCoresPerThread> ctx;
    for (int i = 0; i < count; ++i) prepare_core(first + i, 0, ctx[static_cast<size_t>(i)], memory[static_cast<size_t>(i)]);
    Interleave run(k_);
    in_flight_.run(run, std::span(ctx.data(), static_cast<size_t>(count)));
    pto_rt_fence();
  }

  /// Runs block `b`: one core, or a mix block's AIC and two AIVs co-scheduled as fibers.
  void run_block(int b) {
    thread_local std::array<CoreMemory, kCoresPerBlock> memory;
    if (layout_.per_block == 1) {
      CoreContext ctx;
      prepare_core(b, 0, ctx, memory[0]);
      k_.fn.load(std::memory_order_acquire)(&ctx);
    } else {
      std::array<CoreContext, kCoresPerBlock> ctx;
      std::array<CoreModel*, kCoresPerBlock> block_models{};
      for (int s = 0; s < kCoresPerBlock; ++s) block_models[s] = prepare_core(b, s, ctx[s], memory[s]);
      connect_block(ctx, memory);
      CoreGroup block(k_, layout_, b, 1, 0);
      block.run(ctx, block_models, logs_.empty() ? nullptr : &*logs_[static_cast<size_t>(b)]);
      deadlocks_[b] = block.deadlock();
    }
    pto_rt_fence();
  }

  void add_core_timings(LaunchProfile& prof, const timing::ReplayResult& replayed) const {
    prof.launch_overhead_us = k_.chip->launch_overhead_us;
    prof.l2_hit_bytes = replayed.l2_read_hit_bytes;
    prof.hbm_bytes = replayed.hbm_bytes;
    double slowest = 0;
    for (int c = 0; c < cores_; ++c) {
      const timing::CoreReplay& r = replayed.cores[c];
      CoreTiming t = models_[c]->counters();
      t.end_cycles = r.end_cycles;
      t.pipes = r.pipes;
      const double us = cost_.cycles_to_us(t.end_cycles);
      slowest = std::max(slowest, us);
      prof.core_us.push_back(us);
      prof.gm_bytes += t.gm_read_bytes + t.gm_write_bytes;
      prof.flops += t.flops;
      prof.macs += t.macs;
      for (const auto& p : t.pipes) prof.instructions += p.instructions;
      prof.cores.push_back(t);
      for (const auto& race : models_[c]->races()) prof.races.push_back(race);
    }
    prof.device_us = prof.launch_overhead_us + slowest;
  }

  bool checks_between_blocks() const { return k_.race_check && block_dim_ > 1; }

  /// Every core's trace, in core order.
  std::vector<const timing::CoreTrace*> all_traces() const {
    std::vector<const timing::CoreTrace*> traces(models_.size());
    for (size_t c = 0; c < models_.size(); ++c) traces[c] = &models_[c]->trace();
    return traces;
  }

  std::vector<RaceReport> races_between_blocks() const {
    std::vector<const CoreModel*> all(static_cast<size_t>(cores_));
    for (int c = 0; c < cores_; ++c) all[c] = &*models_[c];
    return find_block_races(
        k_, all, layout_.per_block,
        [&](int c) {
          const int b = c / layout_.per_block, slot = c % layout_.per_block;
          return fmt::format("block {}, {} {}", b, ir::core_kind_name(layout_.kind(slot)), layout_.number(b, slot));
        },
        memory_of_);
  }

  void add_recording(LaunchProfile& prof, const timing::ReplayResult& replayed) const {
    for (int c = 0; c < cores_; ++c) {
      prof.spans.push_back(replayed.cores[c].spans);
      prof.flows.push_back(replayed.cores[c].flows);
    }
    for (const auto& info : k_.ir.instrs) {
      prof.instr_names.push_back(info.op);
      prof.instr_texts.push_back(info.text);
      prof.instr_sources.push_back(info.loc.str());
    }
  }

  const CompiledKernel& k_;
  const detail::LaunchArgs& args_;
  const int block_dim_;
  const CoreLayout layout_;
  const int cores_;
  const CostModel cost_;
  const bool audit_;
  const bool record_;  // the profile keeps spans and flows
  const std::optional<KnownLaunches::Key> known_key_;  // set when the kernel's traces follow from its arguments
  const std::shared_ptr<const LaunchProfile> known_;   // the profile of the same launch before: no model runs
  std::vector<std::optional<CoreModel>> models_;
  std::vector<uint8_t> hook_tiles_;           // per instruction, its exec hook's tile slots (when hooks are written down)
  std::vector<std::optional<HookLog>> logs_;  // per block, its hooks written down (or empty: the models are called live)
  std::vector<HookLog::SlotWriter> writers_;  // per core of a mix kernel whose hooks are written down
  std::array<void*, 16> small_{};
  std::vector<void*> large_;
  void** tensors_ = nullptr;
  std::vector<CoreStatus> status_;
  std::vector<int> memory_of_;  // per tensor, its memory (a buffer passed twice is one), for the race checker
  std::vector<int64_t> tensor_cols_;  // per tensor, the launch's columns, when a tensor has a dynamic dimension
  std::vector<int64_t> tensor_offsets_;  // per tensor, its first element in its storage, when a view does not start it
  std::vector<HookLog::GmRegionShape> gm_shape_;  // gm_region_shapes()
  std::vector<GmRaceState> gm_state_;
  std::vector<std::optional<CoreGroup::Deadlock>> deadlocks_;  // per block of a mix kernel, or one for a launch that meets
  DebugLog debug_log_;
  emulator::RunsInFlight in_flight_;  // interleaved runs, for threads out of blocks to help
  emulator::LaunchCpus cpus_;         // the CPUs its host threads hold while they run helped runs
  // play_hooks' twins: the blocks played in full that later blocks' models may be copies of (the
  // first of each kind of block: a matmul's blocks with three C tiles and those with two), shared
  // by the host threads. A place is claimed once its block is played and holds -1 until then.
  std::array<std::atomic<int>, 4> twins_{-1, -1, -1, -1};
  std::atomic<int> twins_claimed_{0};
  // The replay ahead (ReplayAhead.hpp): for a timed kernel whose copies play folding records,
  // modelled afresh.
  const bool ahead_wanted_ = k_.instrumented && !known_ && !gm_shape_.empty() && block_dim_ > 2 &&
                             play_folding.load(std::memory_order_relaxed) && replay_ahead_enabled();
  static constexpr int kAheadIdle = 0, kAheadRunning = 1, kAheadClosed = 2;
  std::atomic<int> played_{0};                // blocks played, as host threads run out of blocks
  std::atomic<int> ahead_state_{kAheadIdle};  // idle, then running (a thread replays ahead) or closed (every block played first)
  std::atomic<bool> ahead_stop_{false};       // the prediction was wrong: the replay ahead stops
  std::atomic<bool> predicting_{false};       // a thread has taken the prediction
  ReplayAhead ahead_;
  bool ahead_matched_ = false;                // set by the last thread out of blocks
  bool between_checked_ = false;              // between_ holds the check between blocks (done by that thread)
  std::optional<LaunchInput> launch_input_;   // the launch's replay input, once built (by that thread, or measured_profile)
  std::vector<RaceReport> between_;
};

}  // namespace

LaunchProfile emulate_launch(const CompiledKernel& k, const detail::LaunchArgs& args, int block_dim) {
  const auto wall_start = std::chrono::steady_clock::now();
  const double host_start_us = detail::host_now_us();
  launches.fetch_add(1, std::memory_order_relaxed);
  Launch launch(k, args, block_dim);
  launch.run_blocks();
  launch.raise_failures();
  LaunchProfile prof = launch.profile();
  launch.recycle_traces();
  prof.host_start_us = host_start_us;
  prof.host_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall_start).count();
  detail::notify_launch(prof);
  apply_race_policy(k, prof);
  return prof;
}

void set_host_threads(int n) {
  std::lock_guard lock(threads_mu);
  thread_limit.reset();
  if (n > 0) thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, n);
}

void set_race_audit(bool on) { race_audit.store(on, std::memory_order_relaxed); }

void set_replay_cache(bool on) { replay_cache().set_enabled(on); }

void set_core_interleaving(bool on) { core_interleaving.store(on, std::memory_order_relaxed); }
void set_interleave_help(bool on) { interleave_help.store(on, std::memory_order_relaxed); }
void set_host_pinning(bool on) { host_pinning.store(on, std::memory_order_relaxed); }
int64_t host_cache_bytes() { return emulator::Interleave::host_cache_bytes(); }

void set_hook_log(bool on) { hook_log.store(on, std::memory_order_relaxed); }

void set_replay_folding(bool on) { emulator::set_replay_folding(on); }
void set_replay_ahead(bool on) { emulator::set_replay_ahead(on); }

void set_play_folding(bool on) { play_folding.store(on, std::memory_order_relaxed); }

RuntimeStats runtime_stats() {
  return {launches.load(), compiles.load(), disk_loads.load(), replay_cache().hits(), interleaved_launches.load(), tier_ups.load(),
          tier_up_ms.load(), known_launch_hits.load(), hook_logged_launches.load(), emulator::folded_replays(),
          copied_cores.load(), emulator::replays_ahead_used(), helped_turns.load(),
          emulator::LaunchCpus::moved()};
}

namespace detail {
void count_compile() { compiles.fetch_add(1, std::memory_order_relaxed); }
void count_disk_load() { disk_loads.fetch_add(1, std::memory_order_relaxed); }
void count_tier_up(double ms) {
  tier_ups.fetch_add(1, std::memory_order_relaxed);
  tier_up_ms.fetch_add(ms, std::memory_order_relaxed);
}
}  // namespace detail

}  // namespace pto
