#include "pto/runtime/timing/Replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "FairShare.hpp"
#include "SharedL2.hpp"

namespace pto::timing {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

/// An event: at `time`, op `op` (global index) starts, or its fixed part ends. Ties go to the
/// lower op index, so the order is a function of the traces only.
struct Event {
  double time;
  uint32_t op;
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : op > o.op; }
};
using EventQueue = std::priority_queue<Event, std::vector<Event>, std::greater<>>;

/// The replay's per-op arrays. One set per host thread is kept between launches: a launch of tens
/// of thousands of ops would otherwise map, fault in and zero fresh pages every time.
struct Buffers {
  std::vector<uint32_t> base, core_of, pending, pipe_next, rdep_begin, rdeps, fill;
  std::vector<const TimedOp*> ops;
  std::vector<double> dep_ready, pred_end, start, end, work_end;

  template <class F>
  void each(Buffers& o, F&& f) {
    f(base, o.base), f(core_of, o.core_of), f(pending, o.pending), f(pipe_next, o.pipe_next), f(rdep_begin, o.rdep_begin);
    f(rdeps, o.rdeps), f(fill, o.fill), f(ops, o.ops), f(dep_ready, o.dep_ready), f(pred_end, o.pred_end), f(start, o.start);
    f(end, o.end), f(work_end, o.work_end);
  }
  void swap(Buffers& o) {
    each(o, [](auto& a, auto& b) { a.swap(b); });
  }
};

class Replayer {
 public:
  Replayer(const ReplayInput& in, Buffers& kept)
      : in_(in), chip_(*in.chip),
        l2_(chip_.l2_bytes, chip_.l2_line_bytes, chip_.l2_ways, in.gm_footprint),
        hbm_per_cycle_(chip_.hbm_gbps / chip_.clock_ghz),
        l2_per_cycle_(chip_.l2_gbps / chip_.clock_ghz), kept_(kept) {
    b_.swap(kept_);
  }
  ~Replayer() { b_.swap(kept_); }
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  ReplayResult run() {
    build();
    for (uint32_t g = 0; g < b_.ops.size(); ++g) {
      if (b_.pending[g] == 0) schedule(g);
    }
    loop();
    return finish();
  }

 private:
  const TimedOp& op(uint32_t g) const { return *b_.ops[g]; }

  void build() {
    const size_t n_cores = in_.cores.size();
    b_.base.assign(n_cores + 1, 0);
    for (size_t c = 0; c < n_cores; ++c) b_.base[c + 1] = b_.base[c] + static_cast<uint32_t>(in_.cores[c]->ops.size());
    const uint32_t n = b_.base.back();
    b_.ops.resize(n);
    b_.core_of.resize(n);
    b_.pending.assign(n, 0);
    b_.dep_ready.assign(n, 0);
    b_.pred_end.assign(n, -1);
    b_.start.assign(n, 0);
    b_.end.assign(n, 0);
    b_.pipe_next.assign(n, UINT32_MAX);
    b_.work_end.assign(n_cores * kPipeCount, -1);
    b_.rdep_begin.assign(n + 1, 0);  // first the count of each op's dependents, at index op + 1
    for (size_t c = 0; c < n_cores; ++c) {
      const CoreTrace& t = *in_.cores[c];
      std::array<uint32_t, kPipeCount> last{};
      last.fill(UINT32_MAX);
      for (size_t i = 0; i < t.ops.size(); ++i) {
        const uint32_t g = b_.base[c] + static_cast<uint32_t>(i);
        const TimedOp& o = t.ops[i];
        b_.ops[g] = &o;
        b_.core_of[g] = static_cast<uint32_t>(c);
        b_.pending[g] = o.dep_count;
        for (uint32_t d = 0; d < o.dep_count; ++d) b_.rdep_begin[ref(t.deps[o.dep_begin + d]) + 1] += 1;
        if (o.kind != OpKind::Barrier) {
          uint32_t& prev = last[o.pipe];
          if (prev != UINT32_MAX) {
            b_.pipe_next[prev] = g;
            b_.pending[g] += 1;
          }
          prev = g;
        }
      }
    }
    // Reverse deps, CSR.
    for (uint32_t g = 0; g < n; ++g) b_.rdep_begin[g + 1] += b_.rdep_begin[g];
    b_.rdeps.resize(b_.rdep_begin[n]);
    b_.fill.assign(b_.rdep_begin.begin(), b_.rdep_begin.end() - 1);
    for (size_t c = 0; c < n_cores; ++c) {
      const CoreTrace& t = *in_.cores[c];
      for (size_t i = 0; i < t.ops.size(); ++i) {
        const TimedOp& o = t.ops[i];
        for (uint32_t d = 0; d < o.dep_count; ++d) b_.rdeps[b_.fill[ref(t.deps[o.dep_begin + d])]++] = b_.base[c] + static_cast<uint32_t>(i);
      }
    }
  }

  uint32_t ref(const OpRef& r) const { return b_.base[static_cast<size_t>(r.core)] + static_cast<uint32_t>(r.op); }

  double core_start(uint32_t c) const { return in_.core_start.empty() ? 0 : in_.core_start[c]; }

  /// When the scalar unit has issued op g.
  double issue_ready(uint32_t g) const {
    const TimedOp& o = op(g);
    const uint32_t c = b_.core_of[g];
    const double from = o.barrier >= 0 ? b_.end[b_.base[c] + static_cast<uint32_t>(o.barrier)] : core_start(c);
    return from + o.issue * chip_.issue_cycles;
  }

  /// All of g's conditions hold: queue its start.
  void schedule(uint32_t g) {
    const double t = std::max({b_.dep_ready[g], b_.pred_end[g], issue_ready(g)});
    // A sync point due now takes no time and no shared resource: settle it at once (most ops of a
    // pipelined kernel are flags and mutexes), not through the queue.
    const OpKind kind = op(g).kind;
    if (t <= now_ && (kind == OpKind::Sync || kind == OpKind::Barrier)) {
      due_now_.push_back(g);
    } else if (kind == OpKind::Work || kind == OpKind::Transfer) {
      // Its start touches nothing shared (a transfer's bytes join the shared L2/HBM only after its
      // latency), so it is started now, at its time t >= now: no start event to queue.
      start(g, t);
    } else {
      starts_.push({t, g});
    }
  }

  void settle_due_now() {
    while (!due_now_.empty()) {
      const uint32_t g = due_now_.back();
      due_now_.pop_back();
      b_.start[g] = now_;
      ended(g, now_);
    }
  }

  void ended(uint32_t g, double t) {
    b_.end[g] = t;
    if (b_.pipe_next[g] != UINT32_MAX) {
      const uint32_t s = b_.pipe_next[g];
      b_.pred_end[s] = t;
      if (--b_.pending[s] == 0) schedule(s);
    }
    for (uint32_t i = b_.rdep_begin[g]; i < b_.rdep_begin[g + 1]; ++i) {
      const uint32_t s = b_.rdeps[i];
      b_.dep_ready[s] = std::max(b_.dep_ready[s], t);
      if (--b_.pending[s] == 0) schedule(s);
    }
  }

  void start(uint32_t g, double now) {
    b_.start[g] = now;
    const TimedOp& o = op(g);
    switch (o.kind) {
      case OpKind::Sync:
      case OpKind::Barrier: ended(g, now); return;
      case OpKind::Work: {
        // The head is paid when the pipe starts from idle: no work of this pipe ended just as
        // this op starts (pto-isa's vector and cube queues pay it only at an empty queue).
        double& last = b_.work_end[static_cast<size_t>(b_.core_of[g]) * kPipeCount + o.pipe];
        const bool idle = now > last;
        last = now + o.body + (idle ? o.head : 0);
        fixed_ends_.push({last, g});
        return;
      }
      case OpKind::Transfer: {
        fixed_ends_.push({now + o.head, g});  // the DMA latency, then the bytes
        return;
      }
    }
  }

  /// The bytes of a transfer that go to HBM: read misses in L2, or all of a write.
  double hbm_bytes(uint32_t g) {
    const TimedOp& o = op(g);
    const CoreTrace& t = *in_.cores[b_.core_of[g]];
    if (o.region < 0) return o.bytes;
    const GmRegion& r = t.regions[static_cast<size_t>(o.region)];
    const uint64_t base = r.tensor >= 0 && static_cast<size_t>(r.tensor) < in_.tensor_base.size() ? in_.tensor_base[r.tensor] : 0;
    const uint64_t es = static_cast<uint64_t>(r.elem_bytes);
    SharedL2::Outcome seen;
    auto touch = [&](uint64_t addr, uint64_t len) {
      const SharedL2::Outcome o = l2_.access(addr, len);
      seen.hit_bytes += o.hit_bytes;
      seen.fetched_bytes += o.fetched_bytes;
    };
    if (r.width <= 0 || r.hi - r.lo <= r.width) {
      touch(base + static_cast<uint64_t>(r.lo) * es, static_cast<uint64_t>(r.hi - r.lo) * es);
    } else {
      // Rows r0..r1 of columns [c0, c1) of the view (the rectangle whose flattened span is [lo, hi)).
      const int64_t w = r.width, r0 = r.lo / w, c0 = r.lo % w, r1 = (r.hi - c0 - 1) / w, c1 = r.hi - r1 * w;
      for (int64_t row = r0; row <= r1; ++row) {
        touch(base + static_cast<uint64_t>(row * w + c0) * es, static_cast<uint64_t>(c1 - c0) * es);
      }
    }
    if (r.write) {
      result_.gm_write_bytes += o.bytes;
      return o.bytes;
    }
    result_.l2_read_miss_bytes += o.bytes - seen.hit_bytes;
    result_.l2_read_hit_bytes += seen.hit_bytes;
    return seen.fetched_bytes;
  }

  void join(uint32_t g) {
    const TimedOp& o = op(g);
    if (o.bytes <= 0) return ended(g, now_);
    const double hbm = hbm_bytes(g);
    result_.hbm_bytes += hbm;
    // Struct of arrays: the loops over the transfers in flight run at every change of the rates.
    act_op_.push_back(g);
    left_.push_back(o.bytes);
    cap_.push_back(chip_.path(o.path).peak_bytes_per_cycle);
    use_.push_back(hbm / o.bytes);  // > 1: partial lines
    done_at_.push_back(1e-6 * std::max(1.0, o.bytes));
    rate_.push_back(0);
    rates_dirty_ = true;
  }

  /// Moves every transfer in flight forward to `t` at its current rate.
  void advance(double t) {
    const double dt = t - now_;
    if (dt > 0) {
      for (size_t i = 0; i < left_.size(); ++i) left_[i] -= rate_[i] * dt;
    }
    now_ = t;
  }

  void share() {
    const size_t n = act_op_.size();
    share_fairly(cap_, use_, hbm_per_cycle_, rate_, order_);
    // Then the L2's own bandwidth, over every transfer (hits and misses pass through it).
    double total = 0;
    for (double r : rate_) total += r;
    if (total > l2_per_cycle_) {
      l2_cap_.assign(rate_.begin(), rate_.end());
      ones_.assign(n, 1.0);
      share_fairly(l2_cap_, ones_, l2_per_cycle_, rate_, order_);
    }
    rates_dirty_ = false;
  }

  /// When the first transfer in flight will have moved its bytes. The smallest left / rate is
  /// found by cross-multiplying (one division in all: this runs at every change of the rates).
  double next_transfer_end() {
    double left = 0, rate = 0;
    for (size_t i = 0; i < left_.size(); ++i) {
      const double l = std::max(0.0, left_[i]);
      if (rate_[i] > 0 && (rate == 0 || l * rate < left * rate_[i])) {
        left = l;
        rate = rate_[i];
        closest_ = i;
      }
    }
    return rate > 0 ? now_ + left / rate : kNever;
  }

  void loop() {
    double transfer_end = kNever;
    while (true) {
      settle_due_now();
      if (rates_dirty_) {
        share();
        transfer_end = next_transfer_end();
      }
      const double t_start = starts_.empty() ? kNever : starts_.top().time;
      const double t_fixed = fixed_ends_.empty() ? kNever : fixed_ends_.top().time;
      const double t = std::min({t_start, t_fixed, transfer_end});
      if (t == kNever) break;
      advance(t);
      if (transfer_end <= t && transfer_end <= t_fixed && transfer_end <= t_start) {
        // Every transfer that has moved its bytes ends now (ordered by op index); rounding may
        // leave the one that defined this moment (found with it) a hair short.
        left_[closest_] = 0;
        done_.clear();
        for (size_t i = 0; i < left_.size();) {
          if (left_[i] <= done_at_[i]) {
            done_.push_back(act_op_[i]);
            for (auto* v : {&left_, &cap_, &use_, &done_at_, &rate_}) {
              (*v)[i] = v->back();
              v->pop_back();
            }
            act_op_[i] = act_op_.back();
            act_op_.pop_back();
          } else {
            ++i;
          }
        }
        std::sort(done_.begin(), done_.end());
        for (uint32_t g : done_) ended(g, now_);
        rates_dirty_ = true;
      } else if (t_fixed <= t_start) {
        // Every fixed part that ends at this moment, in op order (cores in phase end many at
        // once): the transfers among them join before the rates are shared again, once.
        do {
          const Event e = fixed_ends_.top();
          fixed_ends_.pop();
          if (op(e.op).kind == OpKind::Transfer) {
            join(e.op);
          } else {
            ended(e.op, now_);
          }
        } while (!fixed_ends_.empty() && fixed_ends_.top().time == now_);
      } else {
        const Event e = starts_.top();
        starts_.pop();
        start(e.op, now_);
      }
    }
  }

  ReplayResult finish() {
    result_.cores.resize(in_.cores.size());
    for (size_t c = 0; c < in_.cores.size(); ++c) {
      const CoreTrace& t = *in_.cores[c];
      CoreReplay& out = result_.cores[c];
      out.end_cycles = core_start(static_cast<uint32_t>(c));
      out.op_start.resize(t.ops.size());
      out.op_end.resize(t.ops.size());
      for (size_t i = 0; i < t.ops.size(); ++i) {
        const uint32_t g = b_.base[c] + static_cast<uint32_t>(i);
        const TimedOp& o = t.ops[i];
        out.op_start[i] = b_.start[g];
        out.op_end[i] = b_.end[g];
        out.end_cycles = std::max(out.end_cycles, b_.end[g]);
        if (o.kind == OpKind::Barrier) continue;
        PipeTotals& p = out.pipes[o.pipe];
        if (o.dep_count > 0) p.wait += std::max(0.0, b_.dep_ready[g] - std::max(0.0, b_.pred_end[g]));
        if (o.kind == OpKind::Sync) {
          if (o.flow && in_.record_spans) {
            for (uint32_t d = 0; d < o.dep_count; ++d) {
              const OpRef& r = t.deps[o.dep_begin + d];
              const uint32_t s = ref(r);
              const int src_slot = static_cast<size_t>(r.core) == c ? -1 : in_.cores[r.core]->slot;
              out.flows.push_back({op(s).instr, o.instr, op(s).pipe, o.pipe, b_.end[s], b_.start[g], src_slot});
            }
          }
          continue;
        }
        const double busy = b_.end[g] - b_.start[g];
        p.busy += busy;
        if (o.on_chip) p.on_chip += busy;
        p.instructions += 1;
        if (in_.record_spans) out.spans.push_back({o.instr, o.pipe, b_.start[g], b_.end[g]});
      }
    }
    return std::move(result_);
  }

  const ReplayInput& in_;
  const ChipProfile& chip_;
  SharedL2 l2_;
  double hbm_per_cycle_, l2_per_cycle_;
  Buffers& kept_;
  Buffers b_;  // work_end: per core and pipe, when its newest Work op ends
  EventQueue starts_, fixed_ends_;
  // The transfers in flight (struct of arrays): op, bytes left, path peak, HBM bytes per byte, the
  // bytes-left threshold at which it counts as done, current rate.
  std::vector<uint32_t> act_op_;
  std::vector<double> left_, cap_, use_, done_at_, rate_;
  std::vector<double> l2_cap_, ones_;  // scratch of the L2 pass
  size_t closest_ = 0;                 // the transfer next_transfer_end found
  std::vector<int> order_;
  std::vector<uint32_t> done_, due_now_;
  bool rates_dirty_ = false;
  double now_ = 0;
  ReplayResult result_;
};

}  // namespace

ReplayResult replay(const ReplayInput& in) {
  thread_local Buffers kept;
  return Replayer(in, kept).run();
}

}  // namespace pto::timing
