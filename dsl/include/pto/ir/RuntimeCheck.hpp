#pragma once
// The runtime checks of a kernel: what an ir::Check statement tests and what a failed one reports
// (KernelABI's CoreStatus; the emulator turns it into a pto::UserError).
#include <cstdint>

namespace pto {

/// The outcome of a failed runtime check inside a kernel.
enum class RuntimeCheck : int32_t {
  ok = 0,
  region_negative,     // a = rows, b = cols
  region_out_of_bounds,// a = offset, b = extent, c = tensor extent; axis in `axis`
  region_over_tile,    // a = extent, b = tile capacity; axis
  region_misaligned,   // a = byte offset, b = alignment
  store_beyond_valid,  // a = extent, b = valid; axis
  operand_smaller,     // a = needed, b = operand valid; axis
  result_over_tile,    // a = extent, b = destination capacity; axis
  range_step,          // a = step
  matmul_k_mismatch,   // a = Left valid columns (K), b = Right valid rows
  cross_event_range,   // a = event id
  instruction_budget,  // a = the budget (instructions per core)
  trap,                // pl::trap()
  assert_failed,       // a fatal pl::pto_assert
  offset_negative,     // a = offset; axis (a Vec -> Mat move's offset, an extract's window)
  window_past_valid,   // a = offset, b = source valid extent; axis (an extract's window)
  index_out_of_range,  // a = index (or byte offset, axis 1), b = its element in the index tile (flat), c = the limit;
                       // axis 2 / 3: a = the element offset of getval/setval in a tile / a tensor, c = its elements
  routine_extent,      // a = extent, b = bound, c = RoutineRule; axis (2: a byte offset) (a vector routine's rule on its operands)
  view_out_of_tile,    // a = offset, b = extent, c = tile capacity; axis (a tile view's window)
  view_overlap,        // a = the read view's column offset, b = the written view's, c = their row offset
  dim_index_out_of_range,  // a = index, b = the dimension's extent; axis = the tensor's dimension (a view fixing it)
  negative_stride,         // a = the stride; axis = the view's dimension (pl::make_tensor)
  view_outside_storage,    // a = first element, b = one past the last, c = the tensor's elements (a pl::make_tensor view)
};

/// How a vector routine's extent must relate to its bound (RuntimeCheck::routine_extent).
enum class RoutineRule : int32_t { multiple_of, at_most };

const char* runtime_check_name(RuntimeCheck c);

}  // namespace pto
