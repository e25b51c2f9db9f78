#include <cstdio>

#include "pto/backend/Passes.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/support/Environment.hpp"

namespace pto::backend {

int debug_level() { return Environment::get().debug_level; }

int64_t gm_move_alignment(const ChipProfile& chip, ir::MemSpace space) {
  return space == ir::MemSpace::Acc ? 1 : chip.limits(space).align;
}

ErrorSite instr_site(const ir::Kernel& k, const ir::Instr& i) {
  const auto& info = k.instrs[static_cast<size_t>(i.id)];
  return ErrorSite{.kernel = k.name, .specialization = k.specialization, .pipe = ir::pipe_name(info.pipe), .instruction = info.text, .loc = i.loc};
}

namespace {
void log_ir(const char* after, const ir::Kernel& k) {
  if (debug_level() >= 2) std::fprintf(stderr, "---- IR after %s ----\n%s\n", after, ir::to_string(k).c_str());
}
}  // namespace

void lower(ir::Kernel& k, const ChipProfile& chip, const LowerOptions& options) {
  log_ir("trace", k);
  if (options.mode != ir::KernelMode::Auto) k.mode = options.mode;
  validate_cores(k, chip);
  resolve_layouts(k, chip);
  plan_memory(k, chip);
  log_ir("plan_memory", k);
  validate_moves(k, chip);
  log_ir("validate_moves", k);
  if (options.auto_mutex) {
    insert_auto_mutex(k);
    log_ir("insert_auto_mutex", k);
  }
  insert_checks(k, chip);
  log_ir("insert_checks", k);
}

}  // namespace pto::backend
