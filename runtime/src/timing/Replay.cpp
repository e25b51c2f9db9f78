#include "pto/runtime/timing/Replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>

#include <tbb/parallel_for.h>

#include "../TbbTsan.hpp"
#include "CoreGroups.hpp"
#include "FlowSet.hpp"
#include "SharedL2.hpp"
#include "pto/runtime/timing/ReplayUnless.hpp"
#include "pto/runtime/timing/TraceCopies.hpp"
#include "pto/support/Error.hpp"

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

/// What the replay keeps of one op, in one record of one cache line: the event loop visits the
/// ops of every core in simulated-time order, and one record per op (not a dozen parallel arrays)
/// keeps that to one stream through memory per core, which the host's prefetchers follow. What
/// the ends of other ops change in it is apart (Conditions).
struct alignas(64) OpState {
  double pred_end = -1;           // when the previous op of its pipe ended (-1: none)
  double start = 0, end = 0;
  double head = 0;                // Work: paid when its pipe starts from idle; Transfer: the DMA latency
  double amount = 0;              // Work: the body, cycles; Transfer: bytes
  uint32_t barrier = UINT32_MAX;  // the core's last barrier op before it
  uint32_t issue = 0;             // instructions issued since that barrier (or the core's start)
  uint32_t pipe_next = UINT32_MAX;  // the next op of its pipe
  int32_t region = -1;            // Transfer: its core's CoreTrace::regions index
  uint16_t core = 0;
  OpKind kind = OpKind::Work;
  uint8_t pipe = 0;
  PathId path = PathId::GmToVec;
};
static_assert(sizeof(OpState) == 64);

/// What the end of another op changes in an op: apart from its OpState, a quarter of its size, so
/// that the ends of cross-core flags, whose waits lie far ahead in their cores' runs, touch a
/// compact array that stays in the host's cache rather than records that have left it (flash
/// attention 2048x128 f16: a fifth of the event loop's samples were that miss; its replay right
/// after the run, 1.60 -> 1.49 ms mean of 6 alternating processes on a noisy VM, 4 of 6 faster).
struct Conditions {
  double dep_ready = 0;  // when its deps (flags, mutexes, barriers) have all ended
  uint32_t pending = 0;  // its conditions not yet met: deps, and the pipe's previous op
};

/// The replay's storage. One set per host thread is kept between launches: a launch of tens of
/// thousands of ops would otherwise map, fault in and zero fresh pages every time.
struct Buffers {
  std::vector<uint32_t> base;      // per core, its first global op index; then the op count
  std::vector<uint32_t> dep_base;  // per core, the global index of its first dep
  std::vector<uint32_t> owner;     // per dep (global index), the global op that waits on it
  std::vector<uint32_t> rdeps, rdep_begin;  // op g's dependents: rdeps[rdep_begin[g], rdep_begin[g + 1])
  std::vector<OpState> ops;        // one per op of the launch
  std::vector<Conditions> conditions;  // one per op of the launch
  std::vector<double> work_end;
  std::vector<std::vector<uint32_t>> ready;  // per core, its ops with no condition to wait for, in order
  SharedL2::Storage l2;  // used in place (SharedL2 keeps a reference), not swapped

  void swap(Buffers& o) {
    base.swap(o.base), dep_base.swap(o.dep_base), owner.swap(o.owner), rdeps.swap(o.rdeps), rdep_begin.swap(o.rdep_begin);
    ops.swap(o.ops), conditions.swap(o.conditions), work_end.swap(o.work_end), ready.swap(o.ready);
  }
};

class Replayer {
 public:
  /// Replays the first core of each of `groups`' groups (CoreGroups.hpp), standing for the group:
  /// each of its GM transfers counts once a core of the group in the shares of HBM and L2, and
  /// touches the L2 once a core, at that core's addresses, in the order the cores' own ops would
  /// (run() gives nothing if the L2 answers two cores of a group differently: they would leave
  /// phase). With every core alone, the plain core-by-core replay.
  Replayer(const ReplayInput& in, Buffers& kept, CoreGroups groups, const std::atomic<bool>* stop)
      : in_(in), stop_(stop), chip_(*in.chip), groups_(std::move(groups)), folds_(groups_.folds()),
        l2_(chip_.l2_bytes, chip_.l2_line_bytes, chip_.l2_ways, in.gm_footprint, kept.l2),
        flows_(chip_.hbm_gbps / chip_.clock_ghz, chip_.l2_gbps / chip_.clock_ghz), kept_(kept) {
    for (uint32_t c : groups_.first) {
      traced_.push_back(in.cores[c]);
      start_.push_back(in.core_start.empty() ? 0 : in.core_start[c]);
    }
    joined_.assign(traced_.size(), 0);
    b_.swap(kept_);
  }
  ~Replayer() { b_.swap(kept_); }
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  /// The replay's result; nothing if the cores were copies and the L2 set them apart, or if it
  /// was stopped (stopped()).
  std::optional<ReplayResult> run() {
    build();
    for (const auto& ready : b_.ready) {
      for (uint32_t g : ready) schedule(g);  // in op order, as a scan of every op would find them
    }
    if (!loop()) return std::nullopt;
    ReplayResult r = finish();
    r.folded = folds_;
    return r;
  }
  /// Whether the stop flag ended the replay.
  bool stopped() const { return stopped_; }

 private:
  /// The TimedOp behind global op g.
  const TimedOp& op(uint32_t g) const {
    const uint32_t c = b_.ops[g].core;
    return traced_[c]->ops[g - b_.base[c]];
  }

  void build() {
    const size_t n_cores = traced_.size();
    b_.base.assign(n_cores + 1, 0);
    b_.dep_base.assign(n_cores + 1, 0);
    for (size_t c = 0; c < n_cores; ++c) {
      b_.base[c + 1] = b_.base[c] + static_cast<uint32_t>(traced_[c]->ops.size());
      b_.dep_base[c + 1] = b_.dep_base[c] + static_cast<uint32_t>(traced_[c]->deps.size());
    }
    const uint32_t n = b_.base.back();
    b_.ops.resize(n);
    b_.conditions.assign(n, Conditions{});
    b_.owner.resize(b_.dep_base.back());
    b_.work_end.assign(n_cores * kPipeCount, -1);
    b_.ready.resize(n_cores);
    // First each op's own fields (the cores in parallel: each writes only its own records).
    for_each_core([&](size_t c) {
      const CoreTrace& t = *traced_[c];
      std::array<uint32_t, kPipeCount> last{};
      last.fill(UINT32_MAX);
      size_t owned = 0;  // CoreTrace: every dep belongs to one op, in op order
      std::vector<uint32_t>& ready = b_.ready[c];
      ready.clear();
      for (size_t i = 0; i < t.ops.size(); ++i) {
        const uint32_t g = b_.base[c] + static_cast<uint32_t>(i);
        const TimedOp& o = t.ops[i];
        OpState& st = b_.ops[g];
        st = OpState{};
        st.head = o.head;
        st.amount = o.kind == OpKind::Transfer ? o.bytes : o.body;
        Conditions& cond = b_.conditions[g];
        cond.pending = o.dep_count;
        if (o.dep_begin != owned || owned + o.dep_count > t.deps.size()) throw_bad_deps();
        std::fill_n(b_.owner.begin() + b_.dep_base[c] + o.dep_begin, o.dep_count, g);
        owned += o.dep_count;
        st.barrier = o.barrier >= 0 ? b_.base[c] + static_cast<uint32_t>(o.barrier) : UINT32_MAX;
        st.issue = o.issue;
        st.region = o.region;
        st.core = static_cast<uint16_t>(c);
        st.kind = o.kind;
        st.pipe = o.pipe;
        st.path = o.path;
        if (o.kind != OpKind::Barrier) {
          uint32_t& prev = last[o.pipe];
          if (prev != UINT32_MAX) {
            b_.ops[prev].pipe_next = g;
            cond.pending += 1;
          }
          prev = g;
        }
        if (cond.pending == 0) ready.push_back(g);
      }
      if (owned != t.deps.size()) throw_bad_deps();
    });
    // Reverse deps, CSR, from the dep arrays and their owners (compact arrays, not the op
    // records; deps may cross cores: one thread). Op g's count of dependents goes to
    // rdep_begin[g + 2]; after the prefix sum rdep_begin[g + 1] is where g's dependents begin, and
    // serves as the fill cursor: filled, it has moved to where g + 1's begin.
    b_.rdep_begin.assign(n + 2, 0);
    for (size_t c = 0; c < n_cores; ++c) {
      for (const OpRef& d : traced_[c]->deps) b_.rdep_begin[ref(d) + 2] += 1;
    }
    for (uint32_t g = 1; g <= n; ++g) b_.rdep_begin[g + 1] += b_.rdep_begin[g];
    b_.rdeps.resize(b_.rdep_begin[n + 1]);
    for (size_t c = 0; c < n_cores; ++c) {
      const std::vector<OpRef>& deps = traced_[c]->deps;
      const uint32_t* owner = b_.owner.data() + b_.dep_base[c];
      for (size_t j = 0; j < deps.size(); ++j) b_.rdeps[b_.rdep_begin[ref(deps[j]) + 1]++] = owner[j];
    }
  }

  [[noreturn]] static void throw_bad_deps() {
    throw InternalError("replay: a trace's deps are not its ops' deps in op order (CoreTrace::deps)");
  }

  /// The global op of `r` (folded, its core is the first of its group: folded cores wait on their own ops only).
  uint32_t ref(const OpRef& r) const {
    const size_t c = static_cast<size_t>(r.core);
    return b_.base[folds_ ? groups_.group[c] : c] + static_cast<uint32_t>(r.op);
  }

  /// When traced core c (the first of group c) starts.
  double core_start(uint32_t c) const { return start_[c]; }

  /// When the scalar unit has issued op g.
  double issue_ready(const OpState& st) const {
    const double from = st.barrier != UINT32_MAX ? b_.ops[st.barrier].end : core_start(st.core);
    return from + st.issue * chip_.issue_cycles;
  }

  /// All of g's conditions hold: queue its start.
  void schedule(uint32_t g) {
    const OpState& st = b_.ops[g];
    const double t = std::max({b_.conditions[g].dep_ready, st.pred_end, issue_ready(st)});
    // A sync point due now takes no time and no shared resource: settle it at once (most ops of a
    // pipelined kernel are flags and mutexes), not through the queue.
    const OpKind kind = st.kind;
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
      b_.ops[g].start = now_;
      ended(g, now_);
    }
  }

  void ended(uint32_t g, double t) {
    OpState& st = b_.ops[g];
    st.end = t;
    if (st.pipe_next != UINT32_MAX) {
      OpState& next = b_.ops[st.pipe_next];
      next.pred_end = t;
      if (--b_.conditions[st.pipe_next].pending == 0) schedule(st.pipe_next);
    }
    for (uint32_t i = b_.rdep_begin[g], e = b_.rdep_begin[g + 1]; i < e; ++i) {
      const uint32_t s = b_.rdeps[i];
      Conditions& dep = b_.conditions[s];
      dep.dep_ready = std::max(dep.dep_ready, t);
      if (--dep.pending == 0) schedule(s);
    }
  }

  void start(uint32_t g, double now) {
    OpState& o = b_.ops[g];
    o.start = now;
    switch (o.kind) {
      case OpKind::Sync:
      case OpKind::Barrier: ended(g, now); return;
      case OpKind::Work: {
        // The head is paid when the pipe starts from idle: no work of this pipe ended just as
        // this op starts (pto-isa's vector and cube queues pay it only at an empty queue).
        double& last = b_.work_end[static_cast<size_t>(o.core) * kPipeCount + o.pipe];
        const bool idle = now > last;
        last = now + o.amount + (idle ? o.head : 0);
        fixed_ends_.push({last, g});
        return;
      }
      case OpKind::Transfer: {
        fixed_ends_.push({now + o.head, g});  // the DMA latency, then the bytes
        // Its GM region, read when the latency has passed (join): by then, on a launch of many
        // cores, the region has left the host's cache unless asked for now (flash attention
        // 2048x128 f16: a tenth of the replay's samples were that miss; its event loop 1.04 ->
        // 0.98 ms, medians of 10 alternating runs).
        if (o.region >= 0) __builtin_prefetch(&traced_[o.core]->regions[static_cast<size_t>(o.region)]);
        return;
      }
    }
  }

  /// The bytes of a transfer of core `core` that go to HBM: read misses in L2, or all of a write.
  double hbm_bytes(const OpState& o, size_t core) {
    if (o.region < 0) return o.amount;
    const RegionAt at = region_of(in_.cores, core, static_cast<size_t>(o.region));
    const GmRegion& r = at.region;
    const int64_t lo = r.lo + at.shift, hi = r.hi + at.shift;
    const uint64_t base = r.tensor >= 0 && static_cast<size_t>(r.tensor) < in_.tensor_base.size() ? in_.tensor_base[r.tensor] : 0;
    const uint64_t es = static_cast<uint64_t>(r.elem_bytes);
    const int64_t w = r.width;
    const uint64_t first = base + static_cast<uint64_t>(lo) * es;
    // Most transfers lie within one row (a vector add's tiles): they cost no division.
    const SharedL2::Outcome seen = w <= 0 || hi - lo <= w ? l2_.access(first, static_cast<uint64_t>(hi - lo) * es) : touch_rows(first, base, lo, hi, w, es);
    if (r.write) {
      result_.gm_write_bytes += o.amount;
      return o.amount;
    }
    result_.l2_read_miss_bytes += o.amount - seen.hit_bytes;
    result_.l2_read_hit_bytes += seen.hit_bytes;
    return seen.fetched_bytes;
  }

  /// The L2 touch of a transfer over more than one row of a view `w` elements wide: [lo, hi)
  /// flattened, `first` the address of lo, `base` the tensor's.
  SharedL2::Outcome touch_rows(uint64_t first, uint64_t base, int64_t lo, int64_t hi, int64_t w, uint64_t es) {
    const int64_t c0 = lo % w, r0 = lo / w, r1 = (hi - c0 - 1) / w, c1 = hi - r1 * w;
    const uint64_t line = static_cast<uint64_t>(chip_.l2_line_bytes);
    // Whole rows that start on line boundaries are one contiguous range, and touching it at once
    // gives what touching it row by row does (no line is shared by two rows): one call, not one a
    // row (a 128-row tile of flash attention's K or V).
    if (c0 == 0 && c1 == w && first % line == 0 && (static_cast<uint64_t>(w) * es) % line == 0) {
      return l2_.access(first, static_cast<uint64_t>(hi - lo) * es);
    }
    // Else rows r0..r1 of columns [c0, c1) of the view (the rectangle whose flattened span is [lo, hi)).
    return l2_.access_rows(base + static_cast<uint64_t>(r0 * w + c0) * es, static_cast<uint64_t>(c1 - c0) * es, static_cast<uint64_t>(w) * es,
                           static_cast<uint64_t>(r1 - r0 + 1));
  }

  void join(uint32_t g) {
    const OpState& o = b_.ops[g];
    if (o.amount <= 0) return ended(g, now_);
    if (folds_) {  // after this moment's other joins (join_copies)
      joined_[o.core] = 1;
      return folded_joins_.push_back(g);
    }
    const double hbm = hbm_bytes(o, o.core);  // not folded: each core its own group
    result_.hbm_bytes += hbm;
    join_flow(g, hbm, 1);
  }

  void join_flow(uint32_t g, double hbm, uint32_t copies) {
    const OpState& o = b_.ops[g];
    flows_.join(g, o.amount, chip_.path(o.path).peak_bytes_per_cycle, hbm / o.amount, copies);  // use > 1: partial lines
  }

  /// The transfers of the traced cores that joined at this moment, for every core of their
  /// groups: the cores touch their L2 lines in core order (the order of their own ops' indices),
  /// then each transfer joins the flows standing for its group. False if a core's transfer goes to
  /// HBM with other bytes than its group's first core's (it would move at another rate: the cores
  /// are no longer copies).
  bool join_copies() {
    folded_hbm_.resize(folded_joins_.size());
    for (size_t c = 0; c < in_.cores.size(); ++c) {
      const uint32_t group = groups_.group[c];
      if (!joined_[group]) continue;
      const bool first = groups_.first[group] == c;
      for (size_t i = 0; i < folded_joins_.size(); ++i) {
        const OpState& o = b_.ops[folded_joins_[i]];
        if (o.core != group) continue;
        const double hbm = hbm_bytes(o, c);
        if (first) {
          folded_hbm_[i] = hbm;
        } else if (hbm != folded_hbm_[i]) {
          return false;
        }
        result_.hbm_bytes += hbm;
      }
    }
    for (size_t i = 0; i < folded_joins_.size(); ++i) {
      const uint32_t group = b_.ops[folded_joins_[i]].core;
      join_flow(folded_joins_[i], folded_hbm_[i], groups_.size[group]);
      joined_[group] = 0;
    }
    folded_joins_.clear();
    return true;
  }

  /// Moves every transfer in flight forward to `t` at its current rate.
  void advance(double t) {
    flows_.advance(t - now_);
    now_ = t;
  }

  /// False if the cores were copies and the L2 set them apart (join_copies), or the stop flag was
  /// set (looked at every kStopEvery events: an atomic load a few hundred ops).
  bool loop() {
    double transfer_end = kNever;
    for (uint32_t events = 1;; ++events) {
      if (stop_ != nullptr && events % kStopEvery == 0 && stop_->load(std::memory_order_relaxed)) {
        stopped_ = true;
        return false;
      }
      settle_due_now();
      if (flows_.changed()) transfer_end = now_ + flows_.until_next_end();
      const double t_start = starts_.empty() ? kNever : starts_.top().time;
      const double t_fixed = fixed_ends_.empty() ? kNever : fixed_ends_.top().time;
      const double t = std::min({t_start, t_fixed, transfer_end});
      if (t == kNever) break;
      advance(t);
      if (transfer_end <= t && transfer_end <= t_fixed && transfer_end <= t_start) {
        // Every transfer that has moved its bytes ends now (ordered by op index); rounding may
        // leave the one that defined this moment a hair short.
        done_.clear();
        flows_.take_done(done_);
        std::sort(done_.begin(), done_.end());
        for (uint32_t g : done_) ended(g, now_);
      } else if (t_fixed <= t_start) {
        // Every fixed part that ends at this moment, in op order (cores in phase end many at
        // once): the transfers among them join before the rates are shared again, once.
        do {
          const Event e = fixed_ends_.top();
          fixed_ends_.pop();
          if (b_.ops[e.op].kind == OpKind::Transfer) {
            join(e.op);
          } else {
            ended(e.op, now_);
          }
        } while (!fixed_ends_.empty() && fixed_ends_.top().time == now_);
        if (!folded_joins_.empty() && !join_copies()) return false;
      } else {
        const Event e = starts_.top();
        starts_.pop();
        start(e.op, now_);
      }
    }
    return true;
  }

  /// Runs f(core) for every core of the launch, on the host's threads when there are many ops
  /// (f must touch only that core's records).
  template <class F>
  void for_each_core(F&& f) const {
    const size_t n = traced_.size();
    if (n < 2 || b_.base.back() < kParallelOps) {
      for (size_t c = 0; c < n; ++c) f(c);
      return;
    }
    int handoff = 0;  // TSan's view of the hand-off into and out of TBB's workers
    PTO_TSAN_RELEASE(&handoff);
    tbb::parallel_for(size_t{0}, n, [&](size_t c) {
      PTO_TSAN_ACQUIRE(&handoff);
      f(c);
      PTO_TSAN_RELEASE(&handoff);
    });
    PTO_TSAN_ACQUIRE(&handoff);
  }
  // Below this, one thread is faster: the event loop then writes every record, and records the
  // other host thread built must first come back from its cache (hand-built vector-add traces:
  // 24.6K ops 14% faster on one thread, 147K ops 10% slower; A/B, alternating processes).
  static constexpr uint32_t kParallelOps = 1u << 16;

  ReplayResult finish() {
    result_.cores.resize(in_.cores.size());
    for_each_core([&](size_t c) {
      const CoreTrace& t = *traced_[c];
      const size_t core = groups_.first[c];
      CoreReplay& out = result_.cores[core];
      out.end_cycles = core_start(static_cast<uint32_t>(c));
      if (in_.op_times) {
        out.op_start.resize(t.ops.size());
        out.op_end.resize(t.ops.size());
      }
      for (size_t i = 0; i < t.ops.size(); ++i) {
        const uint32_t g = b_.base[c] + static_cast<uint32_t>(i);
        const TimedOp& o = t.ops[i];
        const OpState& st = b_.ops[g];
        if (in_.op_times) {
          out.op_start[i] = st.start;
          out.op_end[i] = st.end;
        }
        out.end_cycles = std::max(out.end_cycles, st.end);
        if (o.kind == OpKind::Barrier) continue;
        PipeTotals& p = out.pipes[o.pipe];
        if (o.dep_count > 0) p.wait += std::max(0.0, b_.conditions[g].dep_ready - std::max(0.0, st.pred_end));
        if (o.kind == OpKind::Sync) {
          if (o.flow && in_.record_spans) {
            for (uint32_t d = 0; d < o.dep_count; ++d) {
              const OpRef& r = t.deps[o.dep_begin + d];
              const uint32_t s = ref(r);
              const int src_slot = static_cast<size_t>(r.core) == core ? -1 : in_.cores[r.core]->slot;
              out.flows.push_back({op(s).instr, o.instr, op(s).pipe, o.pipe, b_.ops[s].end, st.start, src_slot});
            }
          }
          continue;
        }
        const double busy = st.end - st.start;
        p.busy += busy;
        if (o.on_chip) p.on_chip += busy;
        p.convert += std::min(busy, static_cast<double>(o.convert));
        p.instructions += 1;
        if (in_.record_spans) out.spans.push_back({o.instr, o.pipe, st.start, st.end});
      }
    });
    if (folds_) {  // the other cores of each group: copies of its first
      for (size_t c = 0; c < result_.cores.size(); ++c) {
        const size_t first = groups_.first[groups_.group[c]];
        if (first != c) result_.cores[c] = result_.cores[first];
      }
    }
    return std::move(result_);
  }

  static constexpr uint32_t kStopEvery = 256;

  const ReplayInput& in_;
  const std::atomic<bool>* stop_;  // null: runs to its end
  bool stopped_ = false;
  const ChipProfile& chip_;
  const CoreGroups groups_;                // the cores as copies of one another (each alone: none folded)
  const bool folds_;                       // some group has more than one core
  std::vector<const CoreTrace*> traced_;  // per group, its first core's trace: the ops replayed
  std::vector<double> start_;             // per group, when its cores start
  SharedL2 l2_;
  FlowSet flows_;  // the transfers in flight
  Buffers& kept_;
  Buffers b_;  // work_end: per core and pipe, when its newest Work op ends
  EventQueue starts_, fixed_ends_;
  std::vector<uint32_t> done_, due_now_;
  std::vector<uint32_t> folded_joins_;  // folds_: the traced cores' transfers that joined at this moment
  std::vector<double> folded_hbm_;      // their HBM bytes (each core's of the group, all equal)
  std::vector<uint8_t> joined_;         // per group: one of folded_joins_ is its
  double now_ = 0;
  ReplayResult result_;
};

}  // namespace

namespace {

/// replay(in), or nothing if `stop` (may be null) was set before it ended.
std::optional<ReplayResult> replay_with(const ReplayInput& in, const std::atomic<bool>* stop) {
  thread_local Buffers kept;
  if (CoreGroups groups = group_copies(in); groups.folds()) {
    Replayer folded(in, kept, std::move(groups), stop);
    if (std::optional<ReplayResult> r = folded.run()) return r;
    if (folded.stopped()) return std::nullopt;
  }
  if (!has_copies(in.cores)) return Replayer(in, kept, CoreGroups::each_alone(in.cores.size()), stop).run();
  // Core by core, each core's own trace: the copies made whole.
  std::vector<CoreTrace> whole;
  std::vector<const CoreTrace*> made;
  ReplayInput each = in;
  each.cores = whole_traces(in.cores, whole, made);
  return Replayer(each, kept, CoreGroups::each_alone(in.cores.size()), stop).run();
}

}  // namespace

ReplayResult replay(const ReplayInput& in) { return *replay_with(in, nullptr); }

std::optional<ReplayResult> replay_unless(const ReplayInput& in, const std::atomic<bool>& stop) { return replay_with(in, &stop); }

}  // namespace pto::timing
