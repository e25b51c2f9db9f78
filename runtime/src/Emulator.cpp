#include "pto/runtime/Emulator.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "pto/runtime/PipelineModel.hpp"
#include "pto/runtime/Profiler.hpp"

namespace pto {
namespace {

std::atomic<uint64_t> launches{0};
std::atomic<uint64_t> compiles{0};
std::atomic<uint64_t> disk_loads{0};

/// The local memories of one emulated core, reused by every core that runs on this host thread.
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

std::string describe_failure(const CompiledKernel& k, const CoreStatus& s) {
  const std::string op = s.instr >= 0 ? k.ir.instrs[s.instr].op : "instruction";
  const char* axis = axis_name(s.axis);
  switch (s.check) {
    case RuntimeCheck::region_negative:
      return fmt::format("{} of a negative extent: {} {}", op, s.a, axis);
    case RuntimeCheck::region_out_of_bounds:
      return fmt::format("{} out of bounds: {} [{}, {}) outside the tensor's {} {}", op, axis, s.a, s.a + s.b, s.c, axis);
    case RuntimeCheck::region_over_tile:
      return fmt::format("{} of {} {} into a tile of {} {} (over capacity)", op, s.a, axis, s.b, axis);
    case RuntimeCheck::region_misaligned:
      return fmt::format("{} misaligned: the region starts {} B into its row, not a multiple of {} B", op, s.a, s.b);
    case RuntimeCheck::store_beyond_valid:
      return fmt::format("store of {} {} from a tile whose valid extent is {} {}", s.a, axis, s.b, axis);
    case RuntimeCheck::operand_smaller:
      return fmt::format("an operand's valid extent ({} {}) is smaller than the instruction's ({} {})", s.b, axis, s.a, axis);
    case RuntimeCheck::result_over_tile:
      return fmt::format("the result has {} {} but the destination tile holds {}", s.a, axis, s.b);
    case RuntimeCheck::range_step:
      return fmt::format("pl::range needs a positive step, got {} at run time", s.a);
    case RuntimeCheck::ok:
      break;
  }
  return "runtime check failed";
}

[[noreturn]] void throw_failure(const CompiledKernel& k, const CoreStatus& s, int core) {
  ErrorSite site{.kernel = k.ir.name, .specialization = k.ir.specialization, .core = core, .core_kind = "AIV"};
  if (s.instr >= 0 && s.instr < static_cast<int>(k.ir.instrs.size())) {
    const auto& info = k.ir.instrs[s.instr];
    site.pipe = ir::pipe_name(info.pipe);
    site.instruction = fmt::format("#{} {}", s.instr, info.text);
    site.loc = info.loc;
  }
  throw UserError(describe_failure(k, s), std::move(site));
}

[[noreturn]] void throw_model_failure(const CompiledKernel& k, const std::string& reason, int instr, int core) {
  ErrorSite site{.kernel = k.ir.name, .specialization = k.ir.specialization, .core = core, .core_kind = "AIV"};
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

  std::vector<CoreStatus> status(static_cast<size_t>(block_dim));
  const ChipProfile& chip = *k.chip;
  std::array<bool, kPipeCount> moves_gm{};
  for (const auto& info : k.ir.instrs) {
    if (info.tensor >= 0) moves_gm[static_cast<int>(info.pipe)] = true;
  }
  const int gm_pipes = static_cast<int>(std::count(moves_gm.begin(), moves_gm.end(), true));
  const CostModel cost(chip, block_dim, gm_pipes);
  std::vector<std::optional<CoreModel>> models(k.instrumented ? block_dim : 0);
  auto run_core = [&](int b) {
    thread_local CoreMemory memory;
    memory.fit(chip);
    CoreContext ctx{tensors, args.scalars.data(), {}, b, block_dim, &status[b], nullptr, &exec_hook, &sync_hook};
    for (size_t s = 1; s < 6; ++s) ctx.arena[s] = memory.space[s].get();
    if (k.instrumented) {
      ctx.model = &models[b].emplace(&k, cost, b, k.race_check);
      models[b]->record_spans(record);
    }
    k.fn(&ctx);
    pto_rt_fence();
  };
  if (block_dim == 1) {
    run_core(0);
  } else {
    // Cores are handed out in order from a shared counter: the host threads run neighbouring
    // cores at the same time, and with strided tile assignment their tiles are GM neighbours.
    std::atomic<int> next{0};
    const int workers = std::min(block_dim, tbb::this_task_arena::max_concurrency());
    tbb::parallel_for(0, workers, [&](int) {
      for (int b = next.fetch_add(1); b < block_dim; b = next.fetch_add(1)) run_core(b);
    });
  }
  for (int b = 0; b < block_dim; ++b) {
    if (status[b].failed) throw_failure(k, status[b], b);
  }
  LaunchProfile prof;
  prof.kernel = k.ir.name;
  prof.specialization = k.ir.specialization;
  prof.chip = chip.origin.empty() ? chip.name : chip.origin;
  prof.block_dim = block_dim;
  prof.timed = k.instrumented;
  prof.clock_ghz = chip.clock_ghz;
  prof.warnings = k.ir.warnings;
  if (k.instrumented) {
    for (int b = 0; b < block_dim; ++b) {
      if (const auto& f = models[b]->failure()) throw_model_failure(k, f->first, f->second, b);
    }
    prof.launch_overhead_us = chip.launch_overhead_us;
    double slowest = 0;
    for (int b = 0; b < block_dim; ++b) {
      CoreTiming t = models[b]->timing();
      const double us = cost.cycles_to_us(t.end_cycles);
      slowest = std::max(slowest, us);
      prof.core_us.push_back(us);
      prof.gm_bytes += t.gm_read_bytes + t.gm_write_bytes;
      prof.flops += t.flops;
      for (const auto& p : t.pipes) prof.instructions += p.instructions;
      prof.cores.push_back(t);
      for (const auto& r : models[b]->races()) prof.races.push_back(r);
    }
    prof.device_us = prof.launch_overhead_us + slowest;
    if (record) {
      for (int b = 0; b < block_dim; ++b) {
        prof.spans.push_back(models[b]->spans());
        prof.flows.push_back(models[b]->flows());
      }
      for (const auto& info : k.ir.instrs) {
        prof.instr_names.push_back(info.op);
        prof.instr_texts.push_back(info.text);
        prof.instr_sources.push_back(info.loc.str());
      }
    }
  }
  prof.gm_pipes = gm_pipes;
  prof.host_start_us = host_start_us;
  prof.host_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall_start).count();
  detail::notify_launch(prof);
  return prof;
}

double LaunchProfile::pipe_utilization(ir::Pipe pipe) const {
  const double span_cycles = (device_us - launch_overhead_us) * clock_ghz * 1e3;
  if (cores.empty() || span_cycles <= 0) return 0;
  double sum = 0;
  for (const auto& c : cores) sum += c.pipes[static_cast<int>(pipe)].busy;
  return sum / static_cast<double>(cores.size()) / span_cycles;
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
