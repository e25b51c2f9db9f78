#pragma once
// One run of a vector routine (ir::Routine) over its operand tiles, for pto_rt_vec_routine
// (VecRoutines.cpp), which both engines call, so the JIT and the interpreter agree by
// construction. Semantics: docs/semantics.md ("Gather, scatter, padding and sorting"). The
// routines live by family: RoutineLayout.cpp (transpose, iota, fillpad), RoutineGather.cpp
// (gather, gatherb, gathermask, scatter), RoutineSort.cpp (sort32, mrgsort, mrgsort2).
// Private to the backend.
#include <array>
#include <cstdint>
#include <vector>

#include "pto/backend/KernelABI.hpp"
#include "pto/ir/IR.hpp"
#include "pto/support/DType.hpp"

namespace pto::routines {

using ir::Routine;

/// An index tile's elements as int32 (tile memory is raw bytes: may_alias reads them as such).
typedef int32_t __attribute__((may_alias)) IndexWord;

// ------------------------------------------------------------------------------ operands
inline int64_t es(const RoutineTile& t) { return static_cast<int64_t>(dtype_size(static_cast<DType>(t.dtype))); }
inline uint8_t* at(const RoutineTile& t, int64_t flat) { return static_cast<uint8_t*>(t.data) + flat * es(t); }
inline int64_t vrows(const RoutineTile& t) { return t.valid[0]; }
inline int64_t vcols(const RoutineTile& t) { return t.valid[1]; }
inline void set_valid(RoutineTile& t, int64_t rows, int64_t cols) { t.valid[0] = rows, t.valid[1] = cols; }
/// Row r of an int32 index tile, and its element (r, c) (no dtype lookup: they are on the
/// gathers' per-element path).
inline const IndexWord* index_row(const RoutineTile& idx, int64_t r) { return static_cast<const IndexWord*>(idx.data) + r * idx.cols; }
inline int32_t index(const RoutineTile& idx, int64_t r, int64_t c) { return index_row(idx, r)[c]; }

/// Calls f.template operator()<E>() with the element size E (1, 2, 4 or 8) as a constant, so the
/// element copies are single moves.
template <class F>
void with_element_size(int64_t e, F&& f) {
  switch (e) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 4: f.template operator()<4>(); break;
    default: f.template operator()<8>(); break;
  }
}

struct Fail {  // a failed rule, reported through pto_rt_fail
  RuntimeCheck check;
  int axis;
  int64_t a, b, c;
};

class RoutineRun {
 public:
  RoutineRun(RoutineTile* tiles, int32_t n, int64_t p0, int64_t p1) : t_(tiles), n_(n), p_{p0, p1} {}

  /// Elements written, or -1 with the failure in `fail`.
  int64_t run(Routine r, Fail& fail);

 private:
  int64_t failed(RuntimeCheck check, int axis, int64_t a, int64_t b, int64_t c = 0) {
    *fail_ = {check, axis, a, b, c};
    return -1;
  }
  /// The result of `rows x cols` fits the destination `t`.
  bool fits(const RoutineTile& t, int64_t rows, int64_t cols) {
    if (rows > t.rows) return failed(RuntimeCheck::result_over_tile, 0, rows, t.rows), false;
    if (cols > t.cols) return failed(RuntimeCheck::result_over_tile, 1, cols, t.cols), false;
    return true;
  }
  /// The operand `t` covers rows x cols.
  bool covers(const RoutineTile& t, int64_t rows, int64_t cols) {
    if (vrows(t) < rows) return failed(RuntimeCheck::operand_smaller, 0, rows, vrows(t)), false;
    if (vcols(t) < cols) return failed(RuntimeCheck::operand_smaller, 1, cols, vcols(t)), false;
    return true;
  }
  /// routine_extent: `value` (of `axis`) must relate to `bound` by `rule`.
  bool extent_rule(bool ok, RoutineRule rule, int axis, int64_t value, int64_t bound) {
    if (!ok) failed(RuntimeCheck::routine_extent, axis, value, bound, static_cast<int64_t>(rule));
    return ok;
  }

  int64_t transpose();
  int64_t iota();
  int64_t fillpad();
  int64_t gather();
  int64_t gatherb();
  int64_t gathermask();
  int64_t scatter();
  int64_t sort32();
  int64_t mrgsort();
  int64_t mrgsort2();

  RoutineTile* t_;
  int32_t n_;
  std::array<int64_t, 2> p_;
  Fail* fail_ = nullptr;
  std::vector<int64_t> indices_;  // the checked indices of a gather or scatter
};

}  // namespace pto::routines
