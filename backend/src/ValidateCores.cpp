// Checks that every instruction runs on a core kind that has its pipe and memories.
#include <optional>

#include "pto/backend/Passes.hpp"
#include "pto/ir/Accesses.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

bool core_has_pipe(ir::CoreKind core, ir::Pipe p) {
  switch (p) {
    case ir::Pipe::S: case ir::Pipe::MTE2: case ir::Pipe::ALL: return true;
    case ir::Pipe::V: case ir::Pipe::MTE3: return core == ir::CoreKind::AIV;
    case ir::Pipe::M: case ir::Pipe::MTE1: case ir::Pipe::FIX: return core == ir::CoreKind::AIC;
  }
  return false;
}

bool core_has_space(ir::CoreKind core, ir::MemSpace s) {
  return s == ir::MemSpace::GM || (s == ir::MemSpace::Vec) == (core == ir::CoreKind::AIV);
}

class CoreValidator : public ir::Visitor {
 public:
  CoreValidator(const ir::Kernel& k, const ChipProfile& chip) : k_(k), chip_(chip) {
    if (k.mode == ir::KernelMode::Vector) core_ = ir::CoreKind::AIV;
    if (k.mode == ir::KernelMode::Cube) core_ = ir::CoreKind::AIC;
  }

 protected:
  void visit_node(const ir::Section* op) override {
    const bool mix = k_.mode == ir::KernelMode::Mix;
    const bool fits = mix || (op->core == ir::CoreKind::AIC) == (k_.mode == ir::KernelMode::Cube);
    PTO_USER_CHECK(fits, (ErrorSite{.kernel = k_.name, .specialization = k_.specialization, .loc = op->loc}))
        << (op->core == ir::CoreKind::AIC ? "section_cube" : "section_vector") << " in a " << ir::kernel_mode_name(k_.mode)
        << " kernel: its code would never run; use kernel mode mix (or auto) for kernels with both sections";
    const auto saved = core_;
    core_ = op->core;
    ir::Visitor::visit_node(op);
    core_ = saved;
  }
  void visit_node(const ir::Load* op) override { instr(op, *op); }
  void visit_node(const ir::Store* op) override { instr(op, *op); }
  void visit_node(const ir::VecCompute* op) override { instr(op, *op); }
  void visit_node(const ir::RowReduce* op) override { instr(op, *op); }
  void visit_node(const ir::VecRoutine* op) override { instr(op, *op); }
  void visit_node(const ir::Matmul* op) override { instr(op, *op); }
  void visit_node(const ir::Debug* op) override { instr(op, *op); }
  void visit_node(const ir::ElemAccess* op) override { instr(op, *op); }
  void visit_node(const ir::SetValid* op) override {
    const auto& g = k_.groups[op->tile.group];
    PTO_USER_CHECK(!core_ || core_has_space(*core_, g.space), site(*op))
        << "set_validshape of tile " << g.name << " in " << ir::mem_space_name(g.space) << ", which the "
        << ir::core_kind_name(*core_) << " does not have";
  }
  void visit_node(const ir::Move* op) override {
    if (!op->attrs.cross_core) return instr(op, *op);
    const auto from = k_.groups[op->src.group].space, to = k_.groups[op->dst.group].space;
    const bool present = chip_.path(move_path(to, from)).present();
    PTO_USER_CHECK(present, site(*op)) << "the '" << chip_.name << "' chip profile has no " << ir::mem_space_name(from) << " -> "
                                         << ir::mem_space_name(to) << " path; pass the data through a GM workspace";
    PTO_USER_CHECK(k_.mode == ir::KernelMode::Mix, site(*op))
        << "the " << ir::mem_space_name(from) << " -> " << ir::mem_space_name(to) << " move is in a " << ir::kernel_mode_name(k_.mode)
        << " kernel: it connects the AIC and the AIVs of a mix kernel's block (put it in a section of a kernel with both)";
    instr(op, *op);
  }
  void visit_node(const ir::Sync* op) override {
    const bool cross = op->op == ir::SyncOp::CrossSet || op->op == ir::SyncOp::CrossWait;
    PTO_USER_CHECK(!cross || k_.mode == ir::KernelMode::Mix, site(*op))
        << ir::sync_op_name(op->op) << " in a " << ir::kernel_mode_name(k_.mode)
        << " kernel: cross-core flags connect the AIC and AIVs of a mix kernel's block";
    if (op->op == ir::SyncOp::SyncAll && !core_) return;  // outside sections: every core of the launch meets
    instr(op, *op);
    if (core_) {
      for (ir::Pipe p : {op->src, op->dst}) {
        PTO_USER_CHECK(core_has_pipe(*core_, p), site(*op)) << ir::sync_op_name(op->op) << " names pipe " << ir::pipe_name(p) << ", which the "
                                                            << ir::core_kind_name(*core_) << " does not have";
      }
    }
  }

 private:
  ErrorSite site(const ir::Instr& i) const {
    ErrorSite s = instr_site(k_, i);
    s.core_kind = core_ ? ir::core_kind_name(*core_) : "";
    return s;
  }

  void instr(const ir::StmtNode* node, const ir::Instr& i) {
    const auto& info = k_.instrs[i.id];
    if (!core_ && info.pipe == ir::Pipe::S && ir::tile_accesses(node).empty()) return;  // printf & co. run on every core
    PTO_USER_CHECK(core_.has_value(), site(i))
        << info.op << " outside a section of a mix kernel: put it in pl::section_cube or pl::section_vector";
    PTO_USER_CHECK(core_has_pipe(*core_, info.pipe), site(i)) << info.op << " runs on pipe " << ir::pipe_name(info.pipe)
                                                             << ", which the " << ir::core_kind_name(*core_) << " does not have";
    for (const auto& a : ir::tile_accesses(node)) {
      if (a.remote) continue;  // the other kind of core's memory, reached by a cross-core path
      const auto& g = k_.groups[a.tile.group];
      PTO_USER_CHECK(core_has_space(*core_, g.space), site(i))
          << info.op << " uses tile " << g.name << " in " << ir::mem_space_name(g.space) << ", which the "
          << ir::core_kind_name(*core_) << " does not have (" << (*core_ == ir::CoreKind::AIV ? "AIVs have Vec" : "AICs have Mat, Left, Right and Acc")
          << ")";
    }
  }

  const ir::Kernel& k_;
  const ChipProfile& chip_;
  std::optional<ir::CoreKind> core_;
};

}  // namespace

void validate_cores(const ir::Kernel& k, const ChipProfile& chip) {
  PTO_INTERNAL_CHECK(k.mode != ir::KernelMode::Auto) << "kernel mode not resolved before lowering";
  CoreValidator(k, chip).visit(k.body);
}

}  // namespace pto::backend
