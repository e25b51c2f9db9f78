// Tensor parameters while tracing: their extents (static constants or dynamic Params) and the
// errors for using a dynamic extent where a C++ number is needed.
#include <fmt/format.h>

#include "pto/lang/Tensor.hpp"

namespace pto::lang {

void TraceContext::bind_tensor_extents(int first_hidden_scalar) {
  int next = first_hidden_scalar;
  for (auto& t : kernel_.tensors) {
    for (int d = 0; d < t.rank; ++d) {
      if (!((t.dynamic >> d) & 1)) {
        t.extent[d] = ir::IntImm::make(t.shape[d]);
        continue;
      }
      const std::string name = fmt::format("{}.shape{}", t.name, d);
      t.extent[d] = new_var(name, ir::VarKind::Param, next++, DType::i64);
      kernel_.scalars.push_back({name, t.extent[d]});
    }
    if (t.contiguous()) {  // row-major: products of the later extents (constants unless dynamic)
      t.stride[t.rank - 1] = ir::IntImm::make(1);
      for (int d = t.rank - 2; d >= 0; --d) {  // the row stride is the last extent itself (the race checker's width, Trace.cpp)
        t.stride[d] = d == t.rank - 2 ? t.extent[d + 1] : ir::Binary::make(ir::BinaryOp::Mul, t.stride[d + 1], t.extent[d + 1]);
      }
    } else {  // a host view's strides, part of the specialisation
      for (int d = 0; d < t.rank; ++d) t.stride[d] = ir::IntImm::make(t.strides[d]);
    }
  }
}

namespace detail {

[[noreturn]] void dynamic_dim_used_statically(int tensor, int dim, const char* what, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  throw UserError(fmt::format("{}: dimension {} of tensor parameter {} is dynamic (pl::DYNAMIC), so its extent is a runtime "
                              "value, not a C++ number; use extent({}) (a pl::Int), or declare the dimension static",
                              what, dim, tensor, dim),
                  ctx.site(SourceLoc::from(loc)));
}

[[noreturn]] void view_of_dynamic_tensor(int tensor, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  throw UserError(fmt::format("view of tensor parameter {}, which has a dynamic dimension: view reshapes static shapes only; "
                              "cut the region with slice(...) instead",
                              tensor),
                  ctx.site(SourceLoc::from(loc)));
}

}  // namespace detail
}  // namespace pto::lang
