#include "pto/runtime/Emulator.hpp"

#include <atomic>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

namespace pto {
namespace {

std::atomic<uint64_t> launches{0};
std::atomic<uint64_t> compiles{0};

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

std::mutex threads_mu;
std::unique_ptr<tbb::global_control> thread_limit;

}  // namespace

void emulate_launch(const CompiledKernel& k, const detail::LaunchArgs& args, int block_dim) {
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
  auto run_core = [&](int b) {
    thread_local CoreMemory memory;
    memory.fit(chip);
    CoreContext ctx{tensors, args.scalars.data(), {}, b, block_dim, &status[b]};
    for (size_t s = 1; s < 6; ++s) ctx.arena[s] = memory.space[s].get();
    k.fn(&ctx);
    pto_rt_fence();
  };
  if (block_dim == 1) {
    run_core(0);
  } else {
    tbb::parallel_for(0, block_dim, run_core);
  }
  for (int b = 0; b < block_dim; ++b) {
    if (status[b].failed) throw_failure(k, status[b], b);
  }
}

void set_host_threads(int n) {
  std::lock_guard lock(threads_mu);
  thread_limit.reset();
  if (n > 0) thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, n);
}

RuntimeStats runtime_stats() { return {launches.load(), compiles.load()}; }

namespace detail {
void count_compile() { compiles.fetch_add(1, std::memory_order_relaxed); }
}  // namespace detail

}  // namespace pto
