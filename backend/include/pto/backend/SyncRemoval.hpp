#pragma once
// The sync-removal campaign's mutation pass (tests/campaign, `pto campaign`): the
// synchronisation a lowered kernel could lose, one site at a time, and the kernel without it.
//
// A site is one ordering construct of the lowered IR, in program order (the body's traversal):
//   - a wait_flag (its set_flag stays: a set nobody waits for orders nothing);
//   - a pipe_barrier(ALL) (a barrier of one pipe orders nothing and is not a site);
//   - a mutex_lock together with the mutex_unlock it pairs with, the first later unlock of the
//     same mutex on the same pipe (so an auto_mutex guard around one instruction is one site);
//   - a wait_cross_core;
//   - a sync_all.
// Removing a site removes its IR node(s) only: the instruction table keeps their entries, so
// every other instruction keeps its id (and its name in reports).
#include <string>
#include <vector>

#include "pto/ir/Kernel.hpp"

namespace pto::backend {

struct SyncSite {
  int instr = -1;    // the removed node's instruction id (the wait, barrier, lock or sync_all)
  int partner = -1;  // a lock's paired unlock (-1: none)
  ir::SyncOp op = ir::SyncOp::WaitFlag;
  bool automatic = false;  // inserted by auto_mutex
  /// "wait_flag(MTE2 -> V, event s) at file:line", "auto mutex of t0 on V around #12 at file:line".
  std::string describe(const ir::Kernel& k) const;
};

/// The removable sync sites of a lowered kernel, in program order.
std::vector<SyncSite> removable_syncs(const ir::Kernel& k);

/// Removes site `n` of removable_syncs(k). A UserError names the kernel and the number of sites
/// when `n` is out of range.
void remove_sync(ir::Kernel& k, int n);

}  // namespace pto::backend
