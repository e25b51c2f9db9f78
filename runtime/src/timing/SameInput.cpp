#include <algorithm>
#include <cstring>
#include <optional>
#include <span>

#include "CopyRecords.hpp"
#include "pto/runtime/timing/ReplayUnless.hpp"

namespace pto::timing {
namespace {

/// Core `c` of `cores` record by record as written out: a recorded copy's from its original, moved.
class WrittenOut {
 public:
  WrittenOut(std::span<const CoreTrace* const> cores, size_t c) : own_(*cores[c]) {
    if (own_.copy_of >= 0) copy_.emplace(cores, c);
  }
  const CoreTrace& records() const { return copy_ ? copy_->original() : own_; }
  OpRef dep(size_t i) const { return copy_ ? copy_->dep(i) : own_.deps[i]; }
  GmRegion region(size_t i) const { return copy_ ? copy_->region(i) : own_.regions[i]; }
  const CoreTrace& own() const { return own_; }

 private:
  const CoreTrace& own_;
  std::optional<CopyRecords> copy_;
};

bool same_core(std::span<const CoreTrace* const> a, std::span<const CoreTrace* const> b, size_t c) {
  if (a[c] == b[c]) return true;
  const WrittenOut x(a, c), y(b, c);
  const CoreTrace &p = x.records(), &q = y.records();
  if (x.own().kind != y.own().kind || x.own().slot != y.own().slot || p.ops.size() != q.ops.size() || p.deps.size() != q.deps.size() ||
      p.regions.size() != q.regions.size()) {
    return false;
  }
  // TimedOp and GmRegion have no padding (TimedOp.hpp): equal bytes, equal records.
  if (&p != &q && !p.ops.empty() && std::memcmp(p.ops.data(), q.ops.data(), p.ops.size() * sizeof(TimedOp)) != 0) return false;
  for (size_t i = 0; i < p.deps.size(); ++i) {
    const OpRef d = x.dep(i), e = y.dep(i);
    if (d.core != e.core || d.op != e.op) return false;
  }
  for (size_t i = 0; i < p.regions.size(); ++i) {
    const GmRegion r = x.region(i), s = y.region(i);
    if (std::memcmp(&r, &s, sizeof(GmRegion)) != 0) return false;
  }
  return true;
}

/// How far a core's written-out regions of `tensor` lie from its original's (a recorded core: 0).
int64_t moved_by(const CoreTrace& t, size_t tensor) { return t.copy_of < 0 ? 0 : shift_of(t.shift, static_cast<int32_t>(tensor)); }

/// Whether core `c` of `a`, a copy of core o, is core c of `b` written out, knowing that core o
/// of `a` (recorded) is core o of `b` written out, which is a copy of core ob moved `sb` (or ob = o
/// recorded, sb = 0): then `b`'s core c must be a copy of ob moved by a's shift plus sb, tensor by
/// tensor (its ops are ob's, its deps ob's moved to core c, as a's are o's moved). False if that
/// does not settle it (compare the records then).
bool same_by_shift(std::span<const CoreTrace* const> a, std::span<const CoreTrace* const> b, size_t c) {
  const CoreTrace &x = *a[c], &y = *b[c];
  if (x.copy_of < 0 || x.kind != y.kind || x.slot != y.slot) return false;
  const auto o = static_cast<size_t>(x.copy_of);
  const CoreTrace& bo = *b[o];
  const int32_t ob = bo.copy_of < 0 ? static_cast<int32_t>(o) : bo.copy_of;
  if (y.copy_of != ob) return false;
  const size_t tensors = std::max({x.shift.size(), bo.shift.size(), y.shift.size()});
  for (size_t t = 0; t < tensors; ++t) {
    if (moved_by(x, t) + moved_by(bo, t) != moved_by(y, t)) return false;
  }
  return true;
}

template <class T>
bool same_values(std::span<const T> a, std::span<const T> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace

bool same_input(const ReplayInput& a, const ReplayInput& b) {
  if (a.chip != b.chip || a.gm_footprint != b.gm_footprint || a.record_spans != b.record_spans || a.op_times != b.op_times ||
      a.fold_identical_cores != b.fold_identical_cores || a.cores.size() != b.cores.size() || !same_values(a.core_start, b.core_start) ||
      !same_values(a.tensor_base, b.tensor_base)) {
    return false;
  }
  // Cores found the same record by record, for same_by_shift: a launch's copies of one core are
  // settled by their shifts, not their records again.
  std::vector<uint8_t> compared(a.cores.size(), 0);
  for (size_t c = 0; c < a.cores.size(); ++c) {
    const int32_t o = a.cores[c]->copy_of;
    if (o >= 0 && compared[static_cast<size_t>(o)] && same_by_shift(a.cores, b.cores, c)) continue;
    if (!same_core(a.cores, b.cores, c)) return false;
    compared[c] = 1;
  }
  return true;
}

}  // namespace pto::timing
