// Trace-time checks of PyPTO Pro's spellings (pto/lang/PyptoForms.hpp).
#include "pto/lang/PyptoForms.hpp"

namespace pto::lang::detail {

void check_expand_operand(const TileShape& src, const TileShape& vec, int dim, const char* op, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  PTO_USER_CHECK(dim == 0 || dim == 1, site) << op << " with dim " << dim << ": dim is 0 (a [rows, 1] operand) or 1 (a [1, cols] one)";
  PTO_USER_CHECK(src.rank == 2 && vec.rank == 2, site) << op << " takes 2-D {rows, cols} tiles";
  if (dim == 0) {
    PTO_USER_CHECK(vec.cols == 1 && vec.rows == src.rows, site)
        << op << " with dim 0 broadcasts a [" << src.rows << ", 1] tile along each row of a [" << src.rows << ", " << src.cols
        << "] one; got a [" << vec.rows << ", " << vec.cols << "] tile";
  } else {
    PTO_USER_CHECK(vec.rows == 1 && vec.cols == src.cols, site)
        << op << " with dim 1 broadcasts a [1, " << src.cols << "] tile down each column of a [" << src.rows << ", " << src.cols
        << "] one; got a [" << vec.rows << ", " << vec.cols << "] tile";
  }
}

void check_reduce_dim(int dim, const char* op, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(dim == 0, ctx.site(SourceLoc::from(loc)))
      << op << " with dim " << dim << ": only dim 0 (each row into a [rows, 1] tile) is supported; reduce columns by "
      << "transposing through the cube or with one-row loads";
}

std::array<Int, 2> offsets_of(std::initializer_list<Int> offsets, int rank, const char* op, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(static_cast<int>(offsets.size()) == rank, ctx.site(SourceLoc::from(loc)))
      << op << " with " << offsets.size() << " offsets on a " << rank << "-D tensor: give one offset per dimension";
  const Int* o = offsets.begin();
  return rank == 1 ? std::array<Int, 2>{Int(0), o[0]} : std::array<Int, 2>{o[0], o[1]};
}

}  // namespace pto::lang::detail
