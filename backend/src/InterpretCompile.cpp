// The reference interpreter's tile expressions, compiled: the node tree CodeGen::element
// walks, with each scalar converted as broadcast_scalar converts it, the lead and broadcast
// operands of expr_extent, and how LLVM ends up computing each float max/min.
#include <bit>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "InterpreterImpl.hpp"
#include "pto/support/Error.hpp"

namespace pto::backend::interp {
namespace {

int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

bool float_binary_supported(ir::BinaryOp op) {
  return op != ir::BinaryOp::Mod && op != ir::BinaryOp::And && op != ir::BinaryOp::Or;
}

// ------------------------------------------------------------------------------ compilation
class Compiler {
 public:
  explicit Compiler(const ir::Kernel& k) : k_(k) {}

  CompiledExpr run(const ir::Expr& e) {
    out_.dtype = e->type.dtype;
    out_.cls = compute_cls(e->type.dtype);
    compile(e, out_.cls);
    decide_lead();
    finalize();
    return std::move(out_);
  }

 private:
  const XNode& node(int i) const { return out_.nodes[static_cast<size_t>(i)]; }
  int add(const XNode& n) {
    out_.nodes.push_back(n);
    return static_cast<int>(out_.nodes.size()) - 1;
  }

  /// CodeGen::broadcast_scalar: a scalar converted to compute class `to`.
  int scalar(const ir::Expr& e, Cls to) {
    XNode n;
    n.cls = to;
    n.kind = XNode::Kind::Const;
    if (const auto* f = e.as<ir::FloatImm>()) {
      PTO_INTERNAL_CHECK(to != Cls::B) << "a float constant used as a condition";
      if (to == Cls::F) n.value.f = static_cast<float>(f->value);
      else n.value.i = static_cast<int32_t>(f->value);
    } else if (const auto* i = e.as<ir::IntImm>()) {
      // Constants fold: an i32 immediate directly, others through scalar() and sitofp/trunc.
      const bool is_bool = i->type.dtype == DType::boolean;
      if (i->type.dtype == DType::i32) {
        PTO_INTERNAL_CHECK(to != Cls::B) << "an i32 constant used as a condition";
        if (to == Cls::F) n.value.f = static_cast<float>(static_cast<double>(i->value));
        else n.value.i = static_cast<int32_t>(i->value);
      } else if (is_bool) {
        PTO_INTERNAL_CHECK(to != Cls::I) << "a boolean scalar used as an integer tile operand";
        if (to == Cls::F) n.value.f = i->value != 0 ? -1.0f : 0.0f;  // sitofp i1
        else n.value.i = i->value != 0 ? 1 : 0;
      } else {
        if (to == Cls::F) n.value.f = static_cast<float>(i->value);
        else if (to == Cls::I) n.value.i = wrap32(i->value);
        else n.value.i = static_cast<int32_t>(i->value & 1);
      }
    } else {
      n.kind = XNode::Kind::Scalar;
      n.scalar = e.get();
      n.scalar_bool = e->type.dtype == DType::boolean;
      PTO_INTERNAL_CHECK(!(n.scalar_bool && to == Cls::I)) << "a boolean scalar used as an integer tile operand";
    }
    return add(n);
  }

  int compile(const ir::Expr& e, Cls ctx) {
    if (!e->type.tile) return scalar(e, ctx);
    XNode n;
    if (const auto* op = e.as<ir::TileRead>()) {
      auto [it, fresh] = leaf_index_.try_emplace(op, static_cast<int>(out_.leaves.size()));
      if (fresh) out_.leaves.push_back({op, op->tile.group, false});
      out_.visits.push_back(it->second);
      const DType t = op->type.dtype;
      PTO_INTERNAL_CHECK(t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::i32 || t == DType::i8)
          << "tile read of unsupported dtype " << dtype_name(t);
      n.kind = XNode::Kind::Leaf;
      n.cls = compute_cls(t);
      n.from = t;
      n.leaf = it->second;
      return add(n);
    }
    if (const auto* op = e.as<ir::Binary>()) {
      const ir::Expr& tile_side = op->a->type.tile ? op->a : op->b;
      const Cls ct = compute_cls(tile_side->type.dtype);
      int a = compile(op->a, ct);
      int b = compile(op->b, ct);
      PTO_INTERNAL_CHECK(ct != Cls::F ? op->op != ir::BinaryOp::Mod : float_binary_supported(op->op))
          << "unsupported tile operator " << ir::binary_op_name(op->op);
      n.kind = XNode::Kind::Binary;
      n.bop = op->op;
      n.cls = ir::is_comparison(op->op) ? Cls::B : ct;
      if (ct == Cls::F && (op->op == ir::BinaryOp::Max || op->op == ir::BinaryOp::Min)) {
        // InstCombine moves a constant first operand of a commutative intrinsic second.
        if (node(a).kind == XNode::Kind::Const && node(b).kind != XNode::Kind::Const) std::swap(a, b);
      }
      n.a = a;
      n.b = b;
      return add(n);
    }
    if (const auto* op = e.as<ir::Unary>()) {
      const Cls ct = compute_cls(op->type.dtype);
      n.a = compile(op->a, ct);
      n.kind = XNode::Kind::Unary;
      n.uop = op->op;
      n.cls = ct;
      const bool float_only = op->op == ir::UnaryOp::Exp || op->op == ir::UnaryOp::Log || op->op == ir::UnaryOp::Sqrt ||
                              op->op == ir::UnaryOp::Rsqrt;
      PTO_INTERNAL_CHECK(ct == Cls::F || !float_only) << "unsupported integer tile operator " << ir::unary_op_name(op->op);
      return add(n);
    }
    if (const auto* op = e.as<ir::Cast>()) {
      const DType from = op->a->type.dtype, to = op->type.dtype;
      n.a = compile(op->a, compute_cls(from));
      n.kind = XNode::Kind::Cast;
      n.from = from;
      n.to = to;
      n.cls = compute_cls(to);
      return add(n);
    }
    if (const auto* op = e.as<ir::Select>()) {
      const Cls ct = compute_cls(op->type.dtype);
      n.c = compile(op->cond, Cls::B);
      n.a = compile(op->a, ct);
      n.b = compile(op->b, ct);
      n.kind = XNode::Kind::Select;
      n.cls = ct;
      return add(n);
    }
    PTO_INTERNAL_CHECK(false) << "unexpected tile expression";
    return -1;
  }

  // ---------------------------------------------------------------------------- max and min
  // llvm.maxnum/minnum may return either operand when they compare equal (+0 and -0); which one
  // the optimised code returns depends on InstCombine's rewrites and on the x86 lowering. This
  // models what LLVM 16 does to the code CodeGenLLVM emits:
  //  * InstCombine (visitCallInst): min(-X, -Y) -> -max(X, Y) when a negation has one use;
  //    m(fpext X, fpext Y) -> fpext m(X, Y) for one-use extensions of halves (a half maxnum is a
  //    libm fmaxf/fminf call on x86); max(X, -X) -> fabs X, min(X, -X) -> -fabs X (one-use
  //    negation); constants second. Uses are counted after common subexpressions merge.
  //  * X86 lowering (combineFMinNumFMaxNum): with an operand the SelectionDAG proves never NaN,
  //    one maxss/minss that returns that operand on ties; otherwise maxss(op1, op0) and op1
  //    when op0 is NaN. Proven never NaN: constants, int -> float conversions, relu, and fneg,
  //    fabs, exp, half rounding, max/min and select of such values; not runtime scalars (their
  //    conversion is hoisted out of the element loop, out of the DAG's sight).

  /// The structural key of a scalar expression (equal keys: LLVM computes one value).
  static std::string scalar_key(const ir::ExprNode* e) {
    if (const auto* i = dynamic_cast<const ir::IntImm*>(e)) return "i" + std::to_string(static_cast<int>(i->type.dtype)) + ":" + std::to_string(i->value);
    if (const auto* f = dynamic_cast<const ir::FloatImm*>(e)) return "f" + std::to_string(std::bit_cast<uint64_t>(f->value));
    if (const auto* v = dynamic_cast<const ir::Var*>(e)) return "v" + std::to_string(v->id);
    if (const auto* b = dynamic_cast<const ir::Binary*>(e)) {
      return "(" + std::to_string(static_cast<int>(b->op)) + " " + scalar_key(b->a.get()) + " " + scalar_key(b->b.get()) + ")";
    }
    return "?" + std::to_string(reinterpret_cast<uintptr_t>(e));
  }

  /// A cast CodeGen::convert returns unchanged (the operand's own value).
  bool identity_cast(const XNode& n) const {
    if (n.kind != XNode::Kind::Cast) return false;
    if (n.from == n.to) return true;
    if (is_floating(n.from) && is_floating(n.to)) return n.to == DType::f32;
    return !is_floating(n.from) && !is_floating(n.to) && n.to != DType::i8;
  }
  int resolve(int i) const {
    while (identity_cast(node(i))) i = node(i).a;
    return i;
  }

  void finalize() {
    auto& nodes = out_.nodes;
    const size_t count = nodes.size();
    canon_.assign(count, -1);
    std::map<std::string, int> table;
    for (size_t i = 0; i < count; ++i) {
      const XNode& n = nodes[i];
      if (identity_cast(n)) {
        canon_[i] = canon_[static_cast<size_t>(n.a)];
        continue;
      }
      auto id = [&](int j) { return std::to_string(canon_[static_cast<size_t>(j)]); };
      std::string key = std::to_string(static_cast<int>(n.kind)) + "/" + std::to_string(static_cast<int>(n.cls)) + "/";
      switch (n.kind) {
        case XNode::Kind::Leaf: {
          const LeafInfo& l = out_.leaves[static_cast<size_t>(n.leaf)];
          key += std::to_string(l.group) + ":" + scalar_key(l.read->tile.slot.get()) + ":" + std::to_string(l.read->row_broadcast) +
                 std::to_string(l.col_broadcast);
          break;
        }
        case XNode::Kind::Const: key += std::to_string(static_cast<uint32_t>(n.value.i)); break;
        case XNode::Kind::Scalar: key += std::to_string(n.scalar_bool) + scalar_key(n.scalar); break;
        case XNode::Kind::Binary: {
          std::string x = id(n.a), y = id(n.b);
          const bool commutative = n.bop == ir::BinaryOp::Add || n.bop == ir::BinaryOp::Mul || n.bop == ir::BinaryOp::Max ||
                                   n.bop == ir::BinaryOp::Min || n.bop == ir::BinaryOp::EQ || n.bop == ir::BinaryOp::NE ||
                                   n.bop == ir::BinaryOp::And || n.bop == ir::BinaryOp::Or;
          if (commutative && y < x) std::swap(x, y);
          key += std::to_string(static_cast<int>(n.bop)) + "(" + x + "," + y + ")";
          break;
        }
        case XNode::Kind::Unary: key += std::to_string(static_cast<int>(n.uop)) + "(" + id(n.a) + ")"; break;
        case XNode::Kind::Cast:
          key += std::to_string(static_cast<int>(n.from)) + ">" + std::to_string(static_cast<int>(n.to)) + "(" + id(n.a) + ")";
          break;
        case XNode::Kind::Select: key += "(" + id(n.c) + "," + id(n.a) + "," + id(n.b) + ")"; break;
      }
      canon_[i] = table.emplace(key, static_cast<int>(i)).first->second;
    }
    uses_.assign(count, 0);
    for (size_t i = 0; i < count; ++i) {
      if (canon_[i] != static_cast<int>(i)) continue;  // merged into an earlier node (or an identity cast)
      for (int o : {nodes[i].a, nodes[i].b, nodes[i].c}) {
        if (o >= 0) ++uses_[static_cast<size_t>(canon_[static_cast<size_t>(o)])];
      }
    }
    ext_half_.assign(count, false);
    for (size_t i = 0; i < count; ++i) {
      XNode& n = nodes[i];
      if (identity_cast(n)) {
        n.never_nan = node(n.a).never_nan;
        ext_half_[i] = ext_half_[static_cast<size_t>(n.a)];
        continue;
      }
      if (n.cls != Cls::F) continue;
      switch (n.kind) {
        case XNode::Kind::Leaf: ext_half_[i] = n.from == DType::f16; break;
        case XNode::Kind::Const: n.never_nan = !std::isnan(n.value.f); break;
        case XNode::Kind::Scalar: break;
        case XNode::Kind::Unary:
          switch (n.uop) {
            case ir::UnaryOp::Neg: case ir::UnaryOp::Exp: n.never_nan = node(n.a).never_nan; break;
            case ir::UnaryOp::Abs:  // fabs (fpext X) -> fpext (fabs X) for a one-use extension
              n.never_nan = node(n.a).never_nan;
              ext_half_[i] = ext_half_[static_cast<size_t>(n.a)] && uses(n.a) == 1;
              break;
            case ir::UnaryOp::Relu: n.never_nan = true; break;
            default: break;
          }
          break;
        case XNode::Kind::Cast:  // sitofp is never NaN; bf16 rounds through integer bits
          n.never_nan = n.to == DType::bf16 ? false : (is_floating(n.from) ? node(n.a).never_nan : true);
          ext_half_[i] = n.to == DType::f16;
          break;
        case XNode::Kind::Select: n.never_nan = node(n.a).never_nan && node(n.b).never_nan; break;
        case XNode::Kind::Binary:
          if (n.bop == ir::BinaryOp::Max || n.bop == ir::BinaryOp::Min) finalize_minmax(static_cast<int>(i));
          break;
      }
    }
  }

  int uses(int i) const { return uses_[static_cast<size_t>(canon_[static_cast<size_t>(i)])]; }
  bool same(int i, int j) const { return canon_[static_cast<size_t>(i)] == canon_[static_cast<size_t>(j)]; }
  bool is_neg(int i) const { return node(i).kind == XNode::Kind::Unary && node(i).uop == ir::UnaryOp::Neg; }

  void finalize_minmax(int i) {
    XNode& n = out_.nodes[static_cast<size_t>(i)];
    const int a = resolve(n.a), b = resolve(n.b);
    n.mm_max = n.bop == ir::BinaryOp::Max;
    n.mm_x = n.a;
    n.mm_y = n.b;
    int ux = uses(n.a), uy = uses(n.b);
    if (is_neg(a) && is_neg(b) && (uses(a) == 1 || uses(b) == 1)) {
      // min(-X, -Y) -> -(max(X, Y)): the negations die when this was their only use.
      n.mm_negate = true;
      n.mm_max = !n.mm_max;
      n.mm_x = node(a).a;
      n.mm_y = node(b).a;
      ux = uses(n.mm_x) + 1 - (uses(a) == 1 ? 1 : 0) - (same(n.mm_x, n.mm_y) && uses(b) == 1 ? 1 : 0);
      uy = uses(n.mm_y) + 1 - (uses(b) == 1 ? 1 : 0) - (same(n.mm_x, n.mm_y) && uses(a) == 1 ? 1 : 0);
    } else if (!(ext_half_[static_cast<size_t>(n.mm_x)] && ext_half_[static_cast<size_t>(n.mm_y)] && ux == 1 && uy == 1)) {
      const int neg_x = is_neg(a) && uses(a) == 1 && same(node(a).a, n.b) ? node(a).a : -1;
      const int neg_y = is_neg(b) && uses(b) == 1 && same(node(b).a, n.a) ? node(b).a : -1;
      if (neg_x >= 0 || neg_y >= 0) {  // max(X, -X) -> fabs X, min(X, -X) -> -(fabs X)
        n.mm = XNode::MinMax::Fabs;
        n.mm_x = neg_y >= 0 ? n.a : n.b;
        n.mm_y = -1;
        n.mm_negate = !n.mm_max;
        n.never_nan = node(n.mm_x).never_nan;
        return;
      }
    }
    if (ext_half_[static_cast<size_t>(n.mm_x)] && ext_half_[static_cast<size_t>(n.mm_y)] && ux == 1 && uy == 1) {
      n.mm = XNode::MinMax::Libm;  // a half maxnum/minnum: fmaxf/fminf on the widened values
      n.never_nan = false;
      ext_half_[static_cast<size_t>(i)] = !n.mm_negate;
      return;
    }
    n.mm = XNode::MinMax::X86;
    const bool nx = node(n.mm_x).never_nan, ny = node(n.mm_y).never_nan;
    n.known = ny ? n.mm_y : (nx ? n.mm_x : -1);
    n.never_nan = nx || ny;
  }

  std::vector<int> canon_;   // per node: the first structurally equal node (LLVM's CSE)
  std::vector<int> uses_;    // per canonical node: operand uses by distinct canonical nodes
  std::vector<bool> ext_half_;  // per node: its value is an fpext of a half after InstCombine

  /// CodeGen::expr_extent's static part: the lead and the column-broadcast operands.
  void decide_lead() {
    auto one_row = [&](int leaf) {
      const auto& g = k_.groups[static_cast<size_t>(out_.leaves[static_cast<size_t>(leaf)].group)];
      return g.rank == 2 && g.rows == 1;
    };
    auto row_bcast = [&](int leaf) { return out_.leaves[static_cast<size_t>(leaf)].read->row_broadcast; };
    for (int v : out_.visits) {
      if (!row_bcast(v) && !one_row(v)) { out_.lead = v; break; }
    }
    if (out_.lead < 0) {
      for (int v : out_.visits) {
        if (!row_bcast(v)) { out_.lead = v; break; }
      }
    }
    if (out_.lead >= 0 && !one_row(out_.lead)) {
      for (size_t l = 0; l < out_.leaves.size(); ++l) {
        if (static_cast<int>(l) != out_.lead && one_row(static_cast<int>(l))) out_.leaves[l].col_broadcast = true;
      }
    }
  }

  const ir::Kernel& k_;
  CompiledExpr out_;
  std::unordered_map<const ir::TileRead*, int> leaf_index_;
};

}  // namespace

CompiledExpr compile_tile_expr(const ir::Expr& e, const ir::Kernel& k) { return Compiler(k).run(e); }

}  // namespace pto::backend::interp
