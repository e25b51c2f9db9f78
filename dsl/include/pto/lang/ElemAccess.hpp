#pragma once
// PyPTO Pro's scalar-pipe element access and vector-mask instructions:
//   getval(container, offset) (S)       one element of a Vec tile or a GM tensor, as a scalar:
//                                       pl::Int for integer elements (PyPTO Pro: DT_INT64),
//                                       pl::Float for floating ones (holding the element exactly)
//   setval(container, offset, value) (S) writes one element: a pl::Int or an integer (any
//                                       container), a pl::Float or a floating constant (floating
//                                       containers), converted as a tile expression's result is
//   set_vec_mask / reset_mask / set_mask_count / set_mask_norm
//                                       accepted with no effect: as in PyPTO Pro, every tile
//                                       instruction sets the mask it needs itself
// `offset` is the element's linear row-major index in the tile's declared shape (valid extent
// or not) or in the tensor; outside it the core stops with an error. The valid extent of a tile
// neither limits getval/setval nor changes. Between a getval/setval and the MTE2 / V / MTE3 work
// on the same tile or tensor, synchronise as for any other pipe (auto_mutex does it for tile
// groups). docs/semantics.md, "getval and setval".
#include <concepts>
#include <source_location>
#include <type_traits>

#include "pto/lang/Tensor.hpp"
#include "pto/lang/Tile.hpp"

namespace pto::lang {

namespace detail {
/// Where an element access goes: a tile slot (shape given) or a tensor (tensor >= 0; its shape
/// {1, element count}, or {1, -1} when a dimension is dynamic).
struct ElemContainer {
  ir::TileRef tile;
  TileShape shape{};
  int tensor = -1;
  DType dtype;
  template <Element T>
  ElemContainer(const Tile<T>& t) : tile(t.ref()), shape(t.shape()), dtype(dtype_of<T>) {}  // NOLINT
  template <Element T>
  ElemContainer(const Tensor<T>& t) : shape{1, t.static_numel().value_or(-1), 1, MemSpace::GM}, tensor(t.index()), dtype(dtype_of<T>) {}  // NOLINT
};
/// Emits a getval and returns the scalar Var it assigns.
ir::Expr emit_getval(const ElemContainer& c, const Int& offset, const std::source_location& loc);
void emit_setval(const ElemContainer& c, const Int& offset, const ir::Expr& value, const std::source_location& loc);
void note_mask_instruction(const std::source_location& loc);

template <class C> struct elem_target : std::false_type {};
template <Element T> struct elem_target<Tile<T>> : std::true_type { using elem = T; };
template <Element T, int64_t... Dims> struct elem_target<Tensor<T, Dims...>> : std::true_type { using elem = T; };
/// A Tile<T> or a Tensor<T>.
template <class C>
concept ElemTarget = elem_target<C>::value;
template <ElemTarget C>
using ElemScalar = std::conditional_t<is_floating(dtype_of<typename elem_target<C>::elem>), Float, Int>;
template <ElemTarget C>
inline constexpr bool floating_target = is_floating(dtype_of<typename elem_target<C>::elem>);
}  // namespace detail

template <detail::ElemTarget C>
detail::ElemScalar<C> getval(const C& container, Int offset, std::source_location loc = std::source_location::current()) {
  return detail::ElemScalar<C>(detail::emit_getval(container, offset, loc));
}

template <detail::ElemTarget C>
void setval(const C& container, Int offset, Int value, std::source_location loc = std::source_location::current()) {
  detail::emit_setval(container, offset, value.expr(), loc);
}
template <detail::ElemTarget C>
void setval(const C& container, Int offset, Float value, std::source_location loc = std::source_location::current()) {
  static_assert(detail::floating_target<C>, "setval: a pl::Float goes into a floating-point tile or tensor; convert it first for an integer one");
  detail::emit_setval(container, offset, value.expr(), loc);
}
template <detail::ElemTarget C, std::floating_point F>
void setval(const C& container, Int offset, F value, std::source_location loc = std::source_location::current()) {
  static_assert(detail::floating_target<C>, "setval: a floating constant goes into a floating-point tile or tensor");
  detail::emit_setval(container, offset, ir::FloatImm::make(static_cast<double>(value), DType::f32), loc);
}

/// PyPTO Pro's set_vec_mask(mask_high, mask_low): accepted, no effect (see above).
inline void set_vec_mask(int64_t /*mask_high*/, int64_t /*mask_low*/, std::source_location loc = std::source_location::current()) {
  detail::note_mask_instruction(loc);
}
/// PyPTO Pro's reset_mask(): set_vec_mask(-1, -1); accepted, no effect.
inline void reset_mask(std::source_location loc = std::source_location::current()) { detail::note_mask_instruction(loc); }
inline void set_mask_count(std::source_location loc = std::source_location::current()) { detail::note_mask_instruction(loc); }
inline void set_mask_norm(std::source_location loc = std::source_location::current()) { detail::note_mask_instruction(loc); }

}  // namespace pto::lang
