#include "ReplayAhead.hpp"

#include <algorithm>

#include "pto/runtime/timing/ReplayUnless.hpp"

namespace pto::emulator {
namespace {

std::atomic<bool> ahead_on{true};
std::atomic<uint64_t> ahead_used{0};

/// Core `c`'s shift (per tensor) as `times` (>= 1) steps of one: the step, or nothing.
std::optional<std::vector<int64_t>> step_of(std::span<const int64_t> shift, int64_t times) {
  std::vector<int64_t> step(shift.size());
  for (size_t t = 0; t < shift.size(); ++t) {
    if (shift[t] % times != 0) return std::nullopt;
    step[t] = shift[t] / times;
  }
  return step;
}

/// Whether every block up to `blocks`, block 0's cores `first` moved by its index times `step`,
/// keeps its GM regions within their tensors: a prediction past a tensor's end (a launch whose
/// last blocks have a tile less) would replay addresses outside the launch's footprint.
bool within_tensors(std::span<const timing::CoreTrace* const> first, std::span<const int64_t> step, size_t blocks,
                    const detail::LaunchArgs& args) {
  for (const timing::CoreTrace* t : first) {
    for (const timing::GmRegion& r : t->regions) {
      if (r.tensor < 0) continue;
      const auto tensor = static_cast<size_t>(r.tensor);
      if (tensor >= args.tensors.size()) return false;
      const int64_t d = tensor < step.size() ? step[tensor] : 0, last = d * static_cast<int64_t>(blocks - 1);
      const int64_t lo = r.lo + std::min<int64_t>(0, last), hi = r.hi + std::max<int64_t>(0, last);
      if (lo < 0 || hi > args.tensors[tensor].numel()) return false;
    }
  }
  return true;
}

}  // namespace

bool ReplayAhead::predict(const CompiledKernel& k, const detail::LaunchArgs& args, std::span<const timing::CoreTrace* const> known, int per_block,
                          bool record) {
  const auto n = static_cast<size_t>(per_block);
  if (n == 0 || known.size() <= n) return false;
  for (size_t s = 0; s < n; ++s) {
    if (known[s] == nullptr || known[s]->copy_of >= 0) return false;
  }
  std::optional<std::vector<int64_t>> step;
  size_t unknown = 0;
  for (size_t c = n; c < known.size(); ++c) {
    const timing::CoreTrace* t = known[c];
    if (t == nullptr) {
      unknown += 1;
      continue;
    }
    const size_t slot = c % n;
    const auto block = static_cast<int64_t>(c / n);
    if (t->copy_of != static_cast<int32_t>(slot) || t->kind != known[slot]->kind || t->slot != known[slot]->slot) return false;
    if (!step && !(step = step_of(t->shift, block))) return false;
    if (t->shift.size() != step->size()) return false;
    for (size_t i = 0; i < step->size(); ++i) {
      if (t->shift[i] != (*step)[i] * block) return false;
    }
  }
  if (!step || unknown == 0 || !within_tensors(known.first(n), *step, known.size() / n, args)) return false;
  predicted_.clear();
  predicted_.reserve(unknown);  // no reallocation: `traces` points into it
  std::vector<const timing::CoreTrace*> traces(known.begin(), known.end());
  for (size_t c = n; c < known.size(); ++c) {
    if (known[c] != nullptr) continue;
    const size_t slot = c % n;
    timing::CoreTrace& p = predicted_.emplace_back();
    p.kind = known[slot]->kind;
    p.slot = known[slot]->slot;
    p.copy_of = static_cast<int32_t>(slot);
    p.shift.resize(step->size());
    for (size_t i = 0; i < step->size(); ++i) p.shift[i] = (*step)[i] * static_cast<int64_t>(c / n);
    traces[c] = &p;
  }
  input_.emplace(k, args, std::move(traces), per_block, record);
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
