#include "CoreGroups.hpp"

#include <cstring>

namespace pto::timing {
namespace {

double start_of(const ReplayInput& in, size_t c) { return in.core_start.empty() ? 0 : in.core_start[c]; }

/// Whether core `c` is a copy of core `f` (f < c). Sizes and the last op first: cores of a kernel
/// differ mostly in their tile count or their last tile, so most mismatches cost no full compare;
/// `wasted` counts those that did.
bool is_copy(const ReplayInput& in, size_t f, size_t c, size_t& wasted) {
  const CoreTrace &a = *in.cores[f], &b = *in.cores[c];
  if (start_of(in, f) != start_of(in, c) || a.kind != b.kind || a.slot != b.slot || a.ops.size() != b.ops.size() ||
      a.deps.size() != b.deps.size() || a.regions.size() != b.regions.size()) {
    return false;
  }
  // TimedOp has no padding (TimedOp.hpp): equal bytes, equal ops.
  const size_t n = a.ops.size();
  if (n > 0 && std::memcmp(&a.ops[n - 1], &b.ops[n - 1], sizeof(TimedOp)) != 0) return false;
  bool same = n == 0 || std::memcmp(a.ops.data(), b.ops.data(), n * sizeof(TimedOp)) == 0;
  for (size_t j = 0; same && j < a.deps.size(); ++j) same = a.deps[j].op == b.deps[j].op;  // both on their own core
  wasted += same ? 0 : 1;
  return same;
}

}  // namespace

CoreGroups CoreGroups::each_alone(size_t cores) {
  CoreGroups g;
  g.group.resize(cores);
  g.first.resize(cores);
  g.size.assign(cores, 1);
  for (size_t c = 0; c < cores; ++c) g.group[c] = g.first[c] = static_cast<uint32_t>(c);
  return g;
}

CoreGroups group_copies(const ReplayInput& in) {
  const size_t n = in.cores.size();
  if (!in.fold_identical_cores || n < 2) return CoreGroups::each_alone(n);
  for (size_t c = 0; c < n; ++c) {
    for (const OpRef& d : in.cores[c]->deps) {
      if (d.core != static_cast<int32_t>(c)) return CoreGroups::each_alone(n);
    }
  }
  CoreGroups g;
  g.group.resize(n);
  size_t wasted = 0;  // whole traces compared in vain: past one a core, grouping costs more than it saves
  for (size_t c = 0; c < n; ++c) {
    if (const int32_t original = in.cores[c]->copy_of; original >= 0) {
      // A recorded copy: its ops are its original's, no compare needed. It joins its original's
      // group (which starts when the original does), or nothing folds: every group's first core,
      // the one replayed, holds its own ops.
      const auto o = static_cast<size_t>(original);
      if (o >= c || in.cores[o]->copy_of >= 0 || start_of(in, o) != start_of(in, c)) return CoreGroups::each_alone(n);
      g.group[c] = g.group[o];
      g.size[g.group[o]] += 1;
      continue;
    }
    size_t k = 0;
    while (k < g.first.size() && !is_copy(in, g.first[k], c, wasted)) ++k;
    if (wasted > n) return CoreGroups::each_alone(n);
    if (k == g.first.size()) {
      if (2 * (k + 1) > n) return CoreGroups::each_alone(n);  // too few copies to be worth the compares
      g.first.push_back(static_cast<uint32_t>(c));
      g.size.push_back(0);
    }
    g.group[c] = static_cast<uint32_t>(k);
    g.size[k] += 1;
  }
  return g;
}

}  // namespace pto::timing
