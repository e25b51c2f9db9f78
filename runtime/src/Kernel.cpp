#include "pto/runtime/Kernel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "pto/backend/Interpreter.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"
#include "pto/runtime/DiskCache.hpp"
#include "pto/runtime/Package.hpp"
#include "pto/runtime/CompileCache.hpp"
#include "pto/runtime/Emulator.hpp"
#include "pto/runtime/Profiler.hpp"

namespace pto {

JitOptions apply_environment(JitOptions options) {
  if (const char* v = std::getenv("PTO_INTERPRET"); v && std::string(v) == "1") options.interpret = true;
  if (const char* v = std::getenv("PTO_OPT_LEVEL"); v && *v) options.opt_level = std::atoi(v);
  return options;
}

}  // namespace pto

namespace pto::detail {
namespace {

/// The sync instructions' ops and pipes, by instruction id, for the pipeline model.
std::vector<SyncInfo> sync_table(const ir::Kernel& k) {
  struct Collect : ir::Visitor {
    std::vector<SyncInfo>* out;
    void visit_node(const ir::Sync* op) override { (*out)[op->id] = {op->op, op->src, op->dst, op->tile.group}; }
  } c;
  std::vector<SyncInfo> out(k.instrs.size());
  c.out = &out;
  c.visit(k.body);
  return out;
}

std::vector<const ir::Debug*> debug_table(const ir::Kernel& k) {
  struct Collect : ir::Visitor {
    std::vector<const ir::Debug*>* out;
    void visit_node(const ir::Debug* op) override { (*out)[op->id] = op; }
  } c;
  std::vector<const ir::Debug*> out(k.instrs.size(), nullptr);
  c.out = &out;
  c.visit(k.body);
  return out;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
std::atomic<uint64_t> next_uid{1};
}  // namespace

struct KernelBase::State {
  JitOptions options;
  const ChipProfile* chip;
  uint64_t uid;
  SourceLoc defined_at;
};

KernelBase::KernelBase(JitOptions given, std::source_location defined_at) {
  JitOptions options = pto::apply_environment(std::move(given));
  PTO_USER_CHECK(options.opt_level >= 0 && options.opt_level <= 3, (ErrorSite{.kernel = options.name, .loc = SourceLoc::from(defined_at)}))
      << "opt_level must be 0..3, got " << options.opt_level;
  const ChipProfile* chip = &ChipProfile::get(options.chip);
  state_ = std::make_shared<State>(State{std::move(options), chip, next_uid.fetch_add(1), SourceLoc::from(defined_at)});
}

const std::string& KernelBase::name() const { return state_->options.name; }
const ChipProfile& KernelBase::chip() const { return *state_->chip; }
const JitOptions& KernelBase::options() const { return state_->options; }

std::string KernelBase::describe(const LaunchArgs& args) {
  std::string out = args.key.empty() ? "" : fmt::format("key=0x{:x}", args.key.code());
  for (const auto& t : args.tensors) {
    if (!out.empty()) out += ", ";
    out += t.rank == 1 ? fmt::format("arg{}:{}[{}]", t.position, dtype_name(t.dtype), t.shape[1])
                       : fmt::format("arg{}:{}[{}x{}]", t.position, dtype_name(t.dtype), t.shape[0], t.shape[1]);
  }
  return out;
}

std::shared_ptr<const CompiledKernel> KernelBase::specialize(const LaunchArgs& args, const std::function<void()>& trace,
                                                             const std::source_location& call_site) const {
  const State& st = *state_;
  const SpecKey key = make_spec_key({st.uid, st.options.opt_level, st.options.auto_mutex, st.options.timing,
                                     st.options.race_check, &st.chip->name, &args});
  return CompileCache::global().get_or_compile(key, [&]() -> CompileCache::Entry {
    HostSpanScope span("compile", &st.options.name);
    auto ck = std::make_shared<CompiledKernel>();
    ck->chip = st.chip;
    auto t = Clock::now();
    lang::TraceContext ctx(st.options.name, describe(args));
    ctx.set_tiling_key(&args.key);
    for (const auto& a : args.tensors) {
      ctx.kernel().tensors.push_back({fmt::format("arg{}", a.position), a.dtype, a.rank, a.shape});
    }
    trace();
    ck->ir = ctx.finish();
    ck->cold.trace_ms = ms_since(t);
    t = Clock::now();
    backend::lower(ck->ir, *st.chip, {.auto_mutex = st.options.auto_mutex, .mode = st.options.mode});
    ck->syncs = sync_table(ck->ir);
    ck->instrumented = st.options.timing;
    ck->race_check = st.options.race_check;
    ck->fatal_assert = st.options.fatal_assert;
    ck->instruction_budget = st.options.instruction_budget;
    ck->debugs = debug_table(ck->ir);
    ck->has_debug = std::any_of(ck->debugs.begin(), ck->debugs.end(), [](const ir::Debug* d) { return d != nullptr; });
    ck->cold.lower_ms = ms_since(t);
    if (st.options.interpret) {  // the reference interpreter: no LLVM, no caches
      auto program = std::make_shared<const backend::InterpretedKernel>(ck->ir, *st.chip, st.options.timing);
      ck->program = program.get();
      ck->program_owner = std::move(program);
      ck->fn = &pto_interpret;
      count_compile();  // a specialisation was prepared (interpreted, not compiled by LLVM)
      return ck;
    }

    // Packages, then the disk cache: keyed by the lowered IR itself, so a changed kernel body never matches.
    ck->object_key = fmt::format("{}\nopt={} timing={} race_check={} auto_mutex={}\nchip={} ({})\n{}", ir::to_string(ck->ir),
                                 st.options.opt_level, st.options.timing, st.options.race_check, st.options.auto_mutex,
                                 st.chip->name, st.chip->origin, backend::jit_target_description());
    DiskCache& disk = DiskCache::global();
    std::string symbol;
    std::optional<std::string> found = Package::lookup(ck->object_key, &symbol, ErrorSite{.kernel = st.options.name,
                                                                                          .specialization = ck->ir.specialization,
                                                                                          .loc = SourceLoc::from(call_site)});
    if (!found && disk.enabled()) found = disk.load(ck->object_key, &symbol);
    if (found) {
      ck->fn = backend::load_kernel_object({symbol, *found}, &ck->cold.link_ms);
      ck->object_bytes = found->size();
      ck->symbol = symbol;
      ck->object = std::move(*found);
      ck->from_disk = true;
      count_disk_load();
      return ck;
    }
    backend::ObjectCode object;
    backend::CompiledCode code =
        backend::compile_kernel(ck->ir, *st.chip, {.opt_level = st.options.opt_level, .instrument = st.options.timing}, &object);
    ck->fn = code.fn;
    ck->cold.emit_ms = code.timings.emit_ms;
    ck->cold.optimise_ms = code.timings.optimise_ms;
    ck->cold.codegen_ms = code.timings.codegen_ms;
    ck->cold.link_ms = code.timings.link_ms;
    ck->llvm_ir = std::move(code.llvm_ir);
    ck->object_bytes = code.object_bytes;
    count_compile();
    if (disk.enabled()) disk.store(ck->object_key, st.options.name, object.symbol, object.bytes, ck->cold.total_ms());
    ck->symbol = std::move(object.symbol);
    ck->object = std::move(object.bytes);
    return ck;
  });
}

namespace {
/// block_dim limits per kernel mode: AIVs (vector), AICs (cube), AIC + 2 AIV groups (mix).
void check_block_dim(const KernelBase& k, const CompiledKernel& ck, const LaunchConfig& config, const LaunchArgs& args) {
  const ChipProfile& chip = k.chip();
  const ir::KernelMode mode = ck.ir.mode;
  const int limit = mode == ir::KernelMode::Vector ? chip.aiv_count : std::min(chip.aic_count, mode == ir::KernelMode::Mix ? chip.aiv_count / 2 : chip.aic_count);
  const char* what = mode == ir::KernelMode::Vector ? "AIV cores" : (mode == ir::KernelMode::Cube ? "AIC cores" : "blocks of 1 AIC + 2 AIV");
  PTO_USER_CHECK(config.block_dim >= 1 && config.block_dim <= limit,
                 (ErrorSite{.kernel = k.name(), .specialization = KernelBase::describe(args), .loc = SourceLoc::from(config.loc)}))
      << "block_dim " << config.block_dim << " is out of range: a " << ir::kernel_mode_name(mode) << " kernel runs on 1.." << limit
      << " " << what << " of the '" << chip.name << "' chip profile (never clamped)";
}
}  // namespace

void KernelBase::launch(const LaunchConfig& config, LaunchArgs args, const std::function<void()>& trace) const {
  HostSpanScope span("launch", &state_->options.name);
  auto ck = specialize(args, trace, config.loc);
  check_block_dim(*this, *ck, config, args);
  Stream& stream = config.stream ? *config.stream : Stream::default_stream();
  stream.enqueue([ck = std::move(ck), args = std::move(args), block_dim = config.block_dim, s = &stream] {
    s->record(std::make_shared<const LaunchProfile>(emulate_launch(*ck, args, block_dim)));
  });
}

LaunchProfile KernelBase::run_now(const LaunchConfig& config, const LaunchArgs& args, const std::function<void()>& trace) const {
  auto ck = specialize(args, trace, config.loc);
  check_block_dim(*this, *ck, config, args);
  return emulate_launch(*ck, args, config.block_dim);
}

}  // namespace pto::detail
