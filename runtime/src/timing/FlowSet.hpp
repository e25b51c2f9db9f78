#pragma once
// The GM transfers in flight during a replay, and the rates the shared HBM and L2 give them
// (max-min fair, FairShare.hpp).
//
// Transfers with the same path peak and the same HBM bytes per byte always get the same rate, so
// they are kept as one class: the class counts the bytes each of its transfers has moved since the
// class opened (`moved`), and a transfer ends when that count reaches its value at the transfer's
// join plus the transfer's bytes. A change of the rates then costs the number of classes (a few:
// loads, stores, L2 hits), not the number of transfers in flight (tens on a 48-core launch), and
// the next transfer to end is the front of its class's queue (kept in end order; a transfer that
// joins a class usually ends after those already in it, so it goes to the back).
#include <cstdint>
#include <deque>
#include <vector>

namespace pto::timing {

class FlowSet {
 public:
  FlowSet(double hbm_bytes_per_cycle, double l2_bytes_per_cycle) : hbm_(hbm_bytes_per_cycle), l2_(l2_bytes_per_cycle) {}

  /// Transfer `op` of `bytes` (> 0) joins now: it moves at most `cap` bytes per cycle, and `use`
  /// of its bytes go to HBM (0: all L2 hits; > 1: partial lines fetched whole). It stands for
  /// `copies` such transfers (cores replayed as one, CoreGroups.hpp): each gets its share.
  void join(uint32_t op, double bytes, double cap, double use, uint32_t copies = 1);
  /// Moves every transfer forward by `dt` cycles at its current rate.
  void advance(double dt);
  /// Whether a transfer joined or left since the last until_next_end (the rates are stale).
  bool changed() const { return dirty_; }
  /// The cycles from now until the first transfer in flight has moved its bytes (infinity when
  /// none is in flight). Shares the rates again first if a transfer joined or left.
  double until_next_end();
  /// Removes the transfers that have moved their bytes (the one until_next_end found, whatever
  /// rounding left of it, and any other within rounding of its end) and appends their ops to
  /// `done` in no particular order.
  void take_done(std::vector<uint32_t>& done);

 private:
  struct Member {
    double end;      // the class's `moved` at which it has moved its bytes
    double slack;    // how far short of `end` still counts as done (rounding)
    uint32_t op;
    uint32_t copies;  // the transfers it stands for
    bool operator<(const Member& o) const { return end != o.end ? end < o.end : op < o.op; }
  };
  struct Class {
    double cap = 0, use = 0;
    double moved = 0;  // bytes per member since the class last was empty
    double rate = 0;
    double copies = 0;           // the transfers its members stand for (whole numbers: exact)
    std::deque<Member> members;  // by end, then op
  };
  void share();

  double hbm_, l2_;
  std::vector<Class> classes_;
  // Scratch of share(), per class: its cap, use, member count and rate.
  std::vector<double> cap_, use_, count_, rate_, l2_cap_, ones_;
  std::vector<int> order_;
  bool dirty_ = false;
  int next_ = -1;  // the class whose front until_next_end found
};

}  // namespace pto::timing
