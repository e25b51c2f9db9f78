#include "LaunchErrors.hpp"

#include <fmt/format.h>

namespace pto::emulator {

namespace {

const char* axis_name(int axis) { return axis == 0 ? "rows" : "columns"; }

std::string tensor_name(const CompiledKernel& k, int instr) {
  const int t = instr >= 0 ? k.ir.instrs[instr].tensor : -1;
  return t >= 0 ? k.ir.tensors[t].name : "?";
}

/// For a valid extent of 0: the likely cause.
std::string unwritten_hint(int64_t valid) {
  return valid != 0 ? "" : " (nothing on this core has written the tile slot; data another core moved in (Acc -> Vec, Vec -> Mat) "
                           "needs pl::set_validshape on the receiving core, and so does a tile written only through views)";
}

}  // namespace

std::string describe_failure(const CompiledKernel& k, const CoreStatus& s) {
  const std::string op = s.instr >= 0 ? k.ir.instrs[s.instr].op : "instruction";
  const char* axis = axis_name(s.axis);
  switch (s.check) {
    case RuntimeCheck::region_negative:
      return fmt::format("{} of a negative extent: {} {}", op, s.a, axis);
    case RuntimeCheck::region_out_of_bounds:
      return fmt::format("{} out of bounds on tensor {}: {} [{}, {}) (offset {}, length {}) outside the tensor's {} {}", op,
                         tensor_name(k, s.instr), axis, s.a, s.a + s.b, s.a, s.b, s.c, axis);
    case RuntimeCheck::region_over_tile:
      return fmt::format("{} of {} {} into a tile of {} {} (over capacity)", op, s.a, axis, s.b, axis);
    case RuntimeCheck::region_misaligned:
      return fmt::format("{} misaligned: the region starts {} B into its row, not a multiple of {} B", op, s.a, s.b);
    case RuntimeCheck::store_beyond_valid:
      return fmt::format("store of {} {} from a tile whose valid extent is {} {}{}", s.a, axis, s.b, axis, unwritten_hint(s.b));
    case RuntimeCheck::operand_smaller:
      return fmt::format("an operand's valid extent ({} {}) is smaller than the instruction's ({} {}){}", s.b, axis, s.a, axis,
                         unwritten_hint(s.b));
    case RuntimeCheck::offset_negative:
      return fmt::format("{} at a negative {} offset {}", op, s.axis == 0 ? "row" : "column", s.a);
    case RuntimeCheck::window_past_valid:
      return fmt::format("{} window at {} {} starts past the source tile's valid extent of {} {}{}", op, s.axis == 0 ? "row" : "column",
                         s.a, s.b, axis, unwritten_hint(s.b));
    case RuntimeCheck::index_out_of_range:
      if (s.axis >= 2) {
        return fmt::format("{}: element offset {} is outside the {} elements of the {}", op, s.a, s.c,
                           s.axis == 2 ? std::string("tile") : "tensor " + tensor_name(k, s.instr));
      }
      return s.axis == 1 ? fmt::format("{}: byte offset {} (element {} of the offsets tile) does not leave a 32-byte block inside the "
                                       "source's {} valid bytes", op, s.a, s.b, s.c)
                         : fmt::format("{}: index {} (element {} of the index tile) is outside the {} elements it may address", op,
                                       s.a, s.b, s.c);
    case RuntimeCheck::routine_extent:
      return s.c == static_cast<int64_t>(RoutineRule::multiple_of)
                 ? fmt::format("{}: {} {} not a multiple of {}", op, s.a, s.axis == 2 ? "is a byte offset" : (s.axis == 0 ? "rows are" : "columns are"), s.b)
                 : fmt::format("{}: {} {} where at most {} are allowed", op, s.a, axis, s.b);
    case RuntimeCheck::view_out_of_tile:
      return fmt::format("{}: a tile view's {} [{}, {}) (offset {}, length {}) is outside the tile's {} {}", op, axis, s.a, s.a + s.b,
                         s.a, s.b, s.c, axis);
    case RuntimeCheck::view_overlap:
      return fmt::format("{}: it writes columns from {} of a tile view and reads the same row of the same slot from column {}: a "
                         "partial overlap, whose result would depend on the order the elements are computed in; write into "
                         "another tile (or read the written window itself)", op, s.b, s.a);
    case RuntimeCheck::dim_index_out_of_range:
      return fmt::format("{} out of bounds on tensor {}: index {} of dimension {} is outside its extent {}", op, tensor_name(k, s.instr),
                         s.a, s.axis, s.b);
    case RuntimeCheck::negative_stride:
      return fmt::format("{} through a view of tensor {} with a negative stride {} (dimension {}): strides are elements, >= 0", op,
                         tensor_name(k, s.instr), s.a, s.axis);
    case RuntimeCheck::view_outside_storage:
      return fmt::format("{} out of bounds on tensor {}: elements [{}, {}) of the pl::make_tensor view are outside the tensor's {} elements",
                         op, tensor_name(k, s.instr), s.a, s.b, s.c);
    case RuntimeCheck::result_over_tile:
      return fmt::format("the result has {} {} but the destination tile holds {}", s.a, axis, s.b);
    case RuntimeCheck::range_step:
      return fmt::format("pl::range needs a nonzero step, got {} at run time", s.a);
    case RuntimeCheck::matmul_k_mismatch:
      return fmt::format("matmul of a Left tile with {} valid columns (K) by a Right tile with {} valid rows: K must match", s.a, s.b);
    case RuntimeCheck::cross_event_range:
      return fmt::format("cross-core event id {} is out of range 0..15", s.a);
    case RuntimeCheck::instruction_budget:
      return fmt::format("instruction budget exceeded: the core ran more than {} instructions (a runaway loop?); raise "
                         "JitOptions::instruction_budget if the kernel really needs more", k.instruction_budget);
    case RuntimeCheck::trap:
      return "trap: the kernel called pl::trap()";
    case RuntimeCheck::assert_failed:
      return "assertion failed (JitOptions::fatal_assert is on); the message was delivered to the debug output";
    case RuntimeCheck::ok:
      break;
  }
  return "runtime check failed";
}

[[noreturn]] void throw_failure(const CompiledKernel& k, const CoreStatus& s, int core, ir::CoreKind kind) {
  ErrorSite site{.kernel = k.ir.name, .specialization = k.ir.specialization, .core = core, .core_kind = ir::core_kind_name(kind)};
  if (s.instr >= 0 && s.instr < static_cast<int>(k.ir.instrs.size())) {
    const auto& info = k.ir.instrs[s.instr];
    site.pipe = ir::pipe_name(info.pipe);
    site.instruction = fmt::format("#{} {}", s.instr, info.text);
    site.loc = info.loc;
  }
  throw UserError(describe_failure(k, s), std::move(site));
}

[[noreturn]] void throw_model_failure(const CompiledKernel& k, const std::string& reason, int instr, int core, ir::CoreKind kind) {
  ErrorSite site{.kernel = k.ir.name, .specialization = k.ir.specialization, .core = core, .core_kind = ir::core_kind_name(kind)};
  if (instr >= 0 && instr < static_cast<int>(k.ir.instrs.size())) {
    const auto& info = k.ir.instrs[instr];
    site.pipe = ir::pipe_name(info.pipe);
    site.instruction = fmt::format("#{} {}", instr, info.text);
    site.loc = info.loc;
  }
  throw UserError(reason, std::move(site));
}

}  // namespace pto::emulator
