#include "MixBlock.hpp"

#include <boost/context/protected_fixedsize_stack.hpp>
#include <fmt/format.h>

namespace pto::emulator {

void MixBlock::run(std::array<CoreContext, kCoresPerBlock>& ctx, std::array<CoreModel*, kCoresPerBlock> models) {
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

int32_t MixBlock::cross(CoreContext* ctx, int32_t instr, ir::SyncOp op, int64_t event) {
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

void MixBlock::stop_deadlocked() {
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

int32_t cross_hook(CoreContext* ctx, int32_t instr, int32_t op, int64_t event) {
  return static_cast<MixBlock*>(ctx->block)->cross(ctx, instr, static_cast<ir::SyncOp>(op), event);
}

}  // namespace pto::emulator
