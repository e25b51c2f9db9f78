#include <algorithm>
#include <optional>

#include "CopyRecords.hpp"
#include "pto/runtime/timing/ReplayUnless.hpp"

namespace pto::timing {
namespace {

/// `shift` (per tensor) as `times` (>= 1) steps of one: the step, or nothing.
std::optional<std::vector<int64_t>> step_of(std::span<const int64_t> shift, int64_t times) {
  std::vector<int64_t> step(shift.size());
  for (size_t t = 0; t < shift.size(); ++t) {
    if (shift[t] % times != 0) return std::nullopt;
    step[t] = shift[t] / times;
  }
  return step;
}

/// Whether every block of the launch (`blocks` of them), the cores `first` of block `o` moved by
/// (its index - o) times `step`, keeps its GM regions within their tensors.
bool within_tensors(std::span<const CoreTrace* const> first, size_t o, std::span<const int64_t> step, size_t blocks,
                    std::span<const int64_t> tensor_elems) {
  const auto back = -static_cast<int64_t>(o), on = static_cast<int64_t>(blocks - 1 - o);
  for (const CoreTrace* t : first) {
    for (const GmRegion& r : t->regions) {
      if (r.tensor < 0) continue;
      const auto tensor = static_cast<size_t>(r.tensor);
      if (tensor >= tensor_elems.size()) return false;
      const int64_t d = tensor < step.size() ? step[tensor] : 0;
      const int64_t lo = r.lo + std::min(d * back, d * on), hi = r.hi + std::max(d * back, d * on);
      if (lo < 0 || hi > tensor_elems[tensor]) return false;
    }
  }
  return true;
}

}  // namespace

bool predict_copies(std::span<const CoreTrace* const> known, int per_block, std::span<const int64_t> tensor_elems, PredictedTraces& out) {
  const auto n = static_cast<size_t>(per_block);
  if (n == 0 || known.size() <= n || known.size() % n != 0) return false;
  size_t o = 0;  // the first known block
  while (o * n < known.size() && known[o * n] == nullptr) ++o;
  if (o * n >= known.size()) return false;
  for (size_t s = 0; s < n; ++s) {
    if (known[o * n + s] == nullptr || known[o * n + s]->copy_of >= 0) return false;
  }
  std::optional<std::vector<int64_t>> step;
  size_t unknown = o * n;
  for (size_t c = (o + 1) * n; c < known.size(); ++c) {
    const CoreTrace* t = known[c];
    if (t == nullptr) {
      unknown += 1;
      continue;
    }
    const CoreTrace& original = *known[o * n + c % n];
    const auto apart = static_cast<int64_t>(c / n) - static_cast<int64_t>(o);
    if (t->copy_of != static_cast<int32_t>(o * n + c % n) || t->kind != original.kind || t->slot != original.slot) return false;
    if (!step && !(step = step_of(t->shift, apart))) return false;
    if (t->shift.size() != step->size()) return false;
    for (size_t i = 0; i < step->size(); ++i) {
      if (t->shift[i] != (*step)[i] * apart) return false;
    }
  }
  if (!step || unknown == 0 || !within_tensors(known.subspan(o * n, n), o, *step, known.size() / n, tensor_elems)) return false;
  for (size_t c = o * n; c < (o + 1) * n; ++c) {  // as CoreModel::copyable_from: deps on block o's cores only
    for (const OpRef& d : known[c]->deps) {
      if (d.core < static_cast<int32_t>(o * n) || d.core >= static_cast<int32_t>((o + 1) * n)) return false;
    }
  }
  out.made.clear();
  out.made.reserve(unknown);  // no reallocation: `traces` points into it
  out.traces.assign(known.begin(), known.end());
  std::vector<int64_t> back(step->size());
  for (size_t i = 0; i < back.size(); ++i) back[i] = -(*step)[i] * static_cast<int64_t>(o);
  for (size_t c = 0; c < known.size(); ++c) {
    if (known[c] != nullptr) continue;
    CoreTrace& p = out.made.emplace_back();
    out.traces[c] = &p;
    const size_t slot = c % n;
    if (c < n) {  // block 0 not known: block o's core in its slot as a copy moved o steps back, written out
      CoreTrace moved_back;
      moved_back.kind = known[o * n + slot]->kind;
      moved_back.slot = known[o * n + slot]->slot;
      moved_back.copy_of = static_cast<int32_t>(o * n + slot);
      moved_back.shift = back;
      out.traces[c] = &moved_back;
      p = CopyRecords(out.traces, c).written_out();
      out.traces[c] = &p;
      continue;
    }
    p.kind = out.traces[slot]->kind;
    p.slot = out.traces[slot]->slot;
    p.copy_of = static_cast<int32_t>(slot);
    p.shift.resize(step->size());
    for (size_t i = 0; i < step->size(); ++i) p.shift[i] = (*step)[i] * static_cast<int64_t>(c / n);
  }
  return true;
}

}  // namespace pto::timing
