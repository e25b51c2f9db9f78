#pragma once
// The cross-core flags in flight in one mix block (private to the emulator): what the AIC set for
// each AIV, and what each AIV set for the AIC, per event id, first in first out. CoreGroup keeps
// them while the block's cores run (a wait is ready when its flags are there); HookLog::play keeps
// them again when it plays the block's written-down calls into the models, so each wait is given
// the flags the live run gave it.
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "pto/runtime/PipelineModel.hpp"

namespace pto::emulator {

class CrossFlags {
 public:
  static constexpr int kEvents = 16;  // event ids 0..15 (CoreGroup::cross checks the range)
  using Flag = CoreModel::CrossFlag;

  /// Core `slot` of the block (0 the AIC, 1 and 2 the AIVs) sets `event`: the AIC's set goes to
  /// both AIVs, an AIV's to the AIC.
  void set(int slot, int event, const Flag& flag) {
    if (slot == 0) {
      for (auto& to : to_aiv_) to[static_cast<size_t>(event)].push(flag);
    } else {
      to_aic_[static_cast<size_t>(slot - 1)][static_cast<size_t>(event)].push(flag);
    }
  }
  /// Whether core `slot`'s wait for `event` can go on: the AIC's needs a set from each AIV.
  bool ready(int slot, int event) const {
    const auto e = static_cast<size_t>(event);
    if (slot == 0) return !to_aic_[0][e].empty() && !to_aic_[1][e].empty();
    return !to_aiv_[static_cast<size_t>(slot - 1)][e].empty();
  }
  /// Takes the flags core `slot`'s wait for `event` consumes (call only when ready): one from each
  /// AIV for the AIC, the AIC's for an AIV. The span stays valid until the next take.
  std::span<const Flag> take(int slot, int event) {
    const auto e = static_cast<size_t>(event);
    size_t n = 0;
    if (slot == 0) {
      for (auto& from : to_aic_) taken_[n++] = from[e].pop();
    } else {
      taken_[n++] = to_aiv_[static_cast<size_t>(slot - 1)][e].pop();
    }
    return {taken_.data(), n};
  }

 private:
  /// A queue that allocates nothing until its first flag (a block has 64 of them, most unused),
  /// and reuses its storage once emptied.
  class Queue {
   public:
    void push(const Flag& f) { items_.push_back(f); }
    bool empty() const { return head_ == items_.size(); }
    Flag pop() {
      const Flag f = items_[head_++];
      if (head_ == items_.size()) items_.clear(), head_ = 0;
      return f;
    }

   private:
    std::vector<Flag> items_;
    size_t head_ = 0;
  };
  std::array<std::array<Queue, kEvents>, 2> to_aiv_, to_aic_;
  std::array<Flag, 2> taken_;
};

}  // namespace pto::emulator
