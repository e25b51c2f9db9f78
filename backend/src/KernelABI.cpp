#include "pto/backend/KernelABI.hpp"

namespace pto {

// Called by generated code on a failed runtime check; the kernel returns right after. Only the
// first failure of a core is kept.
extern "C" void pto_rt_fail(CoreContext* ctx, int32_t instr, int32_t check, int32_t axis, int64_t a, int64_t b, int64_t c) {
  CoreStatus* s = ctx->status;
  if (s->failed) return;
  s->failed = 1;
  s->instr = instr;
  s->check = static_cast<RuntimeCheck>(check);
  s->axis = axis;
  s->a = a;
  s->b = b;
  s->c = c;
}

}  // namespace pto
