#include "pto/runtime/Emulator.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <optional>
#include <memory>
#include <mutex>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "pto/runtime/BlockRaces.hpp"
#include "pto/runtime/DebugOutput.hpp"
#include "pto/runtime/PipelineModel.hpp"
#include "pto/runtime/timing/Replay.hpp"
#include "pto/support/DebugFormat.hpp"
#include "pto/runtime/Profiler.hpp"

// oneTBB is not built with ThreadSanitizer, so the hand-offs into and out of its workers are
// invisible to TSan; these annotations state them (no-ops in other builds).
#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define PTO_TSAN_ACQUIRE(p) __tsan_acquire(p)
#define PTO_TSAN_RELEASE(p) __tsan_release(p)
#else
#define PTO_TSAN_ACQUIRE(p) ((void)(p))
#define PTO_TSAN_RELEASE(p) ((void)(p))
#endif

namespace pto {
namespace {

std::atomic<uint64_t> launches{0};
std::atomic<uint64_t> compiles{0};
std::atomic<uint64_t> disk_loads{0};

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

const char* axis_name(int axis) { return axis == 0 ? "rows" : "columns"; }

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

/// The co-scheduling of one mix block: its three cores run as fibers on the calling host thread,
/// in a fixed order (AIC, AIV 0, AIV 1), each until it finishes or waits for a cross-core flag
/// that has not been set. The order depends only on the program, so results and cycles do not
/// depend on host threads. When every unfinished core waits, the block is deadlocked: the waits
/// are reported and the cores stopped.
class MixBlock {
 public:
  MixBlock(const CompiledKernel& k, int block) : k_(k), block_(block) {}

  void run(std::array<CoreContext, kCoresPerBlock>& ctx, std::array<CoreModel*, kCoresPerBlock> models) {
    models_ = models;
    namespace bc = boost::context;
    for (int s = 0; s < kCoresPerBlock; ++s) {
      ctx[s].block = this;
      cores_[s].fiber = bc::fiber(std::allocator_arg, bc::protected_fixedsize_stack(kStackBytes),
                                  [this, s, c = &ctx[s]](bc::fiber&& back) {
                                    cores_[s].back = std::move(back);
                                    k_.fn(c);
                                    cores_[s].done = true;
                                    return std::move(cores_[s].back);
                                  });
    }
    while (true) {
      bool progressed = false, all_done = true;
      for (int s = 0; s < kCoresPerBlock; ++s) {
        Core& c = cores_[s];
        if (c.done) continue;
        all_done = false;
        if (c.wait_event >= 0 && !ready(s, c.wait_event)) continue;
        c.fiber = std::move(c.fiber).resume();
        progressed = true;
      }
      if (all_done) break;
      if (!progressed) stop_deadlocked();
    }
  }

  /// The cross hook: set or wait for flag `event` from core slot `s`.
  int32_t cross(CoreContext* ctx, int32_t instr, ir::SyncOp op, int64_t event) {
    const int s = ctx->core_kind == static_cast<int64_t>(ir::CoreKind::AIC) ? 0 : 1 + static_cast<int>(ctx->subblock_idx);
    const ir::Pipe pipe = k_.ir.instrs[instr].pipe;
    if (event < 0 || event > 15) {
      pto_rt_fail(ctx, instr, static_cast<int32_t>(RuntimeCheck::cross_event_range), 0, event, 15, 0);
      return 1;
    }
    if (op == ir::SyncOp::CrossSet) {
      const CoreModel::CrossFlag f = models_[s] ? models_[s]->cross_set(pipe, instr) : CoreModel::CrossFlag{};
      if (s == 0) {
        for (int v = 0; v < 2; ++v) to_aiv_[v][event].push_back(f);
      } else {
        to_aic_[s - 1][event].push_back(f);
      }
      return 0;
    }
    Core& c = cores_[s];
    while (!ready(s, event)) {
      c.wait_event = static_cast<int>(event);
      c.wait_instr = instr;
      c.back = std::move(c.back).resume();
      if (c.stop) return 1;
    }
    c.wait_event = -1;
    std::array<CoreModel::CrossFlag, 2> got;
    int n = 0;
    if (s == 0) {
      for (int v = 0; v < 2; ++v) got[n++] = take(to_aic_[v][event]);
    } else {
      got[n++] = take(to_aiv_[s - 1][event]);
    }
    if (models_[s]) models_[s]->cross_wait(pipe, std::span(got.data(), n), instr);
    return 0;
  }

  /// The deadlock found in this block, if any: the message and the first waiting core's slot and instruction.
  struct Deadlock {
    std::string message;
    int slot = 0, instr = -1;
  };
  const std::optional<Deadlock>& deadlock() const { return deadlock_; }

 private:
  static constexpr size_t kStackBytes = 256 * 1024;
  struct Core {
    boost::context::fiber fiber, back;
    bool done = false, stop = false;
    int wait_event = -1, wait_instr = -1;
  };

  bool ready(int s, int64_t e) const {
    if (s == 0) return !to_aic_[0][e].empty() && !to_aic_[1][e].empty();
    return !to_aiv_[s - 1][e].empty();
  }
  static CoreModel::CrossFlag take(std::deque<CoreModel::CrossFlag>& q) {
    CoreModel::CrossFlag f = q.front();
    q.pop_front();
    return f;
  }

  void stop_deadlocked() {
    static constexpr const char* kNames[kCoresPerBlock] = {"the AIC", "AIV 0", "AIV 1"};
    std::string waits;
    Deadlock d;
    d.instr = -1;
    for (int s = 0; s < kCoresPerBlock; ++s) {
      const Core& c = cores_[s];
      if (c.done) continue;
      if (d.instr < 0) {
        d.slot = s;
        d.instr = c.wait_instr;
      }
      const auto& info = k_.ir.instrs[c.wait_instr];
      waits += fmt::format("; {} waits on pipe {} for cross-core event {} (#{} {} at {})", kNames[s], ir::pipe_name(info.pipe),
                           c.wait_event, c.wait_instr, info.text, info.loc.str());
    }
    d.message = fmt::format("deadlock: in block {} every unfinished core waits for a cross-core flag that is never set{}", block_, waits);
    deadlock_ = std::move(d);
    for (auto& c : cores_) {
      if (c.done) continue;
      c.stop = true;
      c.wait_event = -1;
    }
  }

  const CompiledKernel& k_;
  int block_;
  std::array<CoreModel*, kCoresPerBlock> models_{};
  std::array<Core, kCoresPerBlock> cores_;
  std::array<std::array<std::deque<CoreModel::CrossFlag>, 16>, 2> to_aiv_, to_aic_;  // [AIV][event]
  std::optional<Deadlock> deadlock_;
};

int32_t cross_hook(CoreContext* ctx, int32_t instr, int32_t op, int64_t event) {
  return static_cast<MixBlock*>(ctx->block)->cross(ctx, instr, static_cast<ir::SyncOp>(op), event);
}

/// The debug output of one launch: messages per core, delivered in simulated-time order at the end.
class DebugLog {
 public:
  DebugLog(const CompiledKernel& k, const CoreLayout& layout, std::vector<CoreStatus>& status)
      : k_(k), layout_(layout), status_(status), per_core_(k.has_debug ? status.size() : 0),
        op_of_(per_core_.size()) {}  // nothing to allocate without debug ops

  int32_t on_debug(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch) {
    const int c = static_cast<int>(ctx->status - status_.data());
    const ir::Debug* d = k_.debugs.at(instr);
    const auto& info = k_.ir.instrs[instr];
    DebugMessage m;
    m.kernel = k_.ir.name;
    m.block = c / layout_.per_block;
    m.core_kind = ir::core_kind_name(layout_.kind(c % layout_.per_block));
    m.core = layout_.number(m.block, c % layout_.per_block);
    m.instr = instr;
    m.loc = info.loc;
    m.kind = info.op;
    const int nargs = static_cast<int>(d->args.size());
    int32_t stop = 0;
    switch (d->op) {
      case ir::DebugOp::Printf: m.text = format_debug(d->format, args, nargs); break;
      case ir::DebugOp::Assert:
        m.text = fmt::format("assertion failed at {}: {}", info.loc.str(), format_debug(d->format, args, nargs));
        if (k_.fatal_assert) stop = fail(ctx, instr, RuntimeCheck::assert_failed);
        break;
      case ir::DebugOp::Trap:
        m.text = fmt::format("trap at {}", info.loc.str());
        stop = fail(ctx, instr, RuntimeCheck::trap);
        break;
      case ir::DebugOp::Dump: m.text = dump(d, data, rows, cols, pitch); break;
    }
    per_core_[c].push_back(std::move(m));
    // The op the message precedes; its simulated time is known after the replay (timed()).
    op_of_[c].push_back(ctx->model ? static_cast<CoreModel*>(ctx->model)->trace().ops.size() : 0);
    return stop;
  }

  /// Turns each message's op index into the simulated time that op started (`op_start(core)`).
  template <class OpStart>
  void timed(OpStart&& op_start) {
    for (size_t c = 0; c < per_core_.size(); ++c) {
      if (per_core_[c].empty()) continue;
      const std::vector<double>& starts = op_start(c);
      const double end = starts.empty() ? 0 : starts.back();
      for (size_t j = 0; j < per_core_[c].size(); ++j) {
        const size_t i = op_of_[c][j];
        per_core_[c][j].time_us = (i < starts.size() ? starts[i] : end) / (k_.chip->clock_ghz * 1e3);
      }
    }
  }

  /// Delivers every message, ordered by simulated time, then core, then program order.
  void deliver() {
    std::vector<std::pair<size_t, size_t>> order;  // (core, index)
    for (size_t c = 0; c < per_core_.size(); ++c) {
      for (size_t i = 0; i < per_core_[c].size(); ++i) order.emplace_back(c, i);
    }
    if (order.empty()) return;
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
      const double ta = per_core_[a.first][a.second].time_us, tb = per_core_[b.first][b.second].time_us;
      return ta != tb ? ta < tb : a < b;
    });
    for (const auto& [c, i] : order) detail::deliver_debug_message(per_core_[c][i]);
  }

 private:
  static int32_t fail(CoreContext* ctx, int32_t instr, RuntimeCheck check) {
    pto_rt_fail(ctx, instr, static_cast<int32_t>(check), 0, 0, 0, 0);
    return 1;
  }

  std::string dump(const ir::Debug* d, const void* data, int64_t rows, int64_t cols, int64_t pitch) const {
    const auto& g = k_.ir.groups[d->tile.group];
    const auto* bytes = static_cast<const uint8_t*>(data);
    const size_t es = dtype_size(g.dtype);
    std::string out = fmt::format("{} ({} {}x{} of {}x{} {})", g.name, ir::mem_space_name(g.space), rows, cols, g.rows, g.cols,
                                  dtype_name(g.dtype));
    for (int64_t r = 0; r < rows; ++r) {
      out += "\n ";
      for (int64_t c = 0; c < cols; ++c) out += " " + element(bytes + (r * pitch + c) * es, g.dtype);
    }
    return out;
  }

  static std::string element(const uint8_t* p, DType t) {
    switch (t) {
      case DType::f32: { float v; std::memcpy(&v, p, 4); return fmt::format("{:g}", v); }
      case DType::f16: { half v; std::memcpy(&v, p, 2); return fmt::format("{:g}", static_cast<float>(v)); }
      case DType::bf16: { bfloat16 v; std::memcpy(&v, p, 2); return fmt::format("{:g}", static_cast<float>(v)); }
      case DType::i32: { int32_t v; std::memcpy(&v, p, 4); return fmt::format("{}", v); }
      case DType::i8: return fmt::format("{}", static_cast<int8_t>(*p));
      default: return "?";
    }
  }

  const CompiledKernel& k_;
  const CoreLayout& layout_;
  std::vector<CoreStatus>& status_;
  std::vector<std::vector<DebugMessage>> per_core_;
  std::vector<std::vector<size_t>> op_of_;  // per message: the index of the op it precedes in its core's trace
};

int32_t debug_hook(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch) {
  return static_cast<DebugLog*>(ctx->launch)->on_debug(ctx, instr, args, data, rows, cols, pitch);
}

std::string tensor_name(const CompiledKernel& k, int instr) {
  const int t = instr >= 0 ? k.ir.instrs[instr].tensor : -1;
  return t >= 0 ? k.ir.tensors[t].name : "?";
}

/// For a valid extent of 0: the likely cause.
std::string unwritten_hint(int64_t valid) {
  return valid != 0 ? "" : " (nothing on this core has written the tile slot; data another core moved in (Acc -> Vec, Vec -> Mat) "
                           "needs pl::set_validshape on the receiving core)";
}

std::string describe_failure(const CompiledKernel& k, const CoreStatus& s) {
  const std::string op = s.instr >= 0 ? k.ir.instrs[s.instr].op : "instruction";
  const char* axis = axis_name(s.axis);
  switch (s.check) {
    case RuntimeCheck::region_negative:
      return fmt::format("{} of a negative extent: {} {}", op, s.a, axis);
    case RuntimeCheck::region_out_of_bounds:
      return fmt::format("{} out of bounds on tensor {}: {} [{}, {}) (offset {}, length {}) outside the tensor's {} {}", op,
                         tensor_name(k, s.instr), axis, s.a, s.a + s.b, s.a, s.b, s.c, axis);
    case RuntimeCheck::region_over_tile:
      return fmt::format("{} of {} {} into a tile of {} {} (over capacity)", op, s.a, axis, s.b, axis);
    case RuntimeCheck::region_misaligned:
      return fmt::format("{} misaligned: the region starts {} B into its row, not a multiple of {} B", op, s.a, s.b);
    case RuntimeCheck::store_beyond_valid:
      return fmt::format("store of {} {} from a tile whose valid extent is {} {}{}", s.a, axis, s.b, axis, unwritten_hint(s.b));
    case RuntimeCheck::operand_smaller:
      return fmt::format("an operand's valid extent ({} {}) is smaller than the instruction's ({} {}){}", s.b, axis, s.a, axis,
                         unwritten_hint(s.b));
    case RuntimeCheck::offset_negative:
      return fmt::format("{} at a negative {} offset {}", op, s.axis == 0 ? "row" : "column", s.a);
    case RuntimeCheck::window_past_valid:
      return fmt::format("{} window at {} {} starts past the source tile's valid extent of {} {}{}", op, s.axis == 0 ? "row" : "column",
                         s.a, s.b, axis, unwritten_hint(s.b));
    case RuntimeCheck::result_over_tile:
      return fmt::format("the result has {} {} but the destination tile holds {}", s.a, axis, s.b);
    case RuntimeCheck::range_step:
      return fmt::format("pl::range needs a nonzero step, got {} at run time", s.a);
    case RuntimeCheck::matmul_k_mismatch:
      return fmt::format("matmul of a Left tile with {} valid columns (K) by a Right tile with {} valid rows: K must match", s.a, s.b);
    case RuntimeCheck::cross_event_range:
      return fmt::format("cross-core event id {} is out of range 0..15", s.a);
    case RuntimeCheck::instruction_budget:
      return fmt::format("instruction budget exceeded: the core ran more than {} instructions (a runaway loop?); raise "
                         "JitOptions::instruction_budget if the kernel really needs more", k.instruction_budget);
    case RuntimeCheck::trap:
      return "trap: the kernel called pl::trap()";
    case RuntimeCheck::assert_failed:
      return "assertion failed (JitOptions::fatal_assert is on); the message was delivered to the debug output";
    case RuntimeCheck::ok:
      break;
  }
  return "runtime check failed";
}

[[noreturn]] void throw_failure(const CompiledKernel& k, const CoreStatus& s, int core, ir::CoreKind kind) {
  ErrorSite site{.kernel = k.ir.name, .specialization = k.ir.specialization, .core = core, .core_kind = ir::core_kind_name(kind)};
  if (s.instr >= 0 && s.instr < static_cast<int>(k.ir.instrs.size())) {
    const auto& info = k.ir.instrs[s.instr];
    site.pipe = ir::pipe_name(info.pipe);
    site.instruction = fmt::format("#{} {}", s.instr, info.text);
    site.loc = info.loc;
  }
  throw UserError(describe_failure(k, s), std::move(site));
}

[[noreturn]] void throw_model_failure(const CompiledKernel& k, const std::string& reason, int instr, int core, ir::CoreKind kind) {
  ErrorSite site{.kernel = k.ir.name, .specialization = k.ir.specialization, .core = core, .core_kind = ir::core_kind_name(kind)};
  if (instr >= 0 && instr < static_cast<int>(k.ir.instrs.size())) {
    const auto& info = k.ir.instrs[instr];
    site.pipe = ir::pipe_name(info.pipe);
    site.instruction = fmt::format("#{} {}", instr, info.text);
    site.loc = info.loc;
  }
  throw UserError(reason, std::move(site));
}

void exec_hook(void* model, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  static_cast<CoreModel*>(model)->exec(instr, amount, slots, gm_lo, gm_hi);
}
void sync_hook(void* model, int32_t instr, int64_t event, int64_t slot) {
  static_cast<CoreModel*>(model)->sync(instr, event, slot);
}

/// Achieved MACs / (the cube's peak for the kernel's matmul dtype x AICs x the kernel's duration).
double mac_utilization(const CompiledKernel& k, const LaunchProfile& p, int block_dim) {
  if (p.macs <= 0 || k.ir.mode == ir::KernelMode::Vector) return 0;
  DType dtype = DType::f32;
  for (const auto& info : k.ir.instrs) {
    if (info.op == "matmul") {
      dtype = info.dtype;
      break;
    }
  }
  const double cycles = (p.device_us - p.launch_overhead_us) * p.clock_ghz * 1e3;
  const double peak = k.chip->cube_macs(dtype) * block_dim * cycles;
  return peak > 0 ? p.macs / peak : 0;
}

/// Trace storage kept between launches: a launch records tens of thousands of ops per core, and
/// fresh vectors would grow, copy and fault in their pages every time.
class TracePool {
 public:
  timing::CoreTrace take() {
    std::lock_guard lock(mu_);
    if (free_.empty()) return {};
    timing::CoreTrace t = std::move(free_.back());
    free_.pop_back();
    return t;
  }
  void give(timing::CoreTrace&& t) {
    std::lock_guard lock(mu_);
    if (free_.size() < kKept) free_.push_back(std::move(t));
  }

 private:
  static constexpr size_t kKept = 3 * 64;  // a launch's worth of cores on the largest profile
  std::mutex mu_;
  std::vector<timing::CoreTrace> free_;
};
TracePool trace_pool;

/// The launch's cores replayed together (timing/Replay.hpp). Blocks start block_dispatch_cycles
/// apart; tensors get virtual GM addresses in parameter order (2 MiB aligned; a tensor passed
/// twice is one memory), so the L2's sets never depend on host addresses.
timing::ReplayResult replay_launch(const CompiledKernel& k, const detail::LaunchArgs& args,
                                   const std::vector<std::optional<CoreModel>>& models, int per_block, bool record) {
  const ChipProfile& chip = *k.chip;
  std::vector<const timing::CoreTrace*> traces(models.size());
  std::vector<double> start(models.size());
  for (size_t c = 0; c < models.size(); ++c) {
    traces[c] = &models[c]->trace();
    start[c] = static_cast<double>(c / static_cast<size_t>(per_block)) * chip.block_dispatch_cycles;
  }
  std::vector<uint64_t> base(k.ir.tensors.size(), 0);
  uint64_t next = 0;
  constexpr uint64_t kAlign = uint64_t{2} << 20;
  for (size_t t = 0; t < k.ir.tensors.size() && t < args.tensors.size(); ++t) {
    size_t same = t;
    for (size_t u = 0; u < t; ++u) {
      if (args.tensors[u].data == args.tensors[t].data) same = u;
    }
    if (same != t) {
      base[t] = base[same];
      continue;
    }
    const auto& shape = args.tensors[t].shape;
    const uint64_t bytes = static_cast<uint64_t>(shape[0] * shape[1]) * dtype_size(args.tensors[t].dtype);
    base[t] = next;
    next += (bytes + kAlign - 1) / kAlign * kAlign;
  }
  return timing::replay(
      {.chip = &chip, .cores = traces, .core_start = start, .tensor_base = base, .gm_footprint = next, .record_spans = record});
}

std::mutex threads_mu;
std::unique_ptr<tbb::global_control> thread_limit;

}  // namespace

LaunchProfile emulate_launch(const CompiledKernel& k, const detail::LaunchArgs& args, int block_dim) {
  const auto wall_start = std::chrono::steady_clock::now();
  const double host_start_us = detail::host_now_us();
  const bool record = k.instrumented && detail::profiling();
  launches.fetch_add(1, std::memory_order_relaxed);
  std::array<void*, 16> small{};
  std::vector<void*> large;
  void** tensors = small.data();
  if (args.tensors.size() > small.size()) {
    large.resize(args.tensors.size());
    tensors = large.data();
  }
  for (size_t i = 0; i < args.tensors.size(); ++i) tensors[i] = args.tensors[i].data;

  const CoreLayout layout(k.ir.mode);
  const int cores = block_dim * layout.per_block;
  std::vector<CoreStatus> status(static_cast<size_t>(cores));
  const ChipProfile& chip = *k.chip;
  const CostModel cost(chip);
  std::vector<std::optional<CoreModel>> models(k.instrumented ? cores : 0);
  std::vector<GmRaceState> gm_state(layout.per_block > 1 && k.instrumented ? block_dim : 0);
  std::vector<std::optional<MixBlock::Deadlock>> deadlocks(layout.per_block > 1 ? block_dim : 0);
  DebugLog debug_log(k, layout, status);
  const int64_t subblocks = layout.per_block > 1 ? 2 : 1;
  // The context and model of core `slot` of block `b`.
  auto prepare = [&](int b, int slot, CoreContext& ctx, CoreMemory& memory) {
    const int c = b * layout.per_block + slot;
    const ir::CoreKind kind = layout.kind(slot);
    const bool mix_aiv = layout.per_block > 1 && slot > 0;
    memory.fit(chip);
    ctx = CoreContext{tensors, args.scalars.data(), {}, b, block_dim,
                      &status[c], nullptr, &exec_hook, &sync_hook, static_cast<int64_t>(kind), mix_aiv ? slot - 1 : 0,
                      subblocks, nullptr, &cross_hook, k.program, &debug_hook, &debug_log, k.instruction_budget};
    for (size_t s = 1; s < 6; ++s) ctx.arena[s] = memory.space[s].get();
    if (k.instrumented) {
      ctx.model = &models[c].emplace(&k, cost, layout.number(b, slot), k.race_check, slot, gm_state.empty() ? nullptr : &gm_state[b],
                                     static_cast<int>(kind), c);
      models[c]->reuse(trace_pool.take());
      models[c]->keep_gm_spans(k.race_check && block_dim > 1);  // for the check between blocks
    }
    return static_cast<CoreModel*>(ctx.model);
  };
  auto run_block = [&](int b) {
    thread_local std::array<CoreMemory, kCoresPerBlock> memory;
    if (layout.per_block == 1) {
      CoreContext ctx;
      prepare(b, 0, ctx, memory[0]);
      k.fn(&ctx);
    } else {
      std::array<CoreContext, kCoresPerBlock> ctx;
      std::array<CoreModel*, kCoresPerBlock> block_models{};
      for (int s = 0; s < kCoresPerBlock; ++s) block_models[s] = prepare(b, s, ctx[s], memory[s]);
      // The cross-core paths: the AIC reaches its AIVs' UB (Acc -> Vec), each AIV its AIC's L1 (Vec -> Mat).
      const auto vec = static_cast<size_t>(ir::MemSpace::Vec), mat = static_cast<size_t>(ir::MemSpace::Mat);
      ctx[0].peer[0] = memory[1].space[vec].get();
      ctx[0].peer[1] = memory[2].space[vec].get();
      ctx[1].peer[0] = ctx[2].peer[0] = memory[0].space[mat].get();
      MixBlock block(k, b);
      block.run(ctx, block_models);
      deadlocks[b] = block.deadlock();
    }
    pto_rt_fence();
  };
  if (block_dim == 1) {
    run_block(0);
  } else {
    // Blocks are handed out in order from a shared counter: the host threads run neighbouring
    // blocks at the same time, and with strided tile assignment their tiles are GM neighbours.
    std::atomic<int> next{0};
    const int workers = std::min(block_dim, tbb::this_task_arena::max_concurrency());
    PTO_TSAN_RELEASE(&next);
    tbb::parallel_for(0, workers, [&](int) {
      PTO_TSAN_ACQUIRE(&next);
      for (int b = next.fetch_add(1); b < block_dim; b = next.fetch_add(1)) run_block(b);
      PTO_TSAN_RELEASE(&next);
    });
    PTO_TSAN_ACQUIRE(&next);
  }
  // A failed launch delivers its debug output (ordered by op index) before the failure is raised:
  // the output leading up to it is the point.
  bool failed = false;
  for (const auto& st : status) failed = failed || st.failed;
  for (const auto& d : deadlocks) failed = failed || d.has_value();
  for (const auto& m : models) failed = failed || (m && m->failure());
  if (failed) debug_log.deliver();
  for (int b = 0; b < block_dim; ++b) {
    for (int slot = 0; slot < layout.per_block; ++slot) {
      const auto& st = status[b * layout.per_block + slot];
      if (st.failed) throw_failure(k, st, layout.number(b, slot), layout.kind(slot));
    }
    if (!deadlocks.empty() && deadlocks[b]) {
      const auto& d = *deadlocks[b];
      throw_model_failure(k, d.message, d.instr, layout.number(b, d.slot), layout.kind(d.slot));
    }
  }
  LaunchProfile prof;
  prof.kernel = k.ir.name;
  prof.specialization = k.ir.specialization;
  prof.chip = chip.origin.empty() ? chip.name : chip.origin;
  prof.block_dim = block_dim;
  prof.timed = k.instrumented;
  prof.clock_ghz = chip.clock_ghz;
  prof.warnings = k.ir.warnings;
  prof.mode = ir::kernel_mode_name(k.ir.mode);
  if (!k.instrumented) debug_log.deliver();
  if (k.instrumented) {
    for (int c = 0; c < cores; ++c) {
      if (const auto& f = models[c]->failure()) {
        throw_model_failure(k, f->first, f->second, layout.number(c / layout.per_block, c % layout.per_block),
                            layout.kind(c % layout.per_block));
      }
    }
    const timing::ReplayResult replayed = replay_launch(k, args, models, layout.per_block, record);
    debug_log.timed([&](size_t c) -> const std::vector<double>& { return replayed.cores[c].op_start; });
    debug_log.deliver();
    prof.launch_overhead_us = chip.launch_overhead_us;
    prof.l2_hit_bytes = replayed.l2_read_hit_bytes;
    prof.hbm_bytes = replayed.hbm_bytes;
    double slowest = 0;
    for (int c = 0; c < cores; ++c) {
      const timing::CoreReplay& r = replayed.cores[c];
      CoreTiming t = models[c]->counters();
      t.end_cycles = r.end_cycles;
      t.pipes = r.pipes;
      const double us = cost.cycles_to_us(t.end_cycles);
      slowest = std::max(slowest, us);
      prof.core_us.push_back(us);
      prof.gm_bytes += t.gm_read_bytes + t.gm_write_bytes;
      prof.flops += t.flops;
      prof.macs += t.macs;
      for (const auto& p : t.pipes) prof.instructions += p.instructions;
      prof.cores.push_back(t);
      for (const auto& race : models[c]->races()) prof.races.push_back(race);
    }
    if (k.race_check && block_dim > 1) {
      std::vector<const CoreModel*> all(static_cast<size_t>(cores));
      for (int c = 0; c < cores; ++c) all[c] = &*models[c];
      auto between = find_block_races(k, all, layout.per_block, [&](int c) {
        const int b = c / layout.per_block, slot = c % layout.per_block;
        return fmt::format("block {}, {} {}", b, ir::core_kind_name(layout.kind(slot)), layout.number(b, slot));
      });
      prof.races.insert(prof.races.end(), between.begin(), between.end());
    }
    prof.device_us = prof.launch_overhead_us + slowest;
    prof.mac_util = mac_utilization(k, prof, block_dim);
    if (record) {
      for (int c = 0; c < cores; ++c) {
        prof.spans.push_back(replayed.cores[c].spans);
        prof.flows.push_back(replayed.cores[c].flows);
      }
      for (const auto& info : k.ir.instrs) {
        prof.instr_names.push_back(info.op);
        prof.instr_texts.push_back(info.text);
        prof.instr_sources.push_back(info.loc.str());
      }
    }
  }
  for (auto& m : models) {
    if (m) trace_pool.give(m->release_trace());
  }
  prof.host_start_us = host_start_us;
  prof.host_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall_start).count();
  detail::notify_launch(prof);
  return prof;
}

double LaunchProfile::pipe_utilization(ir::Pipe pipe) const {
  const double span_cycles = (device_us - launch_overhead_us) * clock_ghz * 1e3;
  if (cores.empty() || span_cycles <= 0) return 0;
  // Averaged over the cores that have the pipe (AICs for M/MTE1/FIX, AIVs for V/MTE3).
  const bool cube_pipe = pipe == ir::Pipe::M || pipe == ir::Pipe::MTE1 || pipe == ir::Pipe::FIX;
  const bool vector_pipe = pipe == ir::Pipe::V || pipe == ir::Pipe::MTE3;
  double sum = 0;
  int n = 0;
  for (const auto& c : cores) {
    const bool aic = c.kind == static_cast<int>(ir::CoreKind::AIC);
    if ((cube_pipe && !aic) || (vector_pipe && aic)) continue;
    sum += c.pipes[static_cast<int>(pipe)].busy;
    ++n;
  }
  return n == 0 ? 0 : sum / n / span_cycles;
}

void set_host_threads(int n) {
  std::lock_guard lock(threads_mu);
  thread_limit.reset();
  if (n > 0) thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, n);
}

RuntimeStats runtime_stats() { return {launches.load(), compiles.load(), disk_loads.load()}; }

namespace detail {
void count_compile() { compiles.fetch_add(1, std::memory_order_relaxed); }
void count_disk_load() { disk_loads.fetch_add(1, std::memory_order_relaxed); }
}  // namespace detail

}  // namespace pto
