#include "pto/ir/Printer.hpp"

#include <fmt/format.h>

#include "pto/ir/Visitor.hpp"

namespace pto::ir {
namespace {

class Printer {
 public:
  explicit Printer(const Kernel* k) : kernel_(k) {}

  std::string expr(const Expr& e) {
    if (!e) return "<none>";
    if (const auto* op = e.as<IntImm>()) return op->type.dtype == DType::boolean ? (op->value ? "true" : "false") : std::to_string(op->value);
    if (const auto* op = e.as<FloatImm>()) return fmt::format("{}", op->value);
    if (const auto* op = e.as<Var>()) return op->name;
    if (const auto* op = e.as<Binary>()) {
      if (op->op == BinaryOp::Min || op->op == BinaryOp::Max || op->op == BinaryOp::Pow)
        return fmt::format("{}({}, {})", binary_op_name(op->op), expr(op->a), expr(op->b));
      return fmt::format("({} {} {})", expr(op->a), binary_op_name(op->op), expr(op->b));
    }
    if (const auto* op = e.as<Unary>()) return fmt::format("{}({})", unary_op_name(op->op), expr(op->a));
    if (const auto* op = e.as<Cast>()) {
      if (op->mode == RoundMode::Default) return fmt::format("cast<{}>({})", dtype_name(op->type.dtype), expr(op->a));
      return fmt::format("cast<{}, {}>({})", dtype_name(op->type.dtype), round_mode_name(op->mode), expr(op->a));
    }
    if (const auto* op = e.as<Select>()) return fmt::format("select({}, {}, {})", expr(op->cond), expr(op->a), expr(op->b));
    if (const auto* op = e.as<TileRead>()) return tile(op->tile) + (op->row_broadcast ? ".bcast" : "") + (op->col_broadcast ? ".colbcast" : "");
    if (const auto* op = e.as<TileValid>()) {
      return fmt::format("{}_{}({})", op->stored ? "stored" : "valid", op->axis == 0 ? "rows" : "cols", tile(op->tile));
    }
    return "<?>";
  }

  std::string tile(const TileRef& t) {
    const std::string name = kernel_ && t.group >= 0 && t.group < static_cast<int>(kernel_->groups.size())
                                 ? kernel_->groups[t.group].name
                                 : fmt::format("g{}", t.group);
    std::string out = fmt::format("{}[{}]", name, expr(t.slot));
    if (t.window) {
      out += fmt::format(".view({} +: {}, {} +: {})", expr(t.window->offset[0]), t.window->extent[0], expr(t.window->offset[1]),
                         t.window->extent[1]);
    }
    return out;
  }

  std::string tensor_name(int tensor) {
    return kernel_ && tensor >= 0 && tensor < static_cast<int>(kernel_->tensors.size()) ? kernel_->tensors[tensor].name
                                                                                         : fmt::format("t{}", tensor);
  }

  std::string region(const GMRegion& r) {
    const std::string name = tensor_name(r.tensor);
    return fmt::format("{}[{} +: {}, {} +: {}]", name, expr(r.offset[0]), expr(r.extent[0]), expr(r.offset[1]), expr(r.extent[1]));
  }

  void stmt(const Stmt& s, int indent) {
    if (!s) return;
    const std::string pad(indent * 2, ' ');
    if (const auto* op = s.as<Seq>()) {
      for (const auto& c : op->body) stmt(c, indent);
    } else if (const auto* op = s.as<For>()) {
      out_ += fmt::format("{}for {} in range({}, {}, {}) {{\n", pad, expr(op->var), expr(op->begin), expr(op->end), expr(op->step));
      stmt(op->body, indent + 1);
      out_ += pad + "}\n";
    } else if (const auto* op = s.as<LoopExit>()) {
      out_ += fmt::format("{}{}\n", pad, op->brk ? "break" : "continue");
    } else if (const auto* op = s.as<IfThenElse>()) {
      out_ += fmt::format("{}if {} {{\n", pad, expr(op->cond));
      stmt(op->then_case, indent + 1);
      if (op->else_case) {
        out_ += pad + "} else {\n";
        stmt(op->else_case, indent + 1);
      }
      out_ += pad + "}\n";
    } else if (const auto* op = s.as<Assign>()) {
      out_ += fmt::format("{}{} = {}\n", pad, expr(op->var), expr(op->value));
    } else if (const auto* op = s.as<Load>()) {
      out_ += fmt::format("{}#{} load {} <- {}\n", pad, op->id, tile(op->dst), region(op->src));
    } else if (const auto* op = s.as<Store>()) {
      out_ += fmt::format("{}#{} store {} <- {}{}{}\n", pad, op->id, region(op->dst), tile(op->src),
                          std::string(op->atomic_add ? " (atomic add)" : "") + (op->relu ? " (relu)" : ""),
                          op->scale ? " (scale " + expr(op->scale) + ")" : std::string());
    } else if (const auto* op = s.as<VecCompute>()) {
      out_ += fmt::format("{}#{} vec {} = {}{}\n", pad, op->id, tile(op->dst), expr(op->value), extent(op->extent));
    } else if (const auto* op = s.as<Sync>()) {
      std::string args;
      switch (op->op) {
        case SyncOp::SetFlag: case SyncOp::WaitFlag:
          args = fmt::format("{} -> {}, event {}", pipe_name(op->src), pipe_name(op->dst), expr(op->event));
          break;
        case SyncOp::Barrier: args = pipe_name(op->src); break;
        case SyncOp::SyncAll: break;
        case SyncOp::CrossSet: case SyncOp::CrossWait:
          args = fmt::format("{}, event {}", pipe_name(op->src), expr(op->event));
          break;
        default:
          args = op->tile.group >= 0 ? fmt::format("{}, mutex of {}", pipe_name(op->src), tile(op->tile))
                                     : fmt::format("{}, mutex {}", pipe_name(op->src), expr(op->event));
      }
      out_ += fmt::format("{}#{} {}({})\n", pad, op->id, sync_op_name(op->op), args);
    } else if (const auto* op = s.as<Move>()) {
      std::string how = op->attrs.transpose ? " (transposed)" : "";
      if (op->attrs.offset[0]) {
        how += fmt::format(" {} [{}, {}]", op->attrs.window ? "window from" : "at", expr(op->attrs.offset[0]), expr(op->attrs.offset[1]));
      }
      if (op->attrs.cross_core && !op->attrs.offset[0]) how += fmt::format(" ({})", acc_to_vec_name(op->attrs.split));
      for (int v = 0; v < 2; ++v) {
        const auto& p = op->attrs.parts[v];
        if (p[0]) how += fmt::format(" aiv{} <- [{} +: {}, {} +: {}]", v, expr(p[0]), expr(p[1]), expr(p[2]), expr(p[3]));
      }
      out_ += fmt::format("{}#{} move {} <- {}{}\n", pad, op->id, tile(op->dst), tile(op->src), how);
    } else if (const auto* op = s.as<SetValid>()) {
      out_ += fmt::format("{}#{} set_validshape {} = [{}, {}]\n", pad, op->id, tile(op->tile), expr(op->rows), expr(op->cols));
    } else if (const auto* op = s.as<ElemAccess>()) {
      const std::string where = op->tensor >= 0 ? tensor_name(op->tensor) : tile(op->tile);
      out_ += op->write ? fmt::format("{}#{} setval {}[{}] = {}\n", pad, op->id, where, expr(op->offset), expr(op->value))
                        : fmt::format("{}#{} {} = getval {}[{}]\n", pad, op->id, expr(op->var), where, expr(op->offset));
    } else if (const auto* op = s.as<Matmul>()) {
      out_ += fmt::format("{}#{} matmul {} {} {} x {}{}\n", pad, op->id, tile(op->dst), op->accumulate ? "+=" : "=", tile(op->a), tile(op->b),
                          op->bias.group >= 0 ? " + bias " + tile(op->bias) : std::string());
    } else if (const auto* op = s.as<VecRoutine>()) {
      std::string args;
      for (size_t i = 0; i < op->operands.size(); ++i) args += (i ? ", " : "") + tile(op->operands[i]);
      out_ += fmt::format("{}#{} {}({}) [{}, {}]\n", pad, op->id, routine_name(op->routine), args, op->params[0], op->params[1]);
    } else if (const auto* op = s.as<Debug>()) {
      std::string args;
      for (const auto& a : op->args) args += ", " + expr(a);
      if (op->op == DebugOp::Dump && op->region.tensor >= 0) {
        args = region(op->region);
      } else if (op->op == DebugOp::Dump) {
        args = tile(op->tile);
        if (op->extent[0]) args += fmt::format(" [{}, {}] +: [{}, {}]", expr(op->offset[0]), expr(op->offset[1]), expr(op->extent[0]), expr(op->extent[1]));
      } else if (op->op == DebugOp::Assert) {
        args = expr(op->cond) + ", \"" + op->format + "\"" + args;
      } else if (op->op == DebugOp::Printf) {
        args = "\"" + op->format + "\"" + args;
      }
      out_ += fmt::format("{}#{} {}({})\n", pad, op->id, debug_op_name(op->op), args);
    } else if (const auto* op = s.as<Section>()) {
      out_ += fmt::format("{}section_{} {{\n", pad, op->core == CoreKind::AIC ? "cube" : "vector");
      stmt(op->body, indent + 1);
      out_ += pad + "}\n";
    } else if (const auto* op = s.as<RowReduce>()) {
      out_ += fmt::format("{}#{} {} {} <- {}{}\n", pad, op->id, reduce_op_name(op->op, op->axis), tile(op->dst), expr(op->value),
                          extent(op->extent));
    } else if (const auto* op = s.as<Check>()) {
      out_ += fmt::format("{}check #{} {}: {} [axis {}; {}, {}, {}]\n", pad, op->instr, runtime_check_name(op->check), expr(op->cond), op->axis,
                          expr(op->args[0]), expr(op->args[1]), expr(op->args[2]));
    }
  }

  std::string take() { return std::move(out_); }

  /// " over [rows, cols]" for an explicit extent, else "".
  std::string extent(const std::array<Expr, 2>& e) { return e[0] ? fmt::format(" over [{}, {}]", expr(e[0]), expr(e[1])) : ""; }

 private:
  const Kernel* kernel_;
  std::string out_;
};

}  // namespace

std::string to_string(const Expr& e, const Kernel* kernel) { return Printer(kernel).expr(e); }

std::string to_string(const Stmt& s, const Kernel* kernel) {
  Printer p(kernel);
  p.stmt(s, 0);
  return p.take();
}

std::string to_string(const Kernel& k) {
  std::string out = fmt::format("kernel {}({})\n", k.name, k.specialization);
  for (const auto& s : k.scalars) out += fmt::format("  scalar {}\n", to_string(s.var));
  for (const auto& g : k.groups) {
    out += fmt::format("  tiles {}: {} x {}[{}x{}] in {}", g.name, g.depth, dtype_name(g.dtype), g.rows, g.cols, mem_space_name(g.space));
    if (g.layout != Layout::Default) out += fmt::format(" {}", layout_name(g.layout));
    if (g.offset >= 0) out += fmt::format(" @ {} (+{} B/slot){}", g.offset, g.slot_bytes, g.addrs.empty() ? "" : " placed");
    out += "\n";
  }
  Printer p(&k);
  p.stmt(k.body, 1);
  return out + p.take();
}

}  // namespace pto::ir
