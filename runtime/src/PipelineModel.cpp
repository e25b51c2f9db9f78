#include "pto/runtime/PipelineModel.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "pto/runtime/CompiledKernel.hpp"

namespace pto {

// ------------------------------------------------------------------------------------ CostModel

CostModel::CostModel(const ChipProfile& chip, int active_cores, int gm_pipes) : chip_(&chip) {
  hbm_share_ = chip.hbm_gbps * 1e9 / std::max(1, active_cores) / std::max(1, gm_pipes) / (chip.clock_ghz * 1e9);
}

double CostModel::bytes_per_cycle(double gibps) const {
  return std::min(gibps * 1073741824.0 / (chip_->clock_ghz * 1e9), hbm_share_);
}

double CostModel::load_cycles(ir::MemSpace dst, double bytes) const {
  const double gibps = dst == ir::MemSpace::Mat ? chip_->gm_to_mat_gibps : chip_->gm_to_vec_gibps;
  return chip_->issue_cycles + std::ceil(bytes / bytes_per_cycle(gibps));
}

double CostModel::store_cycles(ir::MemSpace src, double bytes) const {
  const double gibps = src == ir::MemSpace::Acc ? chip_->acc_to_gm_gibps : chip_->vec_to_gm_gibps;
  return chip_->issue_cycles + std::ceil(bytes / bytes_per_cycle(gibps));
}

double CostModel::vector_cycles(DType dtype, double elements, int ops) const {
  const double bytes = elements * static_cast<double>(dtype_size(dtype));
  return chip_->issue_cycles + std::max(1, ops) * std::ceil(bytes / chip_->vector_bytes_per_cycle);
}

double CostModel::move_cycles(ir::MemSpace dst, double bytes) const {
  double gibps = chip_->mat_to_left_gibps;
  if (dst == ir::MemSpace::Right) gibps = chip_->mat_to_right_gibps;
  if (dst == ir::MemSpace::Vec) gibps = chip_->acc_to_vec_gibps;
  if (dst == ir::MemSpace::Mat) gibps = chip_->vec_to_mat_gibps;
  return chip_->issue_cycles + std::ceil(bytes / (gibps * 1073741824.0 / (chip_->clock_ghz * 1e9)));
}

double CostModel::matmul_cycles(DType dtype, double macs) const {
  return chip_->issue_cycles + std::ceil(macs / std::max(1.0, chip_->cube_macs(dtype)));
}

// ------------------------------------------------------------------------------------ CoreModel

std::string RaceReport::message() const {
  if (between_blocks) {
    return fmt::format("{} race on {} between blocks ({}x): {} and {} touch the same elements, and the blocks of a launch are "
                       "never ordered; give each block its own region",
                       kind, resource, count, first, second);
  }
  return fmt::format("{} race on {} (core {}, {}x): {} and {} are not ordered by any flag, barrier or mutex", kind, resource, core,
                     count, first, second);
}

CoreModel::CoreModel(const CompiledKernel* kernel, const CostModel& cost, int core, bool race_check, int slot, GmRaceState* gm,
                     int kind)
    : kernel_(kernel), cost_(cost), core_(core), race_check_(race_check), slot_(slot), gm_(gm ? gm : &own_gm_), kind_(kind) {
  if (kernel_) {
    int64_t base = 0;
    for (const auto& g : kernel_->ir.groups) {
      group_base_.push_back(base);
      base += g.depth;
    }
    for (const auto& info : kernel_->ir.instrs) {
      if (!info.peer_slots) continue;
      if (shared_group_.empty()) shared_group_.assign(kernel_->ir.groups.size(), false);  // kernels with cross-core moves only
      shared_group_[info.tiles.at(0).first] = true;
    }
  }
}

namespace {
// Race-state keys: a tile slot of this core (>= 0), GM tensor t (-(t + 1)), or a tile slot that
// cross-core moves write, kept with GM in the block's shared state, per owning core.
constexpr int64_t kSharedTileKeys = int64_t{1} << 40;
constexpr int64_t kSharedTileOwnerStride = int64_t{1} << 32;
int64_t shared_tile_key(int owner_slot, int64_t tile) { return -(kSharedTileKeys + owner_slot * kSharedTileOwnerStride + tile); }
bool is_gm_key(int64_t key) { return key < 0 && key > -kSharedTileKeys; }
}  // namespace

void CoreModel::hold_until(Pipe& p, double t) {
  if (t > p.free_at) {
    p.totals.wait += t - p.free_at;
    p.free_at = t;
  }
}

double CoreModel::run(ir::Pipe pipe, double cycles, int instr, std::span<const Access> tiles) {
  Pipe& p = pipes_[static_cast<int>(pipe)];
  const double start = std::max(issue_at_, p.free_at);
  p.free_at = start + cycles;
  p.totals.busy += cycles;
  if (record_) spans_.push_back({instr, static_cast<int>(pipe), start, p.free_at});
  p.totals.instructions += 1;
  issue_at_ += 1;
  const int q = static_cast<int>(pipe);
  p.clock[at(q)] += 1;
  if (race_check_) {
    for (const auto& a : tiles) access(a.resource, q, a.write, a.lo, a.hi, instr, a.width);
  }
  return p.free_at;
}

void CoreModel::set_flag(ir::Pipe src, ir::Pipe dst, int64_t event, int instr) {
  if (event < 0 || event > 15) return fail(fmt::format("set_flag event id {} is out of range 0..15", event), instr);
  const Pipe& s = pipes_[static_cast<int>(src)];
  flags_[{static_cast<int>(src), static_cast<int>(dst), event}].push_back({s.free_at, s.clock, instr});
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
  Pipe& d = pipes_[static_cast<int>(dst)];
  if (record_) flows_.push_back({f.instr, instr, static_cast<int>(src), static_cast<int>(dst), f.time, std::max(f.time, d.free_at)});
  hold_until(d, f.time);
  for (int i = 0; i < kClockWidth; ++i) d.clock[i] = std::max(d.clock[i], f.clock[i]);
}

CoreModel::CrossFlag CoreModel::cross_set(ir::Pipe pipe, int instr) const {
  const Pipe& p = pipes_[static_cast<int>(pipe)];
  return {std::max(p.free_at, issue_at_), p.clock, instr, static_cast<int>(pipe), slot_};
}

void CoreModel::cross_wait(ir::Pipe pipe, std::span<const CrossFlag> flags, int instr) {
  Pipe& d = pipes_[static_cast<int>(pipe)];
  for (const auto& f : flags) {
    if (record_) flows_.push_back({f.instr, instr, f.pipe, static_cast<int>(pipe), f.time, std::max(f.time, d.free_at), f.slot});
    hold_until(d, f.time);
    for (int i = 0; i < kClockWidth; ++i) d.clock[i] = std::max(d.clock[i], f.clock[i]);
  }
}

void CoreModel::barrier(ir::Pipe pipe) {
  if (pipe != ir::Pipe::ALL) return;  // a pipe is already in order with itself
  ++barriers_;
  double t = issue_at_;
  Clock joined{};
  for (const auto& p : pipes_) {
    t = std::max(t, p.free_at);
    for (int i = 0; i < kClockWidth; ++i) joined[i] = std::max(joined[i], p.clock[i]);
  }
  for (auto& p : pipes_) {
    hold_until(p, t);
    p.clock = joined;
  }
  issue_at_ = t;
}

void CoreModel::lock(int64_t mutex, ir::Pipe pipe, int instr) {
  Mutex& m = mutexes_[mutex];
  if (m.held) return fail(fmt::format("deadlock: mutex {} is locked again before it was unlocked", mutex), instr);
  m.held = true;
  Pipe& p = pipes_[static_cast<int>(pipe)];
  hold_until(p, m.release);
  for (int i = 0; i < kClockWidth; ++i) p.clock[i] = std::max(p.clock[i], m.clock[i]);
}

void CoreModel::unlock(int64_t mutex, ir::Pipe pipe, int instr) {
  Mutex& m = mutexes_[mutex];
  if (!m.held) return fail(fmt::format("mutex_unlock of mutex {} that is not locked", mutex), instr);
  m.held = false;
  const Pipe& p = pipes_[static_cast<int>(pipe)];
  m.release = p.free_at;
  m.clock = p.clock;
}

int64_t CoreModel::tile_resource(int group, int64_t slot) const { return group_base_.at(group) + slot; }

void CoreModel::exec(int instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  const auto& info = kernel_->ir.instrs[instr];
  const auto& groups = kernel_->ir.groups;
  double cycles = 0;
  bool on_chip = false;  // a move between local memories (no GM)
  const double a = static_cast<double>(amount);
  if (info.op == "load") {
    cycles = cost_.load_cycles(groups[info.tiles[0].first].space, a);
    gm_read_ += a;
  } else if (info.op == "store") {
    cycles = cost_.store_cycles(groups[info.tiles[0].first].space, a);
    gm_write_ += a;
  } else if (info.pipe == ir::Pipe::S) {
    cycles = cost_.issue_cycles();  // printf, pto_assert, dump_data: the scalar unit
  } else if (info.op == "move") {
    on_chip = true;
    cycles = cost_.move_cycles(groups[info.tiles[0].first].space, a);
  } else if (info.op == "matmul") {
    cycles = cost_.matmul_cycles(info.dtype, a);
    macs_ += a;
    flops_ += 2 * a;
  } else {
    cycles = cost_.vector_cycles(info.dtype, a, info.vector_ops);
    if (is_floating(info.dtype)) flops_ += a * info.vector_ops;
  }
  // One access per tile, except a cross-core move's destination: one per core whose memory it writes.
  const size_t n = info.tiles.size() + (info.peer_slots ? std::popcount(info.peer_slots) - 1u : 0u);
  std::array<Access, 16> small;
  std::vector<Access> large;
  std::span<Access> tiles;
  if (n <= small.size()) {
    tiles = std::span<Access>(small.data(), n);
  } else {
    large.resize(n);
    tiles = large;
  }
  // A tile that cross-core moves write is compared as a rectangle of its slot: a Vec -> Mat move
  // writes the part [gm_lo, gm_hi) (flattened over the tile's rows), everything else the whole slot.
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
          tiles[k++] = {shared_tile_key(s, tile), write, part ? gm_lo : 0, part ? gm_hi : grp.rows * grp.cols, grp.cols};
        }
      }
    } else if (!shared_group_.empty() && shared_group_[g]) {
      tiles[k++] = {shared_tile_key(slot_, tile), write, 0, grp.rows * grp.cols, grp.cols};
    } else {
      tiles[k++] = {tile, write};
    }
  }
  tiles = tiles.first(k);
  run(info.pipe, cycles, instr, tiles);
  if (on_chip) pipes_[static_cast<int>(info.pipe)].totals.on_chip += cycles;
  if (race_check_ && info.tensor >= 0 && gm_hi > gm_lo) {
    access(-(info.tensor + 1), static_cast<int>(info.pipe), info.gm_write, gm_lo, gm_hi, instr, info.gm_view_cols);
    if (keep_gm_spans_) gm_spans_.push_back({info.tensor, Touch{gm_lo, gm_hi, info.gm_view_cols, 0, instr}, info.gm_write, static_cast<int>(info.pipe)});
  }
}

void CoreModel::sync(int instr, int64_t event, int64_t slot) {
  const auto& info = kernel_->ir.instrs[instr];
  const auto& s = kernel_->syncs.at(instr);
  // Automatic mutexes (one per tile slot) live apart from the user's mutex ids 0..31.
  constexpr int64_t kAutoMutexBase = int64_t{1} << 20;
  const int64_t mutex = slot >= 0 ? kAutoMutexBase + tile_resource(s.tile_group, slot) : event;
  switch (s.op) {
    case ir::SyncOp::SetFlag: set_flag(s.src, s.dst, event, instr); break;
    case ir::SyncOp::WaitFlag: wait_flag(s.src, s.dst, event, instr); break;
    case ir::SyncOp::Barrier: barrier(s.src); break;
    case ir::SyncOp::MutexLock: lock(mutex, info.pipe, instr); break;
    case ir::SyncOp::MutexUnlock: unlock(mutex, info.pipe, instr); break;
    case ir::SyncOp::CrossSet: case ir::SyncOp::CrossWait: break;
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
  ResourceState& st = key < 0 ? (*gm_)[key] : resources_[key];
  const Clock& vc = pipes_[q].clock;
  const int self = at(q);
  const Touch t{lo, hi, width, vc[self], instr};
  for (uint32_t used = st.used & ~(1u << self); used != 0; used &= used - 1) {
    const int p = std::countr_zero(used);
    check_history(write ? "WAW" : "RAW", key, st.writes[p], t, vc[p], p, self);
    if (write) check_history("WAR", key, st.reads[p], t, vc[p], p, self);
  }
  (write ? st.writes : st.reads)[self].add(t, is_gm_key(key) ? TouchHistory::kGmDepth : 1);
  st.used |= 1u << self;
}

std::string CoreModel::resource_name(int64_t key) const {
  if (key < 0 && !is_gm_key(key)) {
    static constexpr const char* kOwners[kCoresPerBlock] = {"the AIC", "AIV 0", "AIV 1"};
    const int64_t rest = -key - kSharedTileKeys;
    return fmt::format("{} of {}", resource_name(rest % kSharedTileOwnerStride), kOwners[rest / kSharedTileOwnerStride]);
  }
  if (key < 0) {
    const int t = static_cast<int>(-key - 1);
    return fmt::format("GM tensor {}", kernel_ ? kernel_->ir.tensors[t].name : std::to_string(t));
  }
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
  const auto& info = kernel_->ir.instrs[instr];
  return fmt::format("#{} {} [{}] at {}", instr, info.text, pname, info.loc.str());
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

CoreTiming CoreModel::timing() const {
  CoreTiming t;
  t.kind = kind_;
  t.macs = macs_;
  t.end_cycles = issue_at_;
  for (int i = 0; i < kPipeCount; ++i) {
    t.end_cycles = std::max(t.end_cycles, pipes_[i].free_at);
    t.pipes[i] = pipes_[i].totals;
  }
  t.gm_read_bytes = gm_read_;
  t.gm_write_bytes = gm_write_;
  t.flops = flops_;
  t.barriers = barriers_;
  return t;
}

}  // namespace pto
