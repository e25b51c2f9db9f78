#include "CoreGroup.hpp"

#include <fmt/format.h>

namespace pto::emulator {

CoreGroup::CoreGroup(const CompiledKernel& k, CoreLayout layout, int first_block, int blocks, int participants)
    : k_(k), layout_(layout), first_block_(first_block), participants_(participants),
      cores_(static_cast<size_t>(blocks * layout.per_block)), flags_(layout.per_block > 1 ? blocks : 0) {}

void CoreGroup::run(std::span<CoreContext> ctx, std::span<CoreModel* const> models, HookLog* log) {
  models_ = models;
  log_ = log;
  for (size_t i = 0; i < cores_.size(); ++i) {
    ctx[i].block = this;
    cores_[i].start(k_, &ctx[i]);
  }
  while (true) {
    bool progressed = false, all_done = true;
    for (size_t i = 0; i < cores_.size(); ++i) {
      Core& c = cores_[i];
      if (c.done()) continue;
      all_done = false;
      if (!ready(static_cast<int>(i))) continue;
      c.resume();
      progressed = true;
    }
    if (all_done) break;
    if (!progressed) stop_deadlocked();
  }
}

int CoreGroup::index(const CoreContext* ctx) const {
  const int slot = layout_.per_block == 1 || ctx->core_kind == static_cast<int64_t>(ir::CoreKind::AIC) ? 0 : 1 + static_cast<int>(ctx->subblock_idx);
  return (static_cast<int>(ctx->block_idx) - first_block_) * layout_.per_block + slot;
}

bool CoreGroup::ready(int i) const {
  const Core& c = cores_[static_cast<size_t>(i)];
  switch (c.wait) {
    case Wait::None: return true;
    case Wait::SyncAll: return c.generation != generation_;
    case Wait::Flag: break;
  }
  return flags_[static_cast<size_t>(i / layout_.per_block)].ready(i % layout_.per_block, c.wait_event);
}

bool CoreGroup::suspend(int i) {
  Core& c = cores_[static_cast<size_t>(i)];
  while (!ready(i)) {
    c.yield();
    if (c.stop) return false;
  }
  c.wait = Wait::None;
  return true;
}

int32_t CoreGroup::cross(CoreContext* ctx, int32_t instr, ir::SyncOp op, int64_t event) {
  const int i = index(ctx);
  if (op == ir::SyncOp::SyncAll) return meet(i, instr);
  if (event < 0 || event > 15) {
    pto_rt_fail(ctx, instr, static_cast<int32_t>(RuntimeCheck::cross_event_range), 0, event, 15, 0);
    return 1;
  }
  return flag(i, op, k_.ir.instrs[instr].pipe, event, instr);
}

int32_t CoreGroup::flag(int i, ir::SyncOp op, ir::Pipe pipe, int64_t event, int instr) {
  CrossFlags& f = flags_[static_cast<size_t>(i / layout_.per_block)];
  const int slot = i % layout_.per_block;
  CoreModel* model = models_[static_cast<size_t>(i)];
  const auto e = static_cast<int>(event);
  if (op == ir::SyncOp::CrossSet) {
    f.set(slot, e, model ? model->cross_set(pipe, instr) : CrossFlags::Flag{});
    if (log_) log_->cross(slot, true, pipe, event, instr);
    return 0;
  }
  Core& c = cores_[static_cast<size_t>(i)];
  c.wait = Wait::Flag;
  c.wait_event = e;
  c.wait_instr = instr;
  if (!suspend(i)) return 1;
  const std::span<const CrossFlags::Flag> got = f.take(slot, e);
  if (model) model->cross_wait(pipe, got, instr);
  if (log_) log_->cross(slot, false, pipe, event, instr);
  return 0;
}

int32_t CoreGroup::meet(int i, int instr) {
  Core& c = cores_[static_cast<size_t>(i)];
  CoreModel* model = models_[static_cast<size_t>(i)];
  c.generation = generation_;
  c.wait_instr = instr;
  arrived_.push_back(i);
  arrivals_.push_back(model ? model->sync_all_arrive(instr) : CoreModel::Arrival{});
  if (static_cast<int>(arrived_.size()) == participants_) {
    release();
    return 0;
  }
  c.wait = Wait::SyncAll;
  return suspend(i) ? 0 : 1;
}

void CoreGroup::release() {
  if (models_[static_cast<size_t>(arrived_.front())]) {
    std::vector<timing::OpRef> deps;
    deps.reserve(arrivals_.size());
    for (const auto& a : arrivals_) deps.push_back(a.op);
    // Each participant learns the clocks of its own block's participants (clock indices are
    // slots of one block; blocks are ordered by the meeting itself, see GmSpan::epoch).
    for (size_t a = 0; a < arrived_.size(); ++a) {
      const int block = arrived_[a] / layout_.per_block;
      CoreModel::Clock joined{};
      for (size_t o = 0; o < arrived_.size(); ++o) {
        if (arrived_[o] / layout_.per_block != block) continue;
        for (size_t x = 0; x < joined.size(); ++x) joined[x] = std::max(joined[x], arrivals_[o].clock[x]);
      }
      const int j = arrived_[a];
      models_[static_cast<size_t>(j)]->sync_all_leave(cores_[static_cast<size_t>(j)].wait_instr, deps, joined);
    }
  }
  generation_ += 1;
  arrived_.clear();
  arrivals_.clear();
}

const char* CoreGroup::who_meets() const {
  if (k_.ir.mode == ir::KernelMode::Vector) return "every AIV";
  if (k_.ir.mode == ir::KernelMode::Cube) return "every AIC";
  return k_.ir.sync_all == ir::SyncAllScope::All ? "every core (AIC and AIV)" : ir::sync_all_scope_name(k_.ir.sync_all);
}

std::string CoreGroup::name(int i) const {
  static constexpr const char* kInBlock[kCoresPerBlock] = {"AIC", "AIV 0", "AIV 1"};
  const int b = first_block_ + i / layout_.per_block, slot = i % layout_.per_block;
  if (layout_.per_block == 1) return fmt::format("{} {}", ir::core_kind_name(layout_.kind(slot)), b);
  if (cores_.size() == static_cast<size_t>(layout_.per_block)) return fmt::format("{}{}", slot == 0 ? "the " : "", kInBlock[slot]);
  return fmt::format("block {}'s {}", b, kInBlock[slot]);
}

void CoreGroup::stop_deadlocked() {
  constexpr int kListed = 4;  // cores named per list; the rest are counted
  std::string waits, missing;
  int n_waits = 0, n_missing = 0;
  Deadlock d;
  for (size_t i = 0; i < cores_.size(); ++i) {
    const Core& c = cores_[i];
    const int slot = static_cast<int>(i) % layout_.per_block;
    if (c.done()) {
      const bool takes_part = ir::takes_part_in_sync_all(k_.ir.sync_all, k_.ir.mode, layout_.kind(slot));
      if (!arrived_.empty() && takes_part && n_missing++ < kListed) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", name(static_cast<int>(i)));
      continue;
    }
    if (d.instr < 0) {
      d.block = first_block_ + static_cast<int>(i) / layout_.per_block;
      d.slot = slot;
      d.instr = c.wait_instr;
    }
    if (c.wait == Wait::SyncAll || n_waits++ >= kListed) continue;
    const auto& info = k_.ir.instrs[c.wait_instr];
    waits += fmt::format("; {} waits on pipe {} for cross-core event {} (#{} {} at {})", name(static_cast<int>(i)), ir::pipe_name(info.pipe),
                         c.wait_event, c.wait_instr, info.text, info.loc.str());
  }
  if (n_waits > kListed) waits += fmt::format("; and {} more cores wait for cross-core flags", n_waits - kListed);
  if (!arrived_.empty()) {
    const int at = cores_[static_cast<size_t>(arrived_.front())].wait_instr;
    const auto& info = k_.ir.instrs[at];
    if (n_missing > kListed) missing += fmt::format(" and {} more", n_missing - kListed);
    d.message = fmt::format("deadlock: sync_all (#{} {} at {}) waits for {} of the launch, and {} of {} arrived{}{}", at, info.text,
                            info.loc.str(), who_meets(), arrived_.size(), participants_,
                            missing.empty() ? "" : fmt::format("; {} ended without reaching it", missing), waits);
  } else if (flags_.size() == 1) {
    d.message = fmt::format("deadlock: in block {} every unfinished core waits for a cross-core flag that is never set{}", first_block_, waits);
  } else {
    d.message = fmt::format("deadlock: every unfinished core waits for a cross-core flag that is never set{}", waits);
  }
  deadlock_ = std::move(d);
  for (auto& c : cores_) {
    if (c.done()) continue;
    c.stop = true;
    c.wait = Wait::None;
  }
}

int32_t cross_hook(CoreContext* ctx, int32_t instr, int32_t op, int64_t event) {
  return static_cast<CoreGroup*>(ctx->block)->cross(ctx, instr, static_cast<ir::SyncOp>(op), event);
}

}  // namespace pto::emulator
