#include "pto/runtime/Pipeline.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "pto/backend/Interpreter.hpp"
#include "pto/backend/Passes.hpp"
#include "pto/backend/SyncRemoval.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"
#include "pto/runtime/DiskCache.hpp"
#include "pto/runtime/Emulator.hpp"
#include "pto/runtime/Package.hpp"
#include "pto/runtime/TierUp.hpp"
#include "pto/support/Stopwatch.hpp"

namespace pto {
namespace {

/// The sync instructions' ops and pipes, by instruction id, for the pipeline model.
std::vector<SyncInfo> sync_table(const ir::Kernel& k) {
  struct Collect : ir::Visitor {
    const ir::Kernel* k;
    std::vector<SyncInfo>* out;
    void visit_node(const ir::Sync* op) override {
      const auto& info = k->instrs[static_cast<size_t>(op->id)];
      (*out)[op->id] = {op->op, op->src, op->dst, op->tile.group, info.pipe, info.automatic};
    }
  } c;
  c.k = &k;
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

using Clock = SteadyClock;

/// The key of the kernel's object in packages and the disk cache: the lowered IR itself, the
/// options that change code, the chip and the JIT target, so a changed kernel never matches.
std::string object_key(const CompiledKernel& ck, const ChipProfile& chip, const JitOptions& o) {
  return fmt::format("{}\nopt={} timing={} race_check={} auto_mutex={} elide_copies={} fuse_rows={}\nchip={} ({})\n{}", ir::to_string(ck.ir),
                     o.opt_level, o.timing, o.race_check, o.auto_mutex, o.elide_copies, o.fuse_rows, chip.name, chip.origin,
                     backend::jit_target_description());
}

/// The disk cache key of the quick tier's object: the optimised one's, marked.
std::string quick_key(const std::string& full_key) { return full_key + "\ntier=quick"; }

/// Machine code from a package or the disk cache, loaded without LLVM; false when neither has it.
/// A tiered kernel takes the optimised object when there is one, else the quick tier's (disk only).
bool load_cached(CompiledKernel& ck, const JitOptions& o, const SourceLoc& call_site, bool tiered) {
  const auto t = Clock::now();
  DiskCache& disk = DiskCache::global();
  std::string symbol;
  std::optional<std::string> found =
      Package::lookup(ck.object_key, &symbol, ErrorSite{.kernel = o.name, .specialization = ck.ir.specialization, .loc = call_site});
  if (!found && disk.enabled()) found = disk.load(ck.object_key, &symbol);
  if (!found && disk.enabled() && tiered) {
    found = disk.load(quick_key(ck.object_key), &symbol);
    ck.quick = found.has_value();
  }
  if (!found) return false;
  ck.cold.cache_load_ms = ms_since(t);
  ck.fn.store(backend::load_kernel_object({symbol, *found}, &ck.cold.link_ms), std::memory_order_release);
  ck.object_bytes = found->size();
  ck.symbol = symbol;
  ck.object = std::move(*found);
  ck.from_disk = true;
  detail::count_disk_load();
  return true;
}

/// Machine code from LLVM (the compiler module, loaded on the first miss of the process), stored
/// in the disk cache for the next process: the quick tier's (tiered) or the optimised one.
void compile_with_llvm(CompiledKernel& ck, const ChipProfile& chip, const JitOptions& o, bool quick) {
  ck.cold.engine_init_ms = backend::take_engine_init_ms();  // the compiler module and LLVM, once per process
  backend::ObjectCode object;
  backend::CompiledCode code = detail::compile_for_cache(ck.ir, chip, o, quick, quick ? quick_key(ck.object_key) : ck.object_key, object);
  ck.fn.store(code.fn, std::memory_order_release);
  ck.quick = quick;
  ck.cold.emit_ms = code.timings.emit_ms;
  ck.cold.optimise_ms = code.timings.optimise_ms;
  ck.cold.codegen_ms = code.timings.codegen_ms;
  ck.cold.link_ms = code.timings.link_ms;
  ck.llvm_ir = std::move(code.llvm_ir);
  ck.object_bytes = code.object_bytes;
  detail::count_compile();
  ck.symbol = std::move(object.symbol);
  ck.object = std::move(object.bytes);
}

}  // namespace

ir::Kernel trace_kernel(const TraceSignature& signature, const std::function<void()>& body) {
  lang::TraceContext ctx(signature.name, signature.specialization);
  ctx.set_tiling_key(signature.key);
  ctx.kernel().tensors = signature.tensors;
  body();
  return ctx.finish();
}

std::shared_ptr<CompiledKernel> prepare_kernel(ir::Kernel traced, const ChipProfile& chip, const JitOptions& options,
                                               const SourceLoc& call_site) {
  auto ck = std::make_shared<CompiledKernel>();
  ck->chip = &chip;
  ck->ir = std::move(traced);
  const auto t = Clock::now();
  backend::lower(ck->ir, chip, {.auto_mutex = options.auto_mutex, .mode = options.mode});
  if (options.remove_sync >= 0) backend::remove_sync(ck->ir, options.remove_sync);
  if (options.auto_mutex) ck->mutex_ordered = backend::mutex_ordered_groups(ck->ir);
  ck->syncs = sync_table(ck->ir);
  ck->instrumented = options.timing;
  ck->race_check = options.race_check;
  ck->on_race = options.on_race;
  ck->fatal_assert = options.fatal_assert;
  ck->instruction_budget = options.instruction_budget;
  ck->debugs = debug_table(ck->ir);
  ck->has_debug = std::any_of(ck->debugs.begin(), ck->debugs.end(), [](const ir::Debug* d) { return d != nullptr; });
  ck->cold.lower_ms = ms_since(t);
  if (options.interpret) {  // the reference interpreter: no LLVM, no caches
    auto program = std::make_shared<const backend::InterpretedKernel>(ck->ir, chip, options.timing);
    ck->program = program.get();
    ck->program_owner = std::move(program);
    ck->fn.store(&pto_interpret, std::memory_order_release);
    detail::count_compile();  // a specialisation was prepared (interpreted, not compiled by LLVM)
    return ck;
  }
  ck->object_key = object_key(*ck, chip, options);
  const bool tiered = options.tiered && options.opt_level >= 2;
  if (!load_cached(*ck, options, call_site, tiered)) compile_with_llvm(*ck, chip, options, tiered);
  if (ck->quick) {
    ck->tier_up = std::make_shared<TierUp>();
    ck->tier_up->options = options;
  }
  return ck;
}

namespace detail {

backend::CompiledCode compile_for_cache(const ir::Kernel& k, const ChipProfile& chip, const JitOptions& o, bool quick, const std::string& key,
                                        backend::ObjectCode& object) {
  const auto t = Clock::now();
  backend::CompiledCode code = backend::compile_kernel(
      k, chip, {.opt_level = o.opt_level, .quick = quick, .instrument = o.timing, .elide_copies = o.elide_copies, .fuse_rows = o.fuse_rows}, &object);
  if (DiskCache& disk = DiskCache::global(); disk.enabled()) disk.store(key, o.name, object.symbol, object.bytes, ms_since(t));
  return code;
}

}  // namespace detail

}  // namespace pto
