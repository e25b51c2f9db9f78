#include "ReplayAhead.hpp"

#include "pto/runtime/timing/ReplayUnless.hpp"

namespace pto::emulator {
namespace {

std::atomic<bool> ahead_on{true};
std::atomic<uint64_t> ahead_used{0};

}  // namespace

bool ReplayAhead::predict(const CompiledKernel& k, const detail::LaunchArgs& args, std::span<const timing::CoreTrace* const> known, int per_block,
                          bool record) {
  std::vector<int64_t> tensor_elems;
  for (const auto& t : args.tensors) tensor_elems.push_back(t.numel());
  if (!timing::predict_copies(known, per_block, tensor_elems, predicted_)) return false;
  input_.emplace(k, args, std::move(predicted_.traces), per_block, record);  // predicted_.made stays: the traces point into it
  return true;
}

void ReplayAhead::replay(const std::atomic<bool>& stop) {
  if (!input_) return;
  try {
    if (std::optional<timing::ReplayResult> r = timing::replay_unless(input_->in, stop)) {
      result_ = std::make_shared<const timing::ReplayResult>(std::move(*r));
    }
  } catch (...) {  // left for the replay proper: result_ stays null
  }
}

// The actual launch first: its copies of a core are then settled by their shifts (same_input).
bool ReplayAhead::matches(const LaunchInput& actual) const { return input_ && timing::same_input(actual.in, input_->in); }

void set_replay_ahead(bool on) { ahead_on.store(on, std::memory_order_relaxed); }
bool replay_ahead_enabled() { return ahead_on.load(std::memory_order_relaxed); }
uint64_t replays_ahead_used() { return ahead_used.load(std::memory_order_relaxed); }
void count_replay_ahead_used() { ahead_used.fetch_add(1, std::memory_order_relaxed); }

}  // namespace pto::emulator
