#include "pto/backend/SyncRemoval.hpp"

#include <algorithm>

#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

/// Every Sync node of the body, in traversal order.
std::vector<const ir::Sync*> syncs_in_order(const ir::Kernel& k) {
  struct Collect : ir::Visitor {
    std::vector<const ir::Sync*> out;
    void visit_node(const ir::Sync* op) override {
      out.push_back(op);
      ir::Visitor::visit_node(op);
    }
  } c;
  c.visit(k.body);
  return std::move(c.out);
}

/// Whether an unlock releases what a lock took: the same pipe and the same mutex (for an
/// auto_mutex guard, the same tile group and slot expression).
bool releases(const ir::Sync& lock, const ir::Sync& unlock) {
  if (unlock.op != ir::SyncOp::MutexUnlock || unlock.src != lock.src || unlock.tile.group != lock.tile.group) return false;
  if (lock.tile.group >= 0) return ir::to_string(lock.tile.slot) == ir::to_string(unlock.tile.slot);
  return ir::to_string(lock.event) == ir::to_string(unlock.event);
}

bool removable(const ir::Sync& s) {
  switch (s.op) {
    case ir::SyncOp::WaitFlag:
    case ir::SyncOp::MutexLock:
    case ir::SyncOp::CrossWait:
    case ir::SyncOp::SyncAll: return true;
    case ir::SyncOp::Barrier: return s.src == ir::Pipe::ALL;
    case ir::SyncOp::SetFlag:
    case ir::SyncOp::MutexUnlock:
    case ir::SyncOp::CrossSet: return false;
  }
  return false;
}

/// Replaces the Sync nodes with the given instruction ids by empty statements.
class Drop : public ir::Mutator {
 public:
  Drop(int a, int b) : a_(a), b_(b) {}

 protected:
  ir::Stmt mutate_node(const ir::Sync* op, const ir::Stmt& self) override {
    return op->id == a_ || op->id == b_ ? ir::Seq::make({}) : self;
  }

 private:
  int a_, b_;
};

}  // namespace

std::string SyncSite::describe(const ir::Kernel& k) const {
  return ir::describe_instr(k, instr, ir::pipe_name(k.instrs.at(static_cast<size_t>(instr)).pipe));
}

std::vector<SyncSite> removable_syncs(const ir::Kernel& k) {
  const std::vector<const ir::Sync*> all = syncs_in_order(k);
  std::vector<SyncSite> sites;
  for (size_t i = 0; i < all.size(); ++i) {
    const ir::Sync& s = *all[i];
    if (!removable(s)) continue;
    SyncSite site{.instr = s.id, .op = s.op, .automatic = k.instrs.at(static_cast<size_t>(s.id)).automatic};
    if (s.op == ir::SyncOp::MutexLock) {
      const auto unlock = std::find_if(all.begin() + static_cast<std::ptrdiff_t>(i) + 1, all.end(),
                                       [&](const ir::Sync* u) { return releases(s, *u); });
      if (unlock != all.end()) site.partner = (*unlock)->id;
    }
    sites.push_back(site);
  }
  return sites;
}

void remove_sync(ir::Kernel& k, int n) {
  const std::vector<SyncSite> sites = removable_syncs(k);
  PTO_USER_CHECK(n >= 0 && n < static_cast<int>(sites.size()), (ErrorSite{.kernel = k.name, .specialization = k.specialization}))
      << "remove_sync = " << n << " is not a sync site of this kernel: it has " << sites.size() << " (0.." << static_cast<int>(sites.size()) - 1
      << ")";
  const SyncSite& site = sites[static_cast<size_t>(n)];
  k.body = Drop(site.instr, site.partner).mutate(k.body);
}

}  // namespace pto::backend
