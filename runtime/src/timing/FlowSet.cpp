#include "FlowSet.hpp"

#include <algorithm>
#include <limits>

#include "FairShare.hpp"

namespace pto::timing {

void FlowSet::join(uint32_t op, double bytes, double cap, double use, uint32_t copies) {
  auto it = std::find_if(classes_.begin(), classes_.end(), [&](const Class& c) { return c.cap == cap && c.use == use; });
  if (it == classes_.end()) {
    // Reuse an empty class before opening one: a launch sees few distinct (cap, use) pairs at a
    // time, but L2 hits of partial lines make new ones now and then.
    it = std::find_if(classes_.begin(), classes_.end(), [](const Class& c) { return c.members.empty(); });
    if (it == classes_.end()) it = classes_.emplace(classes_.end());
    it->cap = cap;
    it->use = use;
    it->moved = 0;
    it->copies = 0;
  }
  const Member m{it->moved + bytes, 1e-6 * std::max(1.0, bytes), op, copies};
  it->copies += copies;
  auto& q = it->members;
  q.insert(std::upper_bound(q.begin(), q.end(), m), m);
  dirty_ = true;
}

void FlowSet::advance(double dt) {
  if (dt <= 0) return;
  for (Class& c : classes_) {
    if (!c.members.empty()) c.moved += c.rate * dt;
  }
}

void FlowSet::share() {
  const size_t n = classes_.size();
  cap_.resize(n), use_.resize(n), count_.resize(n), rate_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    cap_[i] = classes_[i].cap;
    use_[i] = classes_[i].use;
    count_[i] = classes_[i].copies;
  }
  share_fairly(cap_, use_, count_, hbm_, rate_, order_);
  // Then the L2's own bandwidth, over every transfer (hits and misses pass through it).
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += rate_[i] * count_[i];
  if (total > l2_) {
    l2_cap_.assign(rate_.begin(), rate_.end());
    ones_.assign(n, 1.0);
    share_fairly(l2_cap_, ones_, count_, l2_, rate_, order_);
  }
  for (size_t i = 0; i < n; ++i) classes_[i].rate = rate_[i];
  dirty_ = false;
}

double FlowSet::until_next_end() {
  if (dirty_) share();
  // The smallest left / rate, found by cross-multiplying (one division in all).
  double left = 0, rate = 0;
  next_ = -1;
  for (size_t i = 0; i < classes_.size(); ++i) {
    const Class& c = classes_[i];
    if (c.members.empty() || c.rate <= 0) continue;
    const double l = std::max(0.0, c.members.front().end - c.moved);
    if (rate == 0 || l * rate < left * c.rate) {
      left = l;
      rate = c.rate;
      next_ = static_cast<int>(i);
    }
  }
  return rate > 0 ? left / rate : std::numeric_limits<double>::infinity();
}

void FlowSet::take_done(std::vector<uint32_t>& done) {
  if (next_ >= 0 && !classes_[static_cast<size_t>(next_)].members.empty()) {
    auto& first = classes_[static_cast<size_t>(next_)].members;
    done.push_back(first.front().op);
    classes_[static_cast<size_t>(next_)].copies -= first.front().copies;
    first.pop_front();
  }
  next_ = -1;
  for (Class& c : classes_) {
    while (!c.members.empty() && c.members.front().end - c.moved <= c.members.front().slack) {
      done.push_back(c.members.front().op);
      c.copies -= c.members.front().copies;
      c.members.pop_front();
    }
  }
  dirty_ = true;
}

}  // namespace pto::timing
