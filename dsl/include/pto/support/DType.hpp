#pragma once
// Element types of tensors, tiles and scalars, and the mapping from C++ types.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "pto/support/Float16.hpp"

namespace pto {

enum class DType : uint8_t { f32, f16, bf16, i32, i8, i64, boolean };

constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: case DType::i32: return 4;
    case DType::f16: case DType::bf16: return 2;
    case DType::i8: case DType::boolean: return 1;
    case DType::i64: return 8;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i32: return "i32";
    case DType::i8: return "i8";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
  }
  return "?";
}

constexpr bool is_floating(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16; }

/// The type a vector instruction computes in: float for every floating dtype (16-bit inputs are
/// widened and the result rounded once, at the write to the destination tile), i32 for integers.
constexpr DType compute_dtype(DType t) { return is_floating(t) ? DType::f32 : (t == DType::boolean ? t : DType::i32); }

template <class T> struct dtype_of_t;
template <> struct dtype_of_t<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of_t<half> { static constexpr DType value = DType::f16; };
template <> struct dtype_of_t<bfloat16> { static constexpr DType value = DType::bf16; };
template <> struct dtype_of_t<int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of_t<int8_t> { static constexpr DType value = DType::i8; };

template <class T>
concept Element = requires { dtype_of_t<T>::value; };

template <Element T> inline constexpr DType dtype_of = dtype_of_t<T>::value;

}  // namespace pto
