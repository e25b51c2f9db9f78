#include "ReplayCache.hpp"

#include <algorithm>
#include <array>
#include <iterator>

#include <xxhash.h>

#include "../timing/CopyRecords.hpp"

namespace pto::emulator {
namespace {

/// Adds a contiguous range (a vector or a span of records without padding), its length first.
template <class Range>
void add(XXH3_state_t* s, const Range& v) {
  const uint64_t n = std::size(v);
  XXH3_128bits_update(s, &n, sizeof n);
  if (n > 0) XXH3_128bits_update(s, std::data(v), n * sizeof(*std::data(v)));
}

/// Adds `n` records of type T, record i being `made(i)`, as add() adds a range of them (XXH3's
/// digest does not depend on how its input is split into updates).
template <class T, class Made>
void add_made(XXH3_state_t* s, size_t n, const Made& made) {
  const uint64_t count = n;
  XXH3_128bits_update(s, &count, sizeof count);
  std::array<T, 64> chunk;
  for (size_t i = 0; i < n;) {
    const size_t k = std::min(chunk.size(), n - i);
    for (size_t j = 0; j < k; ++j) chunk[j] = made(i + j);
    XXH3_128bits_update(s, chunk.data(), k * sizeof(T));
    i += k;
  }
}

/// Adds core `c`'s trace: its ops, deps and regions, a copy's as they would be written out
/// (timing/TraceCopies.hpp), so that a launch's key does not depend on which blocks its host
/// threads happened to fold.
void add_trace(XXH3_state_t* s, std::span<const timing::CoreTrace* const> cores, size_t c) {
  const timing::CoreTrace& t = *cores[c];
  if (t.copy_of < 0) {
    add(s, t.ops);
    add(s, t.deps);
    add(s, t.regions);
    return;
  }
  const timing::CopyRecords copy(cores, c);
  add(s, copy.original().ops);
  add_made<timing::OpRef>(s, copy.original().deps.size(), [&](size_t i) { return copy.dep(i); });
  add_made<timing::GmRegion>(s, copy.original().regions.size(), [&](size_t i) { return copy.region(i); });
}

/// Roughly the heap bytes a result holds.
size_t size_of(const timing::ReplayResult& r) {
  size_t bytes = sizeof r;
  for (const auto& c : r.cores) {
    bytes += sizeof c + (c.op_start.size() + c.op_end.size()) * sizeof(double) + c.spans.size() * sizeof(InstrSpan) +
             c.flows.size() * sizeof(FlagFlow);
  }
  return bytes;
}

}  // namespace

ReplayKey fingerprint(const timing::ReplayInput& in) {
  XXH3_state_t* s = XXH3_createState();
  XXH3_128bits_reset(s);
  // The chip: profiles live for the process (ChipProfile::get), so the address names one.
  const uintptr_t chip = reinterpret_cast<uintptr_t>(in.chip);
  const uint64_t flags[4] = {chip, in.gm_footprint, in.record_spans ? 1u : 0u, in.op_times ? 1u : 0u};
  XXH3_128bits_update(s, flags, sizeof flags);
  add(s, in.core_start);
  add(s, in.tensor_base);
  const uint64_t cores = in.cores.size();
  XXH3_128bits_update(s, &cores, sizeof cores);
  for (size_t c = 0; c < in.cores.size(); ++c) {
    const int64_t where[2] = {in.cores[c]->kind, in.cores[c]->slot};
    XXH3_128bits_update(s, where, sizeof where);
    add_trace(s, in.cores, c);
  }
  const XXH128_hash_t h = XXH3_128bits_digest(s);
  XXH3_freeState(s);
  return {h.low64, h.high64};
}

std::shared_ptr<const timing::ReplayResult> ReplayCache::find(const ReplayKey& key) {
  std::lock_guard lock(mu_);
  for (auto& e : entries_) {
    if (e.key == key) {
      e.used = ++clock_;
      ++hits_;
      return e.result;
    }
  }
  return nullptr;
}

void ReplayCache::put(const ReplayKey& key, std::shared_ptr<const timing::ReplayResult> result) {
  const size_t bytes = size_of(*result);
  if (bytes > kMaxBytes) return;
  std::lock_guard lock(mu_);
  if (!enabled_) return;
  for (const auto& e : entries_) {
    if (e.key == key) return;  // another thread replayed the same launch meanwhile
  }
  while (!entries_.empty() && (entries_.size() >= kMaxEntries || bytes_ + bytes > kMaxBytes)) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
    bytes_ -= oldest->bytes;
    entries_.erase(oldest);
  }
  entries_.push_back({key, std::move(result), bytes, ++clock_});
  bytes_ += bytes;
}

void ReplayCache::set_enabled(bool on) {
  std::lock_guard lock(mu_);
  enabled_ = on;
  if (!on) {
    entries_.clear();
    bytes_ = 0;
  }
}

bool ReplayCache::enabled() const {
  std::lock_guard lock(mu_);
  return enabled_;
}

uint64_t ReplayCache::hits() const {
  std::lock_guard lock(mu_);
  return hits_;
}

ReplayCache& replay_cache() {
  static ReplayCache cache;
  return cache;
}

}  // namespace pto::emulator
