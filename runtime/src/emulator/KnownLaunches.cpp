#include "KnownLaunches.hpp"

#include <algorithm>

#include <xxhash.h>

#include "LaunchReplay.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto {

std::shared_ptr<KnownLaunches> new_known_launches() { return std::make_shared<KnownLaunches>(); }

bool KnownLaunches::applies(const CompiledKernel& k) {
  std::call_once(checked_, [&] { applies_ = emulator::trace_follows_arguments(k); });
  return applies_;
}

std::shared_ptr<const LaunchProfile> KnownLaunches::find(const Key& key) {
  std::lock_guard lock(mu_);
  for (auto& e : entries_) {
    if (e.key == key) {
      e.used = ++clock_;
      return e.profile;
    }
  }
  return nullptr;
}

void KnownLaunches::put(const Key& key, std::shared_ptr<const LaunchProfile> profile) {
  std::lock_guard lock(mu_);
  for (auto& e : entries_) {
    if (e.key == key) return;  // another thread kept the same launch: the same profile
  }
  if (entries_.size() >= kMaxEntries) {
    entries_.erase(std::min_element(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; }));
  }
  entries_.push_back({key, std::move(profile), ++clock_});
}

namespace emulator {
namespace {

class ScalarFromMemory : public ir::Visitor {
 public:
  bool found = false;

 protected:
  void visit_node(const ir::ElemAccess* op) override {
    if (!op->write) found = true;
    Visitor::visit_node(op);
  }
  void visit_node(const ir::Debug* op) override {
    found = true;
    Visitor::visit_node(op);
  }
  // mrgsort2 with `exhausted` stops when a list runs out: how many records it merges (its amount,
  // its outputs' valid extents, and so every extent that follows from them) depends on the data.
  void visit_node(const ir::VecRoutine* op) override {
    if (op->routine == ir::Routine::MrgSort2 && op->params[0] != 0) found = true;
    Visitor::visit_node(op);
  }
};

}  // namespace

bool trace_follows_arguments(const CompiledKernel& k) {
  if (k.has_debug) return false;
  ScalarFromMemory v;
  v.visit(k.ir.body);
  return !v.found;
}

KnownLaunches::Key known_launch_key(const CompiledKernel& k, const detail::LaunchArgs& args, int block_dim, bool record) {
  XXH3_state_t* s = XXH3_createState();
  XXH3_128bits_reset(s);
  const int64_t head[4] = {block_dim, record ? 1 : 0, static_cast<int64_t>(args.scalars.size()),
                           args.key.empty() ? -1 : static_cast<int64_t>(args.key.code())};
  XXH3_128bits_update(s, head, sizeof head);
  if (!args.scalars.empty()) XXH3_128bits_update(s, args.scalars.data(), args.scalars.size() * sizeof(int64_t));
  for (const auto& t : args.tensors) {
    const int64_t fields[4] = {static_cast<int64_t>(t.dtype), t.rank, t.storage ? t.storage_numel : -1, t.storage_offset()};
    XXH3_128bits_update(s, fields, sizeof fields);
    XXH3_128bits_update(s, t.shape.data(), sizeof t.shape);
    XXH3_128bits_update(s, t.strides.data(), sizeof t.strides);
  }
  // Which tensors share storage (a buffer passed twice): the race checker and the virtual bases.
  const std::vector<int> memory_of = gm_memory_of(k, args);
  if (!memory_of.empty()) XXH3_128bits_update(s, memory_of.data(), memory_of.size() * sizeof(int));
  const XXH128_hash_t h = XXH3_128bits_digest(s);
  XXH3_freeState(s);
  return {h.low64, h.high64};
}

}  // namespace emulator
}  // namespace pto
