// The element-wise runtime functions both engines call, so they agree bit for bit:
// pto_rt_getval / pto_rt_setval (one element read into a scalar or written from one,
// ir::ElemAccess).
#include <bit>
#include <cstring>

#include "pto/backend/KernelABI.hpp"
#include "pto/support/DType.hpp"
#include "pto/support/Float16.hpp"

namespace pto {

namespace {
template <class T>
T read_as(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void write_as(void* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
int64_t float_bits(float f) { return static_cast<int64_t>(std::bit_cast<uint32_t>(f)); }
}  // namespace

extern "C" int64_t pto_rt_getval(const void* elem, int32_t dtype) {
  switch (static_cast<DType>(dtype)) {
    case DType::f32: return float_bits(read_as<float>(elem));
    case DType::f16: return float_bits(static_cast<float>(read_as<half>(elem)));
    case DType::bf16: return float_bits(static_cast<float>(read_as<bfloat16>(elem)));
    case DType::i32: return read_as<int32_t>(elem);
    case DType::i8: return read_as<int8_t>(elem);
    case DType::i64: return read_as<int64_t>(elem);
    case DType::boolean: return read_as<uint8_t>(elem) != 0 ? 1 : 0;
  }
  return 0;
}

extern "C" void pto_rt_setval(void* elem, int32_t dtype, int64_t value, int32_t is_float) {
  const float f = is_float ? std::bit_cast<float>(static_cast<uint32_t>(value)) : static_cast<float>(value);
  const auto wrapped = static_cast<uint64_t>(value);  // integers wrap into the element's width
  switch (static_cast<DType>(dtype)) {
    case DType::f32: write_as(elem, f); break;
    case DType::f16: write_as(elem, half(f)); break;
    case DType::bf16: write_as(elem, bfloat16(f)); break;
    case DType::i32: write_as(elem, static_cast<int32_t>(static_cast<uint32_t>(wrapped))); break;
    case DType::i8: write_as(elem, static_cast<int8_t>(static_cast<uint8_t>(wrapped))); break;
    case DType::i64: write_as(elem, value); break;
    case DType::boolean: write_as(elem, static_cast<uint8_t>(value != 0)); break;
  }
}

}  // namespace pto
