#include "pto/backend/KernelABI.hpp"

#include <algorithm>
#include <cstring>

#include <immintrin.h>

namespace pto {

const RuntimeFunctions kRuntimeFunctions{};

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

namespace {
/// Copies [s, s + bytes) to d: the bytes up to d's next 64-byte boundary and the last partial line
/// with memcpy, every whole line between with `line` (non-temporal stores to the aligned d).
template <class Line>
[[gnu::always_inline]] inline void stream_lines(uint8_t* d, const uint8_t* s, int64_t bytes, Line line) {
  const int64_t head = std::min<int64_t>(bytes, (64 - reinterpret_cast<uintptr_t>(d) % 64) % 64);
  std::memcpy(d, s, static_cast<size_t>(head));
  d += head;
  s += head;
  bytes -= head;
  int64_t i = 0;
  for (; i + 64 <= bytes; i += 64) line(d + i, s + i);
  std::memcpy(d + i, s + i, static_cast<size_t>(bytes - i));
}
struct Sse2Line {
  void operator()(uint8_t* d, const uint8_t* s) const {
    for (int k = 0; k < 64; k += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(d + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k)));
  }
};
struct Avx512Line {
  __attribute__((target("avx512f"))) void operator()(uint8_t* d, const uint8_t* s) const {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
  }
};
// One 64-byte store a line: 5-6% off a memory-bound vector_add on one host thread against four
// 16-byte stores (A/B, alternating processes).
__attribute__((target("avx512f"))) void stream_avx512(uint8_t* d, const uint8_t* s, int64_t bytes) { stream_lines(d, s, bytes, Avx512Line{}); }
}  // namespace

extern "C" void pto_rt_stream_to_gm(void* dst, const void* src, int64_t bytes) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (avx512) return stream_avx512(d, s, bytes);
  stream_lines(d, s, bytes, Sse2Line{});
  // No fence here: the emulator fences once per core when the kernel returns (pto_rt_fence).
}

extern "C" void pto_rt_fence() { _mm_sfence(); }

}  // namespace pto
