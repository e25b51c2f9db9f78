// pto_rt_vec_routine: the vector routines (ir::Routine) both engines call, so the JIT and the
// interpreter agree by construction. Semantics: docs/semantics.md ("Gather, scatter, padding and
// sorting"). The routines themselves: routines/RoutineRun.hpp.
#include <vector>

#include "pto/backend/KernelABI.hpp"
#include "pto/support/Error.hpp"
#include "routines/RoutineRun.hpp"

namespace pto {
namespace routines {

int64_t RoutineRun::run(Routine r, Fail& fail) {
  fail_ = &fail;
  switch (r) {
    case Routine::Gather: return gather();
    case Routine::GatherB: return gatherb();
    case Routine::GatherMask: return gathermask();
    case Routine::Scatter: return scatter();
    case Routine::FillPad: return fillpad();
    case Routine::Sort32: return sort32();
    case Routine::MrgSort: return mrgsort();
    case Routine::MrgSort2: return mrgsort2();
    case Routine::Transpose: return transpose();
    case Routine::Iota: return iota();
  }
  return 0;
}

}  // namespace routines

namespace {

using ir::Routine;
using routines::Fail;
using routines::RoutineRun;

/// Operands are read before the destination is written: a read operand whose memory is also a
/// written one (one slot named two ways, e.g. g.current() and g[0]) is read from a copy.
/// fillpad in place is the exception: it leaves src's valid part where it is.
void copy_aliased_reads(Routine r, RoutineTile* tiles, int32_t n, int32_t writes, std::vector<std::vector<uint8_t>>& copies) {
  if (r == Routine::FillPad) return;
  auto bytes = [](const RoutineTile& t) { return t.rows * t.cols * routines::es(t); };
  for (int32_t i = writes; i < n; ++i) {
    auto* lo = static_cast<uint8_t*>(tiles[i].data);
    bool aliased = false;
    for (int32_t w = 0; w < writes; ++w) {
      auto* wlo = static_cast<uint8_t*>(tiles[w].data);
      aliased |= lo < wlo + bytes(tiles[w]) && wlo < lo + bytes(tiles[i]);
    }
    if (!aliased) continue;
    copies.emplace_back(lo, lo + bytes(tiles[i]));
    tiles[i].data = copies.back().data();
  }
}

int32_t writes_of(Routine r, int32_t n) {
  switch (r) {
    case Routine::Gather: return n == 4 ? 2 : 1;
    case Routine::Sort32: return n == 4 ? 2 : 1;
    case Routine::MrgSort2: return 2;
    default: return 1;
  }
}

}  // namespace

extern "C" int64_t pto_rt_vec_routine(CoreContext* ctx, int32_t instr, int32_t routine, RoutineTile* tiles, int32_t n, int64_t p0,
                                      int64_t p1) {
  const auto r = static_cast<Routine>(routine);
  PTO_INTERNAL_CHECK(n >= 1 && n <= kMaxRoutineOperands) << "a vector routine with " << n << " operands";
  std::vector<std::vector<uint8_t>> copies;  // no reserve: a copy's bytes stay put as the list grows
  copy_aliased_reads(r, tiles, n, writes_of(r, n), copies);
  Fail fail{};
  const int64_t done = RoutineRun(tiles, n, p0, p1).run(r, fail);
  if (done < 0) pto_rt_fail(ctx, instr, static_cast<int32_t>(fail.check), fail.axis, fail.a, fail.b, fail.c);
  return done;
}

}  // namespace pto
