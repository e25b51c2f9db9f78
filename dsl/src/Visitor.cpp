#include "pto/ir/Visitor.hpp"

namespace pto::ir {

void Visitor::visit(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
#define PTO_X(name) \
  case NodeKind::name: visit_node(static_cast<const name*>(e.get())); return;
    PTO_FOR_EACH_IR_EXPR(PTO_X)
#undef PTO_X
    default: PTO_INTERNAL_CHECK(false) << "statement visited as expression";
  }
}

void Visitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
#define PTO_X(name) \
  case NodeKind::name: visit_node(static_cast<const name*>(s.get())); return;
    PTO_FOR_EACH_IR_STMT(PTO_X)
#undef PTO_X
    default: PTO_INTERNAL_CHECK(false) << "expression visited as statement";
  }
}

void Visitor::visit_region(const GMRegion& r) {
  for (const auto& e : r.view) visit(e);
  visit(r.base);
  for (const auto& e : r.stride) visit(e);
  for (const auto& f : r.fixed) {
    visit(f.index);
    visit(f.extent);
  }
  visit(r.storage);
  for (const auto& e : r.offset) visit(e);
  for (const auto& e : r.extent) visit(e);
}
void Visitor::visit_tile(const TileRef& t) {
  visit(t.slot);
  if (t.window) for (const auto& e : t.window->offset) visit(e);
}

void Visitor::visit_node(const IntImm*) {}
void Visitor::visit_node(const FloatImm*) {}
void Visitor::visit_node(const Var*) {}
void Visitor::visit_node(const Binary* op) { visit(op->a); visit(op->b); }
void Visitor::visit_node(const Unary* op) { visit(op->a); }
void Visitor::visit_node(const Cast* op) { visit(op->a); }
void Visitor::visit_node(const Select* op) { visit(op->cond); visit(op->a); visit(op->b); }
void Visitor::visit_node(const TileRead* op) { visit_tile(op->tile); }
void Visitor::visit_node(const TileValid* op) { visit_tile(op->tile); }
void Visitor::visit_node(const Seq* op) { for (const auto& s : op->body) visit(s); }
void Visitor::visit_node(const For* op) { visit(op->begin); visit(op->end); visit(op->step); visit(op->body); }
void Visitor::visit_node(const LoopExit*) {}
void Visitor::visit_node(const IfThenElse* op) { visit(op->cond); visit(op->then_case); visit(op->else_case); }
void Visitor::visit_node(const Assign* op) { visit(op->value); }
void Visitor::visit_node(const Load* op) { visit_tile(op->dst); visit_region(op->src); }
void Visitor::visit_node(const Store* op) {
  visit_region(op->dst);
  visit_tile(op->src);
  if (op->scale) visit(op->scale);
}
void Visitor::visit_node(const VecCompute* op) {
  visit_tile(op->dst);
  visit(op->value);
  for (const auto& e : op->extent) visit(e);
}
void Visitor::visit_node(const RowReduce* op) {
  visit_tile(op->dst);
  visit(op->value);
  for (const auto& e : op->extent) visit(e);
}
void Visitor::visit_node(const Check* op) {
  visit(op->cond);
  for (const auto& e : op->args) visit(e);
}
void Visitor::visit_node(const Move* op) {
  visit_tile(op->dst);
  visit_tile(op->src);
  for (const auto& e : op->attrs.offset) visit(e);
  for (const auto& e : op->attrs.extent) visit(e);
  for (const auto& part : op->attrs.parts) {
    for (const auto& e : part) visit(e);
  }
}
void Visitor::visit_node(const SetValid* op) { visit_tile(op->tile); visit(op->rows); visit(op->cols); }
void Visitor::visit_node(const ElemAccess* op) {  // the Var read into is written, not read (as Assign's)
  if (op->tile.group >= 0) visit_tile(op->tile);
  visit(op->offset);
  if (op->value) visit(op->value);
}
void Visitor::visit_node(const Matmul* op) {
  visit_tile(op->dst);
  visit_tile(op->a);
  visit_tile(op->b);
  if (op->bias.group >= 0) visit_tile(op->bias);
}
void Visitor::visit_node(const VecRoutine* op) {
  for (const auto& t : op->operands) visit_tile(t);
}
void Visitor::visit_node(const Section* op) { visit(op->body); }
void Visitor::visit_node(const Debug* op) {
  for (const auto& a : op->args) visit(a);
  visit(op->cond);
  if (op->tile.group >= 0) visit_tile(op->tile);
  for (const auto& e : op->offset) visit(e);
  for (const auto& e : op->extent) visit(e);
  if (op->region.tensor >= 0) visit_region(op->region);
}
void Visitor::visit_node(const Sync* op) {
  visit(op->event);
  if (op->tile.group >= 0) visit_tile(op->tile);
}

// ------------------------------------------------------------------------------------- Mutator

Expr Mutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
#define PTO_X(name) \
  case NodeKind::name: return mutate_node(static_cast<const name*>(e.get()), e);
    PTO_FOR_EACH_IR_EXPR(PTO_X)
#undef PTO_X
    default: PTO_INTERNAL_CHECK(false) << "statement mutated as expression";
  }
  return e;
}

Stmt Mutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define PTO_X(name) \
  case NodeKind::name: return mutate_node(static_cast<const name*>(s.get()), s);
    PTO_FOR_EACH_IR_STMT(PTO_X)
#undef PTO_X
    default: PTO_INTERNAL_CHECK(false) << "expression mutated as statement";
  }
  return s;
}

std::array<Expr, 2> Mutator::mutate_pair(const std::array<Expr, 2>& e, bool& changed) {
  std::array<Expr, 2> out{mutate(e[0]), mutate(e[1])};
  changed |= !out[0].same_as(e[0]) || !out[1].same_as(e[1]);
  return out;
}

GMRegion Mutator::mutate_region(const GMRegion& r, bool& changed) {
  GMRegion out = r;
  for (int i = 0; i < 2; ++i) {
    out.view[i] = mutate(r.view[i]);
    out.offset[i] = mutate(r.offset[i]);
    out.extent[i] = mutate(r.extent[i]);
    out.stride[i] = mutate(r.stride[i]);
    changed |= !out.view[i].same_as(r.view[i]) || !out.offset[i].same_as(r.offset[i]) || !out.extent[i].same_as(r.extent[i]) ||
               !out.stride[i].same_as(r.stride[i]);
  }
  out.base = mutate(r.base);
  out.storage = mutate(r.storage);
  changed |= !out.base.same_as(r.base) || !out.storage.same_as(r.storage);
  for (auto& f : out.fixed) {
    const Expr index = f.index, extent = f.extent;
    f.index = mutate(index);
    f.extent = mutate(extent);
    changed |= !f.index.same_as(index) || !f.extent.same_as(extent);
  }
  return out;
}

TileRef Mutator::mutate_tile(const TileRef& t, bool& changed) {
  TileRef out{t.group, mutate(t.slot), t.window};
  changed |= !out.slot.same_as(t.slot);
  if (out.window) {
    for (int d = 0; d < 2; ++d) {
      out.window->offset[d] = mutate(t.window->offset[d]);
      changed |= !out.window->offset[d].same_as(t.window->offset[d]);
    }
  }
  return out;
}

Expr Mutator::mutate_node(const IntImm*, const Expr& self) { return self; }
Expr Mutator::mutate_node(const FloatImm*, const Expr& self) { return self; }
Expr Mutator::mutate_node(const Var*, const Expr& self) { return self; }
Expr Mutator::mutate_node(const Binary* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  return a.same_as(op->a) && b.same_as(op->b) ? self : Binary::make(op->op, a, b);
}
Expr Mutator::mutate_node(const Unary* op, const Expr& self) {
  Expr a = mutate(op->a);
  return a.same_as(op->a) ? self : Unary::make(op->op, a);
}
Expr Mutator::mutate_node(const Cast* op, const Expr& self) {
  Expr a = mutate(op->a);
  return a.same_as(op->a) ? self : Cast::make(op->type.dtype, a, op->mode);
}
Expr Mutator::mutate_node(const Select* op, const Expr& self) {
  Expr c = mutate(op->cond), a = mutate(op->a), b = mutate(op->b);
  return c.same_as(op->cond) && a.same_as(op->a) && b.same_as(op->b) ? self : Select::make(c, a, b);
}
Expr Mutator::mutate_node(const TileValid* op, const Expr& self) {
  bool changed = false;
  TileRef t = mutate_tile(op->tile, changed);
  return changed ? TileValid::make(t, op->axis, op->stored) : self;
}
Expr Mutator::mutate_node(const TileRead* op, const Expr& self) {
  bool changed = false;
  TileRef t = mutate_tile(op->tile, changed);
  return changed ? TileRead::make(t, op->type.dtype, op->row_broadcast, op->col_broadcast) : self;
}

Stmt Mutator::mutate_node(const Seq* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> body;
  body.reserve(op->body.size());
  for (const auto& s : op->body) {
    body.push_back(mutate(s));
    changed |= !body.back().same_as(s);
  }
  return changed ? Seq::make(std::move(body)) : self;
}
Stmt Mutator::mutate_node(const For* op, const Stmt& self) {
  Expr b = mutate(op->begin), e = mutate(op->end), st = mutate(op->step);
  Stmt body = mutate(op->body);
  if (b.same_as(op->begin) && e.same_as(op->end) && st.same_as(op->step) && body.same_as(op->body)) return self;
  return For::make(op->var, b, e, st, body, op->instr, op->loc);
}
Stmt Mutator::mutate_node(const LoopExit*, const Stmt& self) { return self; }
Stmt Mutator::mutate_node(const IfThenElse* op, const Stmt& self) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_case), e = mutate(op->else_case);
  if (c.same_as(op->cond) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return IfThenElse::make(c, t, e);
}
Stmt Mutator::mutate_node(const Assign* op, const Stmt& self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : Assign::make(op->var, v);
}
Stmt Mutator::mutate_node(const Load* op, const Stmt& self) {
  bool changed = false;
  TileRef d = mutate_tile(op->dst, changed);
  GMRegion s = mutate_region(op->src, changed);
  return changed ? Load::make(d, s, *op) : self;
}
Stmt Mutator::mutate_node(const Store* op, const Stmt& self) {
  bool changed = false;
  GMRegion d = mutate_region(op->dst, changed);
  TileRef s = mutate_tile(op->src, changed);
  Expr scale = op->scale ? mutate(op->scale) : op->scale;
  changed |= !scale.same_as(op->scale);
  return changed ? Store::make(d, s, *op, op->atomic_add, op->relu, scale) : self;
}
Stmt Mutator::mutate_node(const VecCompute* op, const Stmt& self) {
  bool changed = false;
  TileRef d = mutate_tile(op->dst, changed);
  Expr v = mutate(op->value);
  changed |= !v.same_as(op->value);
  std::array<Expr, 2> ext = mutate_pair(op->extent, changed);
  return changed ? VecCompute::make(d, v, *op, ext) : self;
}
Stmt Mutator::mutate_node(const RowReduce* op, const Stmt& self) {
  bool changed = false;
  TileRef d = mutate_tile(op->dst, changed);
  Expr v = mutate(op->value);
  changed |= !v.same_as(op->value);
  std::array<Expr, 2> ext = mutate_pair(op->extent, changed);
  return changed ? RowReduce::make(op->op, d, v, *op, ext, op->axis) : self;
}
Stmt Mutator::mutate_node(const Check* op, const Stmt& self) {
  bool changed = false;
  Expr c = mutate(op->cond);
  changed |= !c.same_as(op->cond);
  std::array<Expr, 3> args;
  for (size_t i = 0; i < args.size(); ++i) {
    args[i] = mutate(op->args[i]);
    changed |= !args[i].same_as(op->args[i]);
  }
  return changed ? Check::make(c, op->check, op->instr, op->axis, args) : self;
}

Stmt Mutator::mutate_node(const Move* op, const Stmt& self) {
  bool changed = false;
  TileRef d = mutate_tile(op->dst, changed), src = mutate_tile(op->src, changed);
  ir::MoveAttrs attrs = op->attrs;
  auto update = [&](Expr& e) {
    Expr r = mutate(e);
    changed |= !r.same_as(e);
    e = r;
  };
  for (auto& e : attrs.offset) update(e);
  for (auto& e : attrs.extent) update(e);
  for (auto& part : attrs.parts) {
    for (auto& e : part) update(e);
  }
  return changed ? Move::make(d, src, std::move(attrs), *op) : self;
}
Stmt Mutator::mutate_node(const SetValid* op, const Stmt& self) {
  bool changed = false;
  TileRef t = mutate_tile(op->tile, changed);
  Expr r = mutate(op->rows), c = mutate(op->cols);
  changed |= !r.same_as(op->rows) || !c.same_as(op->cols);
  return changed ? SetValid::make(t, r, c, *op) : self;
}
Stmt Mutator::mutate_node(const ElemAccess* op, const Stmt& self) {
  bool changed = false;
  TileRef t = op->tile.group >= 0 ? mutate_tile(op->tile, changed) : op->tile;
  Expr off = mutate(op->offset);
  Expr val = op->value ? mutate(op->value) : op->value;
  changed |= !off.same_as(op->offset) || !val.same_as(op->value);
  return changed ? ElemAccess::make(op->write, t, op->tensor, off, op->var, val, *op) : self;
}
Stmt Mutator::mutate_node(const Matmul* op, const Stmt& self) {
  bool changed = false;
  TileRef d = mutate_tile(op->dst, changed), a = mutate_tile(op->a, changed), b = mutate_tile(op->b, changed);
  TileRef bias = op->bias.group >= 0 ? mutate_tile(op->bias, changed) : op->bias;
  return changed ? Matmul::make(d, a, b, op->accumulate, *op, bias) : self;
}
Stmt Mutator::mutate_node(const VecRoutine* op, const Stmt& self) {
  bool changed = false;
  std::vector<TileRef> operands;
  for (const auto& t : op->operands) operands.push_back(mutate_tile(t, changed));
  return changed ? VecRoutine::make(op->routine, std::move(operands), op->writes, op->params, *op) : self;
}
Stmt Mutator::mutate_node(const Section* op, const Stmt& self) {
  Stmt body = mutate(op->body);
  return body.same_as(op->body) ? self : Section::make(op->core, body, op->loc);
}

Stmt Mutator::mutate_node(const Debug* op, const Stmt& self) {
  bool changed = false;
  auto m = [&](const Expr& e) {
    Expr r = mutate(e);
    changed |= !r.same_as(e);
    return r;
  };
  std::vector<Expr> args;
  for (const auto& a : op->args) args.push_back(m(a));
  Expr cond = m(op->cond);
  TileRef t = op->tile.group >= 0 ? mutate_tile(op->tile, changed) : op->tile;
  std::array<Expr, 2> off{m(op->offset[0]), m(op->offset[1])}, ext{m(op->extent[0]), m(op->extent[1])};
  GMRegion region = op->region.tensor >= 0 ? mutate_region(op->region, changed) : op->region;
  return changed ? Debug::make(op->op, op->format, std::move(args), cond, t, off, ext, *op, region) : self;
}

Stmt Mutator::mutate_node(const Sync* op, const Stmt& self) {
  bool changed = false;
  Expr event = mutate(op->event);
  changed |= !event.same_as(op->event);
  TileRef t = op->tile.group >= 0 ? mutate_tile(op->tile, changed) : op->tile;
  return changed ? Sync::make(op->op, op->src, op->dst, event, t, *op) : self;
}

}  // namespace pto::ir
