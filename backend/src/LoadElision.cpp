#include "pto/backend/LoadElision.hpp"

#include <map>
#include <set>
#include <vector>

#include "pto/ir/Accesses.hpp"
#include "pto/ir/Visitor.hpp"
#include "StmtScan.hpp"

namespace pto::backend {
namespace {

using stmt_scan::same_slot;

/// Whether expression `e` reads variable `var`.
bool mentions(const ir::Expr& e, const ir::Expr& var) {
  struct Finder : ir::Visitor {
    int id = -1;
    bool found = false;
    void visit_node(const ir::Var* op) override { found = found || op->id == id; }
  } f;
  const auto* v = var.as<ir::Var>();
  if (!v) return true;  // not a plain variable: assume the worst
  if (!e) return false;
  f.id = v->id;
  f.visit(e);
  return f.found;
}

/// Instructions a load's window of readers may pass: none writes GM or changes a scalar.
bool passable(const ir::Stmt& s) {
  switch (s->kind) {
    case ir::NodeKind::Load:
    case ir::NodeKind::VecCompute:
    case ir::NodeKind::RowReduce:
    case ir::NodeKind::Matmul:
    case ir::NodeKind::Check: return true;
    case ir::NodeKind::Move: return !s.as<ir::Move>()->attrs.cross_core;
    case ir::NodeKind::Sync: return !ir::meets_other_cores(s.as<ir::Sync>()->op);
    default: return false;
  }
}

bool elidable_load(const ir::Kernel& k, const ir::Load* op) {
  const auto& g = k.groups[static_cast<size_t>(op->dst.group)];
  const bool unit_columns = !op->src.stride[1] || ir::int_constant(op->src.stride[1]) == 1;
  return !op->dst.window && unit_columns && (g.space == ir::MemSpace::Vec || g.space == ir::MemSpace::Mat) && g.addrs.empty() &&
         k.tensors[static_cast<size_t>(op->src.tensor)].dtype == g.dtype;
}

/// One walk over the kernel: the candidate windows, every tile read and every instruction.
struct Survey : stmt_scan::InstrSurvey {
  explicit Survey(const ir::Kernel& kernel) : k(kernel) {}
  const ir::Kernel& k;
  // A reader is one occurrence: a tile read in an instruction (an expression node may be shared
  // by several instructions), or a move (the pair {move, move}).
  using Reader = std::pair<const ir::StmtNode*, const ir::Node*>;
  std::map<Reader, const ir::Load*> fused;
  std::set<Reader> conflicted;                         // one reader after two different loads
  std::vector<Reader> reads;                           // every tile read, in its instruction

  void visit_node(const ir::Seq* op) override {
    std::vector<ir::Stmt> flat;  // nested lists run straight through (insert_auto_mutex makes them)
    stmt_scan::flatten(op->body, flat);
    for (size_t i = 0; i < flat.size(); ++i) {
      const auto* load = flat[i].as<ir::Load>();
      if (load && elidable_load(k, load)) scan(flat, i + 1, load);
    }
    for (const auto& s : flat) visit(s);  // not the nested lists again: their statements are here
  }

  static void flatten_stmt(const ir::Stmt& s, std::vector<ir::Stmt>& out) {
    if (s) stmt_scan::flatten({s}, out);
  }

  /// Whether `s` may lie between `load` and a reader: passable, an assignment of a scalar the
  /// load's slot does not name, or a loop whose whole body is such and writes no tile of the load's
  /// group (the published GEMMs walk an L1 panel into L0 by a loop of extracts).
  bool transparent(const ir::Stmt& s, const ir::Load* load) const {
    if (const auto* a = s.as<ir::Assign>()) return !mentions(load->dst.slot, a->var);
    if (const auto* f = s.as<ir::For>()) {
      if (mentions(load->dst.slot, f->var)) return false;
      std::vector<ir::Stmt> body;
      flatten_stmt(f->body, body);
      for (const auto& b : body) {
        if (!transparent(b, load)) return false;
        for (const auto& a : ir::tile_accesses(b.get())) {
          if (a.write && a.tile.group == load->dst.group) return false;
        }
      }
      return true;
    }
    return passable(s);
  }

  /// The readers of `load`'s tile in body[from..], up to a statement that is not transparent, the
  /// next load of its group or a write of its group (then false: the window has ended).
  bool scan(const std::vector<ir::Stmt>& body, size_t from, const ir::Load* load) {
    for (size_t j = from; j < body.size(); ++j) {
      const ir::Stmt& s = body[j];
      if (!transparent(s, load)) return false;
      if (const auto* f = s.as<ir::For>()) {  // every iteration reads the region as loaded
        std::vector<ir::Stmt> inner;
        flatten_stmt(f->body, inner);
        scan(inner, 0, load);
        continue;
      }
      if (s->kind == ir::NodeKind::Assign) continue;
      if (const auto* next = s.as<ir::Load>()) {
        if (next->dst.group == load->dst.group) return false;
        continue;
      }
      if (const auto* move = s.as<ir::Move>()) {
        if (move->src.group == load->dst.group && !move->src.window && same_slot(move->src.slot, load->dst.slot)) fuse({move, move}, load);
        if (move->dst.group == load->dst.group) return false;
        continue;
      }
      if (const auto* mm = s.as<ir::Matmul>()) {
        if (mm->dst.group == load->dst.group) return false;
        continue;
      }
      if (s->kind != ir::NodeKind::VecCompute && s->kind != ir::NodeKind::RowReduce) continue;
      for (const auto* r : ir::tile_reads(stmt_scan::expr_value(s.get()))) {
        if (r->tile.group != load->dst.group || r->tile.window || r->row_broadcast || r->col_broadcast) continue;
        if (same_slot(r->tile.slot, load->dst.slot)) fuse({s.get(), r}, load);
      }
      if (stmt_scan::expr_dst(s.get()).group == load->dst.group) return false;
    }
    return true;
  }

  /// `reader` reads `load`'s region; one reached after two different loads is left alone.
  void fuse(const Reader& reader, const ir::Load* load) {
    auto [it, fresh] = fused.emplace(reader, load);
    if (!fresh && it->second != load) conflicted.insert(reader);
  }
  /// Fused to one load, and the reader's instruction and that load each occur once in the kernel
  /// (a shared node would be emitted in two places with one decision).
  bool fused_alone(const Reader& reader) const {
    const auto f = fused.find(reader);
    return f != fused.end() && !conflicted.count(reader) && once(reader.first) && once(f->second);
  }

  void visit_node(const ir::TileRead* op) override {
    reads.push_back({current, op});
    ir::Visitor::visit_node(op);
  }
};

/// The second step: untransposed moves of an elided load's region into Left or Right whose tile
/// only the matmuls after them read hand the region on to those matmuls.
struct Forwarding : ir::Visitor {
  Forwarding(const ir::Kernel& kernel, const LoadElision& e, const Survey& s) : k(kernel), elision(e), survey(s) {}
  const ir::Kernel& k;
  const LoadElision& elision;
  const Survey& survey;
  std::unordered_map<const ir::TileRef*, const ir::Move*> fused;  // a matmul operand -> its move
  std::unordered_set<const ir::TileRef*> conflicted;

  /// A's rows in place cost the micro-kernel nothing (it broadcasts from 8 of them at a time). B's
  /// are 64 and more rows a GM pitch apart, which for power-of-two pitches share the host's L1
  /// sets: read in place by every block of rows, matmul f32 2048^3 measured 0.71-0.77 of OpenBLAS,
  /// against 0.80-0.86 with B copied into L0B. So the matmul packs B itself, in its first block of
  /// rows, whose FMAs overlap the misses that the copy only waited on, prefetching the next panels'
  /// rows as it goes (CubeMatmul.cpp). Zen 4 VM, 2026-12-05, `pto bench matmul --shape
  /// 2048x2048x2048 --block-dim 24 --vs-native`, alternating processes: 0.90-0.95 against
  /// 0.87-0.88 with the copy (4 pairs); with the prefetches 0.96-1.00 against 0.93-0.96 (4 pairs);
  /// the final code 1.010-1.020 against 0.967-0.982 with the copy (5 pairs, a faster hour).
  /// Hints for the next iteration's panels before the copy had not paid (the copy fell from 7-10%
  /// of the profile to 3%, the prefetches took 6%: the host's L1 miss slots are the limit).
  bool candidate(const ir::Move* m) const {
    if (!elision.moves.count(m) || m->attrs.transpose || m->dst.window || !survey.once(m)) return false;
    const ir::MemSpace space = k.groups[static_cast<size_t>(m->dst.group)].space;
    return space == ir::MemSpace::Left || space == ir::MemSpace::Right;
  }
  void visit_node(const ir::Seq* op) override {
    std::vector<ir::Stmt> flat;
    stmt_scan::flatten(op->body, flat);
    for (size_t i = 0; i < flat.size(); ++i) {
      const auto* m = flat[i].as<ir::Move>();
      if (m && candidate(m)) scan(flat, i, m);
    }
    for (const auto& s : flat) visit(s);
  }
  void scan(const std::vector<ir::Stmt>& body, size_t i, const ir::Move* m) {
    const int g = m->dst.group;
    for (size_t j = i + 1; j < body.size() && passable(body[j]); ++j) {
      const ir::Stmt& s = body[j];
      if (const auto* mm = s.as<ir::Matmul>(); mm && survey.once(mm)) {
        for (const ir::TileRef* operand : {&mm->a, &mm->b}) {
          if (operand->group != g || !same_slot(operand->slot, m->dst.slot)) continue;
          auto [it, fresh] = fused.emplace(operand, m);
          if (!fresh && it->second != m) conflicted.insert(operand);
        }
      }
      for (const auto& a : ir::tile_accesses(s.get())) {
        if (a.write && a.tile.group == g) return;  // the tile is written again
      }
    }
  }
  bool fused_alone(const ir::TileRef* operand) const { return fused.count(operand) && !conflicted.count(operand); }
};

/// A Left group qualifies when its only writes are candidate moves and its only reads are fused
/// matmul operands.
void forward_moves(const ir::Kernel& k, const Survey& s, LoadElision& out) {
  Forwarding f(k, out, s);
  f.visit(k.body);
  std::vector<bool> ok(k.groups.size(), true);
  for (const auto* instr : s.instrs) {
    if (const auto* mm = instr->kind == ir::NodeKind::Matmul ? static_cast<const ir::Matmul*>(instr) : nullptr) {
      for (const ir::TileRef* operand : {&mm->a, &mm->b}) {
        if (!f.fused_alone(operand)) ok[static_cast<size_t>(operand->group)] = false;
      }
      if (mm->bias.group >= 0) ok[static_cast<size_t>(mm->bias.group)] = false;
      ok[static_cast<size_t>(mm->dst.group)] = false;
      continue;
    }
    const auto* move = instr->kind == ir::NodeKind::Move ? static_cast<const ir::Move*>(instr) : nullptr;
    for (const auto& a : ir::tile_accesses(instr)) {
      if (move && a.write && f.candidate(move)) continue;
      if (move && !a.write && out.moves.count(move)) continue;  // the source: judged by the first step
      ok[static_cast<size_t>(a.tile.group)] = false;
    }
  }
  for (const auto& [operand, move] : f.fused) {
    if (!ok[static_cast<size_t>(operand->group)]) continue;
    out.forwarded.insert(move);
    out.operands.emplace(operand, move);
  }
}

}  // namespace

LoadElision find_load_elision(const ir::Kernel& k) {
  LoadElision out;
  Survey s(k);
  if (!stmt_scan::survey(k, s)) return out;
  // A group qualifies when its only writes are elidable loads and its only reads are fused ones.
  std::vector<bool> ok(k.groups.size(), true);
  for (const auto* instr : s.instrs) {
    const auto* load = instr->kind == ir::NodeKind::Load ? static_cast<const ir::Load*>(instr) : nullptr;
    const bool expression = instr->kind == ir::NodeKind::VecCompute || instr->kind == ir::NodeKind::RowReduce;
    if (load && !s.once(load)) ok[static_cast<size_t>(load->dst.group)] = false;
    for (const auto& a : ir::tile_accesses(instr)) {
      if (load && a.write && elidable_load(k, load)) continue;
      if (expression && !a.write) continue;  // a tile read: judged below, read by read
      if (instr->kind == ir::NodeKind::Move && !a.write && s.fused_alone({instr, instr})) continue;
      ok[static_cast<size_t>(a.tile.group)] = false;
    }
  }
  for (const auto& r : s.reads) {
    if (!s.fused_alone(r)) ok[static_cast<size_t>(static_cast<const ir::TileRead*>(r.second)->tile.group)] = false;
  }
  for (const auto* instr : s.instrs) {
    if (instr->kind != ir::NodeKind::Load) continue;
    const auto* load = static_cast<const ir::Load*>(instr);
    if (ok[static_cast<size_t>(load->dst.group)]) out.loads.insert(load);
  }
  for (const auto& [reader, load] : s.fused) {
    if (!ok[static_cast<size_t>(load->dst.group)]) continue;
    if (reader.second->kind == ir::NodeKind::Move) {
      out.moves.emplace(static_cast<const ir::Move*>(reader.second), load);
    } else {
      out.reads.emplace(std::pair{reader.first, static_cast<const ir::TileRead*>(reader.second)}, load);
    }
  }
  forward_moves(k, s, out);
  return out;
}

}  // namespace pto::backend
