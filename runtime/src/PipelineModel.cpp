#include "pto/runtime/PipelineModel.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "pto/backend/KernelABI.hpp"
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/support/Prefetch.hpp"

namespace pto {

// ------------------------------------------------------------------------------------ CostModel

CostModel::Cost CostModel::transfer(PathId path, double bytes) const {
  const DataPath& p = chip_->path(path);
  return {p.latency_cycles, bytes / p.peak_bytes_per_cycle};
}

double CostModel::conversion(PathId path, double bytes, ir::Conversion c, DType dtype, int64_t gm_row_bytes) const {
  if (c == ir::Conversion::None) return 0;
  const double plain = bytes / chip_->path(path).peak_bytes_per_cycle;
  return plain * (1 / chip_->layouts.efficiency(c, dtype, gm_row_bytes) - 1);
}

CostModel::Cost CostModel::vector(const ir::VecOpCounts& ops, DType dtype, double elements) const {
  const double bytes = elements * static_cast<double>(dtype_size(dtype));
  const double repeats = std::ceil(bytes / chip_->vector_repeat_bytes);
  const bool narrow = dtype_size(dtype) == 2;
  const bool unaligned = std::fmod(bytes, chip_->vector_repeat_bytes) != 0;
  // A fused expression is one vector instruction per operation on the hardware; their heads
  // overlap in the pipe (one fill), their bodies add up.
  Cost c;
  int n = 0;
  for (int i = 0; i < ir::kVecOpCount; ++i) {
    if (ops[i] == 0) continue;
    const VectorOpCost& k = chip_->vector_ops[static_cast<size_t>(i)];
    c.head = std::max(c.head, k.head);
    c.body += ops[i] * ((narrow ? k.per_repeat_16bit : k.per_repeat) * repeats + (unaligned ? chip_->vector_unaligned_cycles : 0));
    n += ops[i];
  }
  if (n == 0) {  // a copy: one unary-class pass
    const VectorOpCost& k = chip_->vector_op(ir::VecOp::Unary);
    c = {k.head, k.per_repeat * repeats};
  }
  return c;
}

CostModel::Cost CostModel::vector_function(const ir::VecOpCounts& ops, DType dtype, double elements, bool first) const {
  const double bytes = elements * static_cast<double>(dtype_size(dtype));
  const double repeats = std::ceil(bytes / chip_->vector_repeat_bytes);
  const bool narrow = dtype_size(dtype) == 2;
  double body = chip_->vector_vf_op_cycles * repeats;  // the store of the result register
  for (int i = 0; i < ir::kVecOpCount; ++i) {
    if (ops[i] == 0) continue;
    const auto op = static_cast<ir::VecOp>(i);
    const VectorOpCost& k = chip_->vector_ops[static_cast<size_t>(i)];
    const bool own_rate = op == ir::VecOp::Exp || op == ir::VecOp::Log || op == ir::VecOp::Sqrt || op == ir::VecOp::Rsqrt ||
                          op == ir::VecOp::Div || op == ir::VecOp::Reduce;
    const double rate = own_rate ? (narrow ? k.per_repeat_16bit : k.per_repeat) : chip_->vector_vf_op_cycles;
    body += ops[i] * rate * repeats;
  }
  return {first ? chip_->vector_vf_head_cycles : 0.0, body};
}

CostModel::Cost CostModel::matmul(DType dtype, double fractals) const {
  return {chip_->cube_head_cycles, fractals * chip_->cube_rate(dtype).cycles};
}

// ------------------------------------------------------------------------------------ CoreModel

std::string RaceReport::message() const {
  if (between_blocks) {
    return fmt::format("{} race on {} between blocks ({}x): {} and {} touch the same elements, and nothing orders the blocks of a launch "
                       "but sync_all; give each block its own region, or put a pl::sync_all between the two",
                       kind, resource, count, first, second);
  }
  return fmt::format("{} race on {} (core {}, {}x): {} and {} are not ordered by any flag, barrier or mutex", kind, resource, core,
                     count, first, second);
}

CoreModel::CoreModel(const CompiledKernel* kernel, const CostModel& cost, int core, bool race_check, int slot, GmRaceState* gm,
                     int kind, int trace_core)
    : kernel_(kernel), cost_(cost), core_(core), race_check_(race_check), slot_(slot), gm_(gm ? gm : &own_gm_), kind_(kind),
      trace_core_(trace_core) {
  trace_.kind = kind;
  trace_.slot = slot;
  if (kernel_) {
    const auto& k = kernel_->ir;
    if (k.mode != ir::KernelMode::Mix) clock_width_ = kPipeCount;  // one core per block: only its pipes tick
    if (k.sync_all != ir::SyncAllScope::None && !ir::takes_part_in_sync_all(k.sync_all, k.mode, static_cast<ir::CoreKind>(kind))) epoch_ = -1;
    int64_t base = 0;
    for (const auto& g : kernel_->ir.groups) {
      group_base_.push_back(base);
      base += g.depth;
    }
    alias_slots();
    // Slots that auto_mutex orders completely need no race check; with placed tiles, only when
    // every group is so ordered (an aliased slot is one resource to the checker across groups).
    const auto& ordered = kernel_->mutex_ordered;
    if (!ordered.empty() && (alias_.empty() || std::all_of(ordered.begin(), ordered.end(), [](bool o) { return o; }))) ordered_ = &ordered;
    for (const auto& info : kernel_->ir.instrs) {
      if (!info.peer_slots) continue;
      if (shared_group_.empty()) shared_group_.assign(kernel_->ir.groups.size(), false);  // kernels with cross-core moves only
      shared_group_[info.tiles.at(0).first] = true;
    }
  }
}

void CoreModel::alias_slots() {
  const auto& groups = kernel_->ir.groups;
  if (std::none_of(groups.begin(), groups.end(), [](const ir::TileGroup& g) { return !g.addrs.empty(); })) return;
  // Tile slots whose bytes overlap (placed tiles aliasing on purpose, or by accident) are one
  // resource: each takes the key of the first slot it overlaps.
  struct Slot {
    ir::MemSpace space;
    int64_t lo, hi, key;
  };
  std::vector<Slot> seen;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& grp = groups[g];
    const int64_t size = grp.elems() * static_cast<int64_t>(dtype_size(grp.dtype));
    for (int s = 0; s < grp.depth; ++s) {
      const int64_t lo = grp.offset + s * grp.slot_bytes, own = group_base_[g] + s;
      int64_t key = own;
      for (const Slot& o : seen) {
        if (o.space == grp.space && lo < o.hi && o.lo < lo + size) {
          key = o.key;
          break;
        }
      }
      alias_.push_back(key);
      seen.push_back({grp.space, lo, lo + size, key});
    }
  }
}

namespace {

/// Appends to a recording vector, first asking for the cache line 256 bytes ahead, in the
/// state a store needs: recording storage is reused from launch to launch, and the launch's own GM
/// traffic has evicted it or the other host thread (the replay) holds it, so every new line is a
/// miss that would otherwise stall the core it runs on.
template <class T>
void prefetch_ahead(const std::vector<T>& v) {
  constexpr size_t kAhead = (256 + sizeof(T) - 1) / sizeof(T);
  prefetch_for_write(v.data() + v.size() + kAhead);
}
template <class T>
void append(std::vector<T>& v, const T& x) {
  prefetch_ahead(v);
  v.push_back(x);
}

// Race-state keys: a tile slot of this core (>= 0), GM tensor t (-(t + 1)), or a tile slot that
// cross-core moves write, kept with GM in the block's shared state, per owning core.
constexpr int64_t kSharedTileKeys = int64_t{1} << 40;
constexpr int64_t kSharedTileOwnerStride = int64_t{1} << 32;
int64_t shared_tile_key(int owner_slot, int64_t tile) { return -(kSharedTileKeys + owner_slot * kSharedTileOwnerStride + tile); }
bool is_gm_key(int64_t key) { return key < 0 && key > -kSharedTileKeys; }
}  // namespace

void CoreModel::reuse(CoreRecording&& storage) {
  storage.trace.ops.clear();
  storage.trace.deps.clear();
  storage.trace.regions.clear();
  storage.trace.kind = trace_.kind;
  storage.trace.slot = trace_.slot;
  storage.trace.copy_of = -1;
  storage.trace.shift.clear();
  trace_ = std::move(storage.trace);
  original_ = nullptr;
  storage.gm_spans.clear();
  gm_spans_ = std::move(storage.gm_spans);
  // Tile slots' race state: each slot's histories are emptied when its clock index is first used
  // (access), so clearing the bits empties the map without destroying and re-making the slots.
  storage.resources.for_each([](ResourceState& s) { s.used = 0; });
  resources_ = std::move(storage.resources);
}

template <class Fill>
int CoreModel::record(const Fill& fill, std::span<const timing::OpRef> deps) {
  const int index = static_cast<int>(trace_.ops.size());
  prefetch_ahead(trace_.ops);
  timing::TimedOp& op = trace_.ops.emplace_back();
  fill(op);
  op.barrier = barrier_op_;
  op.issue = issued_;
  op.dep_begin = static_cast<uint32_t>(trace_.deps.size());
  prefetch_ahead(trace_.deps);
  // Field by field, for the same reason as `fill` (the callers' refs are fresh stack stores).
  auto add_deps = [&](std::span<const timing::OpRef> refs) {
    for (const timing::OpRef& d : refs) trace_.deps.push_back({d.core, d.op});
  };
  add_deps(deps);
  if (op.kind != timing::OpKind::Barrier) {
    // The first op of a pipe after a barrier waits for it (later ones follow on the pipe).
    Pipe& p = pipes_[op.pipe];
    if (!p.pending.empty()) {
      add_deps(p.pending);
      p.pending.clear();
    }
    if (barrier_op_ >= 0 && p.seen_barrier != barrier_op_) {
      trace_.deps.push_back({trace_core_, barrier_op_});
      p.seen_barrier = barrier_op_;
    }
    p.last_op = index;
  }
  op.dep_count = static_cast<uint16_t>(trace_.deps.size() - op.dep_begin);
  return index;
}

void CoreModel::tick(int q, int instr, std::span<const Access> tiles) {
  issued_ += 1;
  pipes_[q].clock[at(q)] += 1;
  if (race_check_) {
    for (const auto& a : tiles) {
      access(a.resource, q, a.write, a.lo, a.hi, instr, a.width);
      if (keep_accesses_) {
        // A tile of this core, or one of its block that cross-core moves write (GM is recorded in exec).
        const uint8_t scope = a.resource >= 0 ? 0 : 1;
        audit_.push_back({pipes_[q].last_op, instr, static_cast<uint8_t>(q), scope, a.write, false, 1, a.resource, a.lo, a.hi, a.width});
      }
    }
  }
}

int CoreModel::record_work(ir::Pipe pipe, const CostModel::Cost& c, int instr, std::span<const Access> tiles, bool on_chip, double convert) {
  const int index = record([&](timing::TimedOp& op) {
    op.head = c.head;
    op.body = c.body;
    op.convert = static_cast<float>(convert);
    op.instr = instr;
    op.pipe = static_cast<uint8_t>(pipe);
    op.on_chip = on_chip;
  });
  tick(static_cast<int>(pipe), instr, tiles);
  return index;
}

int CoreModel::run(ir::Pipe pipe, double cycles, int instr, std::span<const Access> tiles, double head) {
  return record_work(pipe, {head, cycles}, instr, tiles, false);
}

int CoreModel::transfer(ir::Pipe pipe, PathId path, double bytes, const timing::GmRegion& region, int instr,
                        std::span<const Access> tiles, double convert) {
  // The region copied field by field: each load then reads what one store of the caller wrote,
  // which the store buffer forwards (a wider copy waits for every store before it).
  const int32_t region_index = static_cast<int32_t>(trace_.regions.size());
  prefetch_ahead(trace_.regions);
  timing::GmRegion& r = trace_.regions.emplace_back();
  r.tensor = region.tensor;
  r.elem_bytes = region.elem_bytes;
  r.lo = region.lo;
  r.hi = region.hi;
  r.width = region.width;
  r.write = region.write;
  const double head = cost_.transfer(path, bytes).head + convert;
  const int index = record([&](timing::TimedOp& op) {
    op.kind = timing::OpKind::Transfer;
    op.head = head;
    op.convert = static_cast<float>(convert);
    op.bytes = bytes;
    op.instr = instr;
    op.pipe = static_cast<uint8_t>(pipe);
    op.path = path;
    op.region = region_index;
  });
  tick(static_cast<int>(pipe), instr, tiles);
  return index;
}

int CoreModel::record_set(ir::Pipe pipe, int instr) {
  return record([&](timing::TimedOp& op) {
    op.kind = timing::OpKind::Sync;
    op.instr = instr;
    op.pipe = static_cast<uint8_t>(pipe);
  });
}

int CoreModel::record_wait(ir::Pipe pipe, std::span<const timing::OpRef> deps, int instr, bool flow) {
  return record(
      [&](timing::TimedOp& op) {
        op.kind = timing::OpKind::Sync;
        op.instr = instr;
        op.pipe = static_cast<uint8_t>(pipe);
        op.flow = flow;
      },
      deps);
}

void CoreModel::set_flag(ir::Pipe src, ir::Pipe dst, int64_t event, int instr) {
  if (event < 0 || event > 15) return fail(fmt::format("set_flag event id {} is out of range 0..15", event), instr);
  const int op = record_set(src, instr);
  flags_[{static_cast<int>(src), static_cast<int>(dst), event}].push_back({pipes_[static_cast<int>(src)].clock, op});
}

void CoreModel::wait_flag(ir::Pipe src, ir::Pipe dst, int64_t event, int instr) {
  if (event < 0 || event > 15) return fail(fmt::format("wait_flag event id {} is out of range 0..15", event), instr);
  auto it = flags_.find({static_cast<int>(src), static_cast<int>(dst), event});
  if (it == flags_.end() || it->second.empty()) {
    return fail(fmt::format("deadlock: wait_flag({} -> {}, event {}) waits for a set_flag that was never issued before it; "
                            "pipe {} would wait forever",
                            ir::pipe_name(src), ir::pipe_name(dst), event, ir::pipe_name(dst)),
                instr);
  }
  const Flag f = it->second.front();
  it->second.erase(it->second.begin());
  const timing::OpRef dep{trace_core_, f.op};
  record_wait(dst, std::span(&dep, 1), instr, true);
  Pipe& d = pipes_[static_cast<int>(dst)];
  join_clock(d.clock, f.clock);
}

CoreModel::CrossFlag CoreModel::cross_set(ir::Pipe pipe, int instr) {
  const int op = record_set(pipe, instr);
  return {pipes_[static_cast<int>(pipe)].clock, {trace_core_, op}};
}

void CoreModel::cross_wait(ir::Pipe pipe, std::span<const CrossFlag> flags, int instr) {
  std::array<timing::OpRef, 4> deps;
  size_t n = 0;
  for (const auto& f : flags) {
    if (f.op.op >= 0 && n < deps.size()) deps[n++] = f.op;
  }
  record_wait(pipe, std::span(deps.data(), n), instr, true);
  Pipe& d = pipes_[static_cast<int>(pipe)];
  for (const auto& f : flags) {
    join_clock(d.clock, f.clock);
  }
}

void CoreModel::barrier(ir::Pipe pipe) {
  if (pipe != ir::Pipe::ALL) return;  // a pipe is already in order with itself
  ++barriers_;
  drain();
}

CoreModel::Arrival CoreModel::sync_all_arrive(int instr) {
  drain();
  trace_.ops[static_cast<size_t>(barrier_op_)].instr = instr;
  return {{trace_core_, barrier_op_}, pipes_[0].clock};
}

void CoreModel::sync_all_leave(int instr, std::span<const timing::OpRef> arrivals, const Clock& joined) {
  record(
      [&](timing::TimedOp& op) {
        op.body = cost_.chip().sync_all_cycles;
        op.instr = instr;
        op.pipe = static_cast<uint8_t>(ir::Pipe::S);
      },
      arrivals);
  for (auto& p : pipes_) {
    join_clock(p.clock, joined);
  }
  drain();
  if (epoch_ >= 0) ++epoch_;
}

void CoreModel::drain() {
  std::array<timing::OpRef, kPipeCount + 1> deps;
  size_t n = 0;
  Clock joined{};
  for (const auto& p : pipes_) {
    if (p.last_op >= 0) deps[n++] = {trace_core_, p.last_op};
    join_clock(joined, p.clock);
  }
  if (barrier_op_ >= 0) deps[n++] = {trace_core_, barrier_op_};
  barrier_op_ = record([](timing::TimedOp& op) { op.kind = timing::OpKind::Barrier; }, std::span(deps.data(), n));
  issued_ = 0;
  for (auto& p : pipes_) p.clock = joined;
}

void CoreModel::lock(int64_t mutex, ir::Pipe pipe, int instr) { lock(mutex, pipe, instr, automatic(instr)); }
void CoreModel::unlock(int64_t mutex, ir::Pipe pipe, int instr) { unlock(mutex, pipe, instr, automatic(instr)); }

void CoreModel::lock(int64_t mutex, ir::Pipe pipe, int instr, bool automatic) {
  Mutex& m = mutex_state(mutex);
  if (m.held) return fail(fmt::format("deadlock: mutex {} is locked again before it was unlocked", mutex), instr);
  m.held = true;
  if (m.release_op >= 0) {
    const timing::OpRef dep{trace_core_, m.release_op};
    if (automatic) {
      // auto_mutex's lock sits right before its instruction on the same pipe: the instruction's op
      // carries the wait itself (the same timing, a quarter of the ops to replay).
      pipes_[static_cast<int>(pipe)].pending.push_back(dep);
    } else {
      record_wait(pipe, std::span(&dep, 1), instr, false);
    }
  }
  Pipe& p = pipes_[static_cast<int>(pipe)];
  join_clock(p.clock, m.clock);
}

void CoreModel::unlock(int64_t mutex, ir::Pipe pipe, int instr, bool automatic) {
  Mutex& m = mutex_state(mutex);
  if (!m.held) return fail(fmt::format("mutex_unlock of mutex {} that is not locked", mutex), instr);
  m.held = false;
  // auto_mutex's unlock sits right after its instruction on the same pipe: the release is that
  // instruction's end.
  const int last = pipes_[static_cast<int>(pipe)].last_op;
  m.release_op = automatic && last >= 0 ? last : record_set(pipe, instr);
  std::copy_n(pipes_[static_cast<int>(pipe)].clock.begin(), clock_width_, m.clock.begin());
}

bool CoreModel::automatic(int instr) const {
  return kernel_ && instr >= 0 && instr < static_cast<int>(kernel_->ir.instrs.size()) && kernel_->ir.instrs[instr].automatic;
}


std::span<const CoreModel::Access> CoreModel::tile_accesses(int instr, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  const auto& info = kernel_->ir.instrs[instr];
  const auto& groups = kernel_->ir.groups;
  // A tile that cross-core moves write is compared as a rectangle of its slot: a Vec -> Mat move
  // writes the part [gm_lo, gm_hi) (flattened over the tile's rows), everything else the whole slot.
  // One access per tile, except a cross-core move's destination: one per core whose memory it writes.
  const size_t n = info.tiles.size() + (info.peer_slots ? std::popcount(info.peer_slots) - 1u : 0u);
  if (accesses_.size() < n) accesses_.resize(n);
  Access* out = accesses_.data();
  size_t k = 0;
  for (size_t i = 0; i < info.tiles.size(); ++i) {
    const auto [g, write] = info.tiles[i];
    const int64_t tile = tile_resource(g, slots[i]);
    const auto& grp = groups[g];
    if (i == 0 && info.peer_slots) {
      const bool part = info.peer_slots == 1;  // Vec -> Mat, at an offset
      if (part && gm_hi <= gm_lo) continue;    // nothing written
      for (int s = 0; s < kCoresPerBlock; ++s) {
        if (info.peer_slots & (1u << s)) {
          out[k++] = {shared_tile_key(s, tile), write, part ? gm_lo : 0, part ? gm_hi : grp.rows * grp.cols, grp.cols};
        }
      }
    } else if (!shared_group_.empty() && shared_group_[g]) {
      out[k++] = {shared_tile_key(slot_, tile), write, 0, grp.rows * grp.cols, grp.cols};
    } else if (ordered_ && (*ordered_)[static_cast<size_t>(g)] && !keep_accesses_) {
      continue;  // auto_mutex orders every access to the slot: none can race (the audit still sees it)
    } else {
      out[k++] = {tile, write};
    }
  }
  return {out, k};
}

void CoreModel::exec(int instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  const auto& info = kernel_->ir.instrs[instr];
  const auto& groups = kernel_->ir.groups;
  const std::span<const Access> tiles = race_check_ ? tile_accesses(instr, slots, gm_lo, gm_hi) : std::span<const Access>{};
  int64_t gm_cols = gm_region_width(info, tensor_cols_);
  const double a = static_cast<double>(amount);
  const ir::MemSpace space = info.tiles.empty() ? ir::MemSpace::Vec : groups[info.tiles[0].first].space;
  auto work = [&](const CostModel::Cost& c, bool on_chip) { record_work(info.pipe, c, instr, tiles, on_chip); };
  switch (info.cls) {
    case ir::InstrClass::Load:
    case ir::InstrClass::Store: {
      const bool load = info.cls == ir::InstrClass::Load;
      const auto& t = kernel_->ir.tensors[info.tensor];
      const int64_t es = static_cast<int64_t>(dtype_size(t.dtype));
      const auto& tile = groups[info.tiles[0].first];
      // A column-major (DN) view moved into or out of a DN or ZN tile moves whole columns, which the
      // engines report at kStridedElementBytes per element (a column-strided view, KernelABI.hpp).
      const bool columns = (tile.layout == ir::Layout::DN || tile.layout == ir::Layout::ZN) && tile.rows > 1 && tile.cols > 1;
      const double bytes = columns && es < kStridedElementBytes ? a * static_cast<double>(es) / kStridedElementBytes : a;
      const PathId path = load ? load_path(space) : store_path(space);
      const double convert = cost_.conversion(path, bytes, info.convert, t.dtype, gm_cols > 0 ? gm_cols * es : 0);
      const timing::GmRegion region{info.tensor, static_cast<int32_t>(es), gm_lo, gm_hi, gm_cols, !load};
      transfer(info.pipe, path, bytes, region, instr, tiles, convert);
      (load ? gm_read_ : gm_write_) += bytes;
      break;
    }
    case ir::InstrClass::Move: {
      const PathId path = move_path(space, groups[info.tiles.at(1).first].space);
      CostModel::Cost c = cost_.transfer(path, a);
      const double convert = cost_.conversion(path, a, info.convert, info.dtype, 0);
      c.body += convert;
      record_work(info.pipe, c, instr, tiles, true, convert);
      break;
    }
    case ir::InstrClass::Matmul: {
      // amount: m * n * k MACs; gm_lo, gm_hi: m and n (KernelABI.hpp).
      const double m = static_cast<double>(gm_lo), nn = static_cast<double>(gm_hi);
      const double k = m * nn > 0 ? a / (m * nn) : 0;
      const double fractals = std::ceil(m / 16) * std::ceil(k / cost_.chip().cube_rate(info.dtype).k0) * std::ceil(nn / 16);
      work(cost_.matmul(info.dtype, fractals), false);
      macs_ += a;
      flops_ += 2 * a;
      break;
    }
    case ir::InstrClass::Vector: {
      // A vector function is one launch on registers: its first instruction starts and drains it.
      work(info.vector_function >= 0 ? cost_.vector_function(info.vec_ops, info.dtype, a, info.vf_first)
                                     : cost_.vector(info.vec_ops, info.dtype, a),
           false);
      if (is_floating(info.dtype)) flops_ += a * ir::elementwise_ops(info.vec_ops);
      break;
    }
    case ir::InstrClass::Scalar:
    case ir::InstrClass::Other: work({0, cost_.issue_cycles()}, false); break;
  }
  if (race_check_ && info.tensor >= 0 && gm_hi > gm_lo) {
    const int memory = static_cast<size_t>(info.tensor) < memory_of_.size() ? memory_of_[static_cast<size_t>(info.tensor)] : info.tensor;
    if (!tensor_offsets_.empty()) {  // in the storage's coordinates; a rectangle that no longer starts a row is an interval
      const int64_t shift = tensor_offsets_[static_cast<size_t>(info.tensor)];
      gm_lo += shift;
      gm_hi += shift;
      if (gm_cols > 0 && shift % gm_cols != 0) gm_cols = 0;
    }
    access(-(memory + 1), static_cast<int>(info.pipe), info.gm_write, gm_lo, gm_hi, instr, gm_cols);
    if (keep_gm_spans_) append(gm_spans_, GmSpan{memory, Touch{gm_lo, gm_hi, gm_cols, 0, instr}, info.gm_write, static_cast<int>(info.pipe), epoch_});
    if (keep_accesses_) {
      const int unit = static_cast<int>(dtype_size(kernel_->ir.tensors[info.tensor].dtype));
      audit_.push_back({pipes_[static_cast<int>(info.pipe)].last_op, instr, static_cast<uint8_t>(info.pipe), 2, info.gm_write, info.atomic,
                        unit, -(memory + 1), gm_lo, gm_hi, gm_cols});
    }
  }
}

void CoreModel::sync(int instr, int64_t event, int64_t slot) {
  const SyncInfo& s = kernel_->syncs[static_cast<size_t>(instr)];
  const int64_t mutex = slot >= 0 ? kAutoMutexBase + tile_resource(s.tile_group, slot) : event;
  switch (s.op) {
    case ir::SyncOp::SetFlag: set_flag(s.src, s.dst, event, instr); break;
    case ir::SyncOp::WaitFlag: wait_flag(s.src, s.dst, event, instr); break;
    case ir::SyncOp::Barrier: barrier(s.src); break;
    case ir::SyncOp::MutexLock: lock(mutex, s.pipe, instr, s.automatic); break;
    case ir::SyncOp::MutexUnlock: unlock(mutex, s.pipe, instr, s.automatic); break;
    case ir::SyncOp::CrossSet: case ir::SyncOp::CrossWait: case ir::SyncOp::SyncAll: break;  // the emulator's cross hook
  }
}

bool Touch::overlaps(const Touch& o) const {
  if (width <= 0 || width != o.width) return lo < o.hi && o.lo < hi;
  // The same view: compare rows and columns of the two rectangles.
  auto rect = [w = width](const Touch& t) {
    const int64_t r0 = t.lo / w, c0 = t.lo % w, r1 = (t.hi - c0 - 1) / w;
    return std::array<int64_t, 4>{r0, r1 + 1, c0, t.hi - r1 * w};
  };
  const auto a = rect(*this), b = rect(o);
  return a[0] < b[1] && b[0] < a[1] && a[2] < b[3] && b[2] < a[3];
}

void CoreModel::check_history(const char* kind, int64_t key, const TouchHistory& h, const Touch& t, uint64_t seen, int first_at,
                              int second_at) {
  // Newest first: once an access is ordered before this one (epoch <= seen), so are all older ones.
  for (int i = 0; i < h.count(); ++i) {
    const Touch& old = h.newest(i);
    if (old.epoch <= seen) return;
    if (old.overlaps(t)) return report_race(kind, key, old, first_at, second_at, t.instr);
  }
}

void CoreModel::access(int64_t key, int q, bool write, int64_t lo, int64_t hi, int instr, int64_t width) {
  // Tiles are this core's own; GM and the tiles of cross-core moves are shared by the cores of the block.
  ResourceState& st = key < 0 ? (*gm_)[static_cast<uint64_t>(-(key + 1))] : resources_[static_cast<uint64_t>(key)];
  const Clock& vc = pipes_[q].clock;
  const int self = at(q);
  const Touch t{lo, hi, width, vc[self], instr};
  if (!(st.used & (1u << self))) {  // first access from this clock index (the state may be reused)
    st.writes[self].reset();
    st.reads[self].reset();
  }
  for (uint32_t used = st.used & ~(1u << self); used != 0; used &= used - 1) {
    const int p = std::countr_zero(used);
    check_history(write ? "WAW" : "RAW", key, st.writes[p], t, vc[p], p, self);
    if (write) check_history("WAR", key, st.reads[p], t, vc[p], p, self);
  }
  (write ? st.writes : st.reads)[self].add(t, is_gm_key(key) ? TouchHistory::kGmDepth : 1);
  st.used |= 1u << self;
}

std::string gm_memory_name(const CompiledKernel* kernel, int memory, std::span<const int> memory_of) {
  auto name = [&](int t) { return kernel ? kernel->ir.tensors[static_cast<size_t>(t)].name : std::to_string(t); };
  std::vector<std::string> given;
  for (size_t t = 0; t < memory_of.size(); ++t) {
    if (memory_of[t] == memory) given.push_back(name(static_cast<int>(t)));
  }
  if (given.size() < 2) return fmt::format("GM tensor {}", name(memory));
  std::string list = given[0];
  for (size_t i = 1; i < given.size(); ++i) list += (i + 1 == given.size() ? " and " : ", ") + given[i];
  return fmt::format("GM tensor {} (one buffer passed as {})", name(memory), list);
}

std::string CoreModel::resource_name(int64_t key) const {
  if (key < 0 && !is_gm_key(key)) {
    static constexpr const char* kOwners[kCoresPerBlock] = {"the AIC", "AIV 0", "AIV 1"};
    const int64_t rest = -key - kSharedTileKeys;
    return fmt::format("{} of {}", resource_name(rest % kSharedTileOwnerStride), kOwners[rest / kSharedTileOwnerStride]);
  }
  if (key < 0) return gm_memory_name(kernel_, static_cast<int>(-key - 1), memory_of_);
  if (!kernel_) return fmt::format("resource {}", key);
  for (size_t g = group_base_.size(); g-- > 0;) {
    if (key >= group_base_[g]) return fmt::format("tile {} slot {}", kernel_->ir.groups[g].name, key - group_base_[g]);
  }
  return fmt::format("resource {}", key);
}

std::string CoreModel::describe(int instr, int at) const {
  static constexpr const char* kSlotNames[kCoresPerBlock] = {" on the AIC", " on AIV 0", " on AIV 1"};
  const std::string where = gm_ != &own_gm_ ? kSlotNames[at / kPipeCount] : "";
  const std::string pname = std::string(ir::pipe_name(static_cast<ir::Pipe>(at % kPipeCount))) + where;
  if (!kernel_ || instr < 0) return fmt::format("instruction #{} [{}]", instr, pname);
  return ir::describe_instr(kernel_->ir, instr, pname);
}

void CoreModel::report_race(const char* kind, int64_t key, const Touch& first, int first_at, int second_at, int second_instr) {
  auto k = std::make_tuple(std::string(kind), first.instr, second_instr);
  auto it = race_index_.find(k);
  if (it != race_index_.end()) {
    races_[it->second].count += 1;
    return;
  }
  race_index_[k] = races_.size();
  RaceReport r;
  r.kind = kind;
  r.core = core_;
  r.resource = resource_name(key);
  r.first_instr = first.instr;
  r.second_instr = second_instr;
  r.first = describe(first.instr, first_at);
  r.second = describe(second_instr, second_at);
  r.count = 1;
  races_.push_back(std::move(r));
}

void CoreModel::fail(std::string reason, int instr) {
  if (!failure_) failure_ = std::make_pair(std::move(reason), instr);
}

int64_t gm_region_width(const ir::InstrInfo& info, std::span<const int64_t> tensor_cols) {
  if (info.tensor < 0) return -1;
  return info.gm_view_cols >= 0 ? info.gm_view_cols : tensor_cols[static_cast<size_t>(info.tensor)];
}

bool CoreModel::copyable_from(const CoreModel& twin, int block_cores) const {
  if (!twin.races_.empty() || twin.failure_ || !twin.audit_.empty() || twin.slot_ != slot_ || twin.kind_ != kind_) return false;
  const CoreModel& original = twin.original_ ? *twin.original_ : twin;  // a copy's deps are its original's, moved
  const int first = original.trace_core_ - original.slot_;  // the original's block's first core
  for (const timing::OpRef& d : original.trace_.deps) {
    if (d.core < first || d.core >= first + block_cores) return false;
  }
  return true;
}

bool CoreModel::record_shifted(const CoreModel& twin, std::span<const int64_t> tensor_shift, int block_cores) {
  if (!copyable_from(twin, block_cores)) return false;
  const CoreModel& original = twin.original_ ? *twin.original_ : twin;
  trace_.ops.clear();
  trace_.deps.clear();
  trace_.regions.clear();
  trace_.copy_of = original.trace_core_;
  trace_.shift.assign(tensor_shift.begin(), tensor_shift.end());
  if (twin.original_) {  // twin is itself a copy: the two moves add up
    const std::vector<int64_t>& more = twin.trace_.shift;
    if (trace_.shift.size() < more.size()) trace_.shift.resize(more.size(), 0);
    for (size_t t = 0; t < more.size(); ++t) trace_.shift[t] += more[t];
  }
  gm_spans_.clear();
  original_ = &original;
  gm_read_ = twin.gm_read_, gm_write_ = twin.gm_write_, flops_ = twin.flops_, macs_ = twin.macs_, barriers_ = twin.barriers_;
  return true;
}

CoreTiming CoreModel::counters() const {
  CoreTiming t;
  t.kind = kind_;
  t.macs = macs_;
  t.gm_read_bytes = gm_read_;
  t.gm_write_bytes = gm_write_;
  t.flops = flops_;
  t.barriers = barriers_;
  return t;
}

}  // namespace pto
