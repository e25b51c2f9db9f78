// The reference interpreter's tile expressions, compiled: the node tree of the expression and each
// scalar converted to the compute class it meets. The extent and the broadcast operands come
// from the IR (insert_checks).
#include <cmath>
#include <unordered_map>

#include "InterpreterImpl.hpp"
#include "pto/support/Error.hpp"

namespace pto::backend::interp {
namespace {


bool float_binary_supported(ir::BinaryOp op) {
  return op != ir::BinaryOp::Mod && op != ir::BinaryOp::And && op != ir::BinaryOp::Or && op != ir::BinaryOp::Xor &&
         op != ir::BinaryOp::Shl && op != ir::BinaryOp::Shr;
}

// ------------------------------------------------------------------------------ compilation
class Compiler {
 public:
  explicit Compiler(const ir::Kernel& k) : k_(k) {}

  CompiledExpr run(const ir::Expr& e) {
    out_.dtype = e->type.dtype;
    out_.cls = compute_cls(e->type.dtype);
    compile(e, out_.cls);
    return std::move(out_);
  }

 private:
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
        if (to == Cls::F) n.value.f = i->value != 0 ? 1.0f : 0.0f;
        else n.value.i = i->value != 0 ? 1 : 0;
      } else {
        if (to == Cls::F) n.value.f = static_cast<float>(i->value);
        else if (to == Cls::I) n.value.i = wrap32(i->value);
        else n.value.i = static_cast<int32_t>(i->value & 1);
      }
    } else {
      n.kind = XNode::Kind::Scalar;
      n.scalar = e.get();
      const bool is_bool = e->type.dtype == DType::boolean;
      n.scalar_float = e->type.dtype == DType::f32;
      PTO_INTERNAL_CHECK(!(n.scalar_float && to != Cls::F)) << "a runtime float scalar in an integer tile expression";
      PTO_INTERNAL_CHECK(!(is_bool && to == Cls::I)) << "a boolean scalar used as an integer tile operand";
    }
    return add(n);
  }

  int compile(const ir::Expr& e, Cls ctx) {
    if (!e->type.tile) return scalar(e, ctx);
    XNode n;
    if (const auto* op = e.as<ir::TileRead>()) {
      auto [it, fresh] = leaf_index_.try_emplace(op, static_cast<int>(out_.leaves.size()));
      if (fresh) out_.leaves.push_back({op, op->tile.group});
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
      const bool float_only = op->op != ir::UnaryOp::Neg && op->op != ir::UnaryOp::Abs && op->op != ir::UnaryOp::Relu &&
                              op->op != ir::UnaryOp::Not;
      PTO_INTERNAL_CHECK(op->op != ir::UnaryOp::Not || ct == Cls::I) << "bitwise not of a floating-point tile";
      PTO_INTERNAL_CHECK(ct == Cls::F || !float_only) << "unsupported integer tile operator " << ir::unary_op_name(op->op);
      return add(n);
    }
    if (const auto* op = e.as<ir::Cast>()) {
      const DType from = op->a->type.dtype, to = op->type.dtype;
      n.a = compile(op->a, compute_cls(from));
      n.kind = XNode::Kind::Cast;
      n.from = from;
      n.to = to;
      n.mode = op->mode;
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

  const ir::Kernel& k_;
  CompiledExpr out_;
  std::unordered_map<const ir::TileRead*, int> leaf_index_;
};

}  // namespace

CompiledExpr compile_tile_expr(const ir::Expr& e, const ir::Kernel& k) { return Compiler(k).run(e); }

}  // namespace pto::backend::interp
