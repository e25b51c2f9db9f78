#pragma once
// Debugging aids with PyPTO Pro's names, on the scalar pipe. Their output is tagged with the
// kernel, block, core kind and simulated time and delivered in a deterministic order after the
// launch (to stdout, or to a sink set with pto::set_debug_sink).
//   printf(fmt, args...)        C-style placeholders (pto/support/DebugFormat.hpp): %d %i %u %x (pl::Int,
//                               pl::Bool, integers), %f %e %g (pl::Float, C++ floats), %p (a pl::Tensor:
//                               its GM address), with flags/width/precision, or {}
//   pto_assert(cond, fmt, ...)  prints "assertion failed" + the message when cond is false
//                               (fatal: a pto::UserError, with JitOptions{.fatal_assert = true})
//   trap()                      stops the launch with a pto::UserError naming the instruction
//   dump_data(tile [, {r0, c0}, {rows, cols}])   prints a tile's valid region, or a window of it
//   dump_data(tensor or tensor.slice(...))       prints a GM region as the core sees it then
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "pto/lang/Scalar.hpp"
#include "pto/lang/Tensor.hpp"
#include "pto/lang/Tile.hpp"
#include "pto/support/DebugFormat.hpp"

namespace pto::lang {

/// A format string that remembers where it was written (the call's source line).
struct Format {
  std::string text;
  std::source_location loc;
  Format(const char* t, std::source_location l = std::source_location::current()) : text(t), loc(l) {}  // NOLINT
  Format(std::string t, std::source_location l = std::source_location::current()) : text(std::move(t)), loc(l) {}  // NOLINT
};

namespace detail {
/// A printf / pto_assert argument: its value as a 64-bit word (DebugFormat.hpp) and what it is.
struct DebugArg {
  ir::Expr value;
  DebugArgKind kind;
};
void emit_debug(ir::DebugOp op, const Format& format, const std::vector<DebugArg>& args, ir::Expr cond, const std::source_location& loc);
/// A trace-time float as the word a %f placeholder reads (its bits).
ir::Expr float_bits(float value);
void emit_dump(const ir::TileRef& tile, std::array<ir::Expr, 2> offset, std::array<ir::Expr, 2> extent,
               const std::source_location& loc);
void emit_dump_gm(const ir::GMRegion& region, const std::source_location& loc);

template <class A>
DebugArg debug_arg(const A& a) {
  if constexpr (std::is_same_v<A, Int> || std::is_same_v<A, Bool>) {
    return {a.expr(), DebugArgKind::Integer};
  } else if constexpr (std::is_same_v<A, Float>) {
    return {a.expr(), DebugArgKind::Float};  // its slot holds the float's bits
  } else if constexpr (std::is_floating_point_v<A>) {
    return {float_bits(static_cast<float>(a)), DebugArgKind::Float};
  } else if constexpr (requires { a.index(); }) {  // a pl::Tensor
    return {ir::IntImm::make(a.index()), DebugArgKind::Tensor};
  } else {
    static_assert(std::is_integral_v<A>,
                  "pto: printf/pto_assert arguments are pl::Int, pl::Bool, pl::Float, pl::Tensor or C++ numbers");
    return {ir::IntImm::make(static_cast<int64_t>(a)), DebugArgKind::Integer};
  }
}
}  // namespace detail

template <class... A>
void printf(const Format& format, const A&... args) {
  detail::emit_debug(ir::DebugOp::Printf, format, {detail::debug_arg(args)...}, ir::Expr(), format.loc);
}

template <class... A>
void pto_assert(const Bool& cond, const Format& format, const A&... args) {
  detail::emit_debug(ir::DebugOp::Assert, format, {detail::debug_arg(args)...}, cond.expr(), format.loc);
}
inline void pto_assert(const Bool& cond, std::source_location loc = std::source_location::current()) {
  detail::emit_debug(ir::DebugOp::Assert, Format("", loc), {}, cond.expr(), loc);
}

inline void trap(std::source_location loc = std::source_location::current()) {
  detail::emit_debug(ir::DebugOp::Trap, Format("", loc), {}, ir::Expr(), loc);
}

template <Element T>
void dump_data(const Tile<T>& tile, std::source_location loc = std::source_location::current()) {
  detail::emit_dump(tile.ref(), {}, {}, loc);
}
/// Prints a GM region (a slice) or a whole tensor as this core sees it at this point of its program
/// (PyPTO Pro's dump_data of a tensor). A window outside the tensor stops the core with an error.
template <Element T>
void dump_data(const Slice<T>& region, std::source_location loc = std::source_location::current()) {
  detail::emit_dump_gm(region.region, loc);
}
template <Element T>
void dump_data(const Tensor<T>& tensor, std::source_location loc = std::source_location::current()) {
  dump_data(tensor.slice(Int(0), tensor.extent(0)), loc);  // 1-D: every element; 2-D: every row
}
template <Element T>
void dump_data(const Tile<T>& tile, std::array<Int, 2> offset, std::array<Int, 2> extent,
               std::source_location loc = std::source_location::current()) {
  detail::emit_dump(tile.ref(), {offset[0].expr(), offset[1].expr()}, {extent[0].expr(), extent[1].expr()}, loc);
}

}  // namespace pto::lang
