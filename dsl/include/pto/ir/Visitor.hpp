#pragma once
// Recursive IR traversal. Override the nodes you care about and call the base to keep walking.
#include "pto/ir/IR.hpp"

namespace pto::ir {

class Visitor {
 public:
  virtual ~Visitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

 protected:
#define PTO_X(name) virtual void visit_node(const name* op);
  PTO_FOR_EACH_IR_EXPR(PTO_X) PTO_FOR_EACH_IR_STMT(PTO_X)
#undef PTO_X
  void visit_region(const GMRegion& r);
  void visit_tile(const TileRef& t);
};

/// Rebuilds the IR bottom-up; nodes whose children did not change are shared, not copied.
class Mutator {
 public:
  virtual ~Mutator() = default;
  Expr mutate(const Expr& e);
  Stmt mutate(const Stmt& s);

 protected:
#define PTO_X(name) virtual Expr mutate_node(const name* op, const Expr& self);
  PTO_FOR_EACH_IR_EXPR(PTO_X)
#undef PTO_X
#define PTO_X(name) virtual Stmt mutate_node(const name* op, const Stmt& self);
  PTO_FOR_EACH_IR_STMT(PTO_X)
#undef PTO_X
  GMRegion mutate_region(const GMRegion& r, bool& changed);
  std::array<Expr, 2> mutate_pair(const std::array<Expr, 2>& e, bool& changed);
  TileRef mutate_tile(const TileRef& t, bool& changed);
};

}  // namespace pto::ir
