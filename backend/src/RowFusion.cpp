#include "pto/backend/RowFusion.hpp"

#include <set>

#include "StmtScan.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

/// Whether `e` computes a transcendental function (exp, log, tanh, sigmoid, erf, sin, cos, pow):
/// an instruction with one is bound by its arithmetic, not by how far its operands are, and fusing
/// it gains nothing (softmax 4096x1024 f32 ran 1-2% slower with its row max, exp and row sum fused,
/// perf_pipeline BM_FusionPairedSoftmax; layernorm, whose passes are a few operations an element,
/// 6-7% faster).
bool transcendental(const ir::Expr& e) {
  struct Finder : ir::Visitor {
    bool found = false;
    void visit_node(const ir::Unary* op) override {
      switch (op->op) {
        case ir::UnaryOp::Exp: case ir::UnaryOp::Log: case ir::UnaryOp::Tanh: case ir::UnaryOp::Sigmoid: case ir::UnaryOp::Erf:
        case ir::UnaryOp::Sin: case ir::UnaryOp::Cos: found = true; break;
        default: break;
      }
      ir::Visitor::visit_node(op);
    }
    void visit_node(const ir::Binary* op) override {
      found = found || op->op == ir::BinaryOp::Pow;
      ir::Visitor::visit_node(op);
    }
  } f;
  f.visit(e);
  return f.found;
}

/// The instructions of a run that grows one at a time while its rows stay independent.
class RunRules {
 public:
  explicit RunRules(const ir::Kernel& k) : k_(k) {}

  /// Adds `s` if the run stays one whose rows can be computed a block at a time; false (nothing
  /// added) otherwise.
  bool add(const ir::StmtNode* s) {
    std::set<int> written = written_, touched = touched_;
    std::vector<const ir::TileRead*> reads = reads_;
    written.insert(stmt_scan::expr_dst(s).group);
    touched.insert(stmt_scan::expr_dst(s).group);
    for (const ir::TileRead* l : ir::tile_reads(stmt_scan::expr_value(s))) {
      reads.push_back(l);
      touched.insert(l->tile.group);
    }
    for (const ir::TileRead* l : reads) {
      if (written.count(l->tile.group) && (l->tile.window || l->col_broadcast)) return false;
    }
    for (int a : touched) {
      for (int b : touched) {
        if (a < b && (written.count(a) || written.count(b)) && share_bytes(a, b)) return false;
      }
    }
    written_ = std::move(written), touched_ = std::move(touched), reads_ = std::move(reads);
    return true;
  }

 private:
  bool share_bytes(int a, int b) const {
    const ir::TileGroup &ga = k_.groups[static_cast<size_t>(a)], &gb = k_.groups[static_cast<size_t>(b)];
    if (ga.space != gb.space) return false;
    if (ga.offset < 0 || gb.offset < 0) return true;  // not placed: assume the worst
    return ga.offset < gb.offset + gb.depth * gb.slot_bytes && gb.offset < ga.offset + ga.depth * ga.slot_bytes;
  }

  const ir::Kernel& k_;
  std::set<int> written_, touched_;
  std::vector<const ir::TileRead*> reads_;
};

struct Survey : stmt_scan::InstrSurvey {
  Survey(const ir::Kernel& kernel, const StoreForwarding& fw) : k(kernel), forwarding(fw) {}
  const ir::Kernel& k;
  const StoreForwarding& forwarding;
  std::vector<std::vector<ir::Stmt>> lists;  // every statement list, flattened

  void visit_node(const ir::Seq* op) override {
    std::vector<ir::Stmt> flat;
    stmt_scan::flatten(op->body, flat);
    for (const auto& s : flat) visit(s);  // not the nested lists again: their statements are here
    lists.push_back(std::move(flat));
  }

  /// A tile expression a run can compute a block of rows at a time (into its whole slot), and
  /// gains from that.
  bool fusable(const ir::Stmt& s) const {
    if (const auto* v = s.as<ir::VecCompute>()) {
      return !forwarding.computes.count(v) && !v->dst.window && once(v) && !transcendental(v->value);
    }
    if (const auto* r = s.as<ir::RowReduce>()) {
      return r->axis == 0 && !ir::is_arg_reduce(r->op) && !r->dst.window && once(r) && !transcendental(r->value);
    }
    return false;
  }
  /// The forwarded store of VecCompute `flat[j]` (a forwarded one), past the checks and syncs
  /// after it: its index, or 0 if there is none (the store computes its expression).
  size_t forwarded_store(const std::vector<ir::Stmt>& flat, size_t j) const {
    const auto* v = flat[j].as<ir::VecCompute>();
    if (!v || !forwarding.computes.count(v) || transcendental(v->value)) return 0;
    size_t k = j + 1;
    while (k < flat.size() && stmt_scan::between_pipes(flat[k])) ++k;
    const auto* store = k < flat.size() ? flat[k].as<ir::Store>() : nullptr;
    const auto f = store ? forwarding.stores.find(store) : forwarding.stores.end();
    return f != forwarding.stores.end() && f->second == v ? k : 0;
  }

  void find_runs(const std::vector<ir::Stmt>& flat, RowFusion& out) const {
    for (size_t i = 0; i < flat.size();) {
      if (!fusable(flat[i])) {
        ++i;
        continue;
      }
      RunRules rules(k);
      RowFusion::Run run;
      size_t end = i;  // one past the last fused instruction
      for (size_t j = i; j < flat.size(); ++j) {
        if (fusable(flat[j])) {
          if (!rules.add(flat[j].get())) break;
          run.fused.push_back(flat[j].get());
          end = j + 1;
        } else if (const size_t store = forwarded_store(flat, j); store > 0) {
          // The run ends with the store that computes this expression (its tile written, as
          // when the store streams or copies).
          if (rules.add(flat[j].get())) {
            run.store = flat[store].as<ir::Store>();
            end = store + 1;
          }
          break;
        } else if (!stmt_scan::between_pipes(flat[j])) {
          break;
        }
      }
      // Two tile instructions at least: a row reduction with only its store (softmax's row sum
      // and the store of e / sum) measured 1% slower in blocks (perf_pipeline BM_FusionPairedSoftmax).
      if (run.fused.size() >= 2) {
        run.length = end - i;
        out.runs.emplace(flat[i].get(), std::move(run));
      }
      i = end;
    }
  }
};

}  // namespace

RowFusion find_row_fusion(const ir::Kernel& k, const StoreForwarding& forwarding) {
  RowFusion out;
  if (!k.body) return out;
  Survey s(k, forwarding);
  s.visit(k.body);
  for (const auto& flat : s.lists) s.find_runs(flat, out);
  return out;
}

}  // namespace pto::backend
