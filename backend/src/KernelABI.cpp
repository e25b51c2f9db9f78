#include "pto/backend/KernelABI.hpp"

#include <algorithm>
#include <cstring>

#include <emmintrin.h>

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

extern "C" void pto_rt_stream_to_gm(void* dst, const void* src, int64_t bytes) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  const int64_t head = std::min<int64_t>(bytes, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, static_cast<size_t>(head));
  d += head;
  s += head;
  bytes -= head;
  int64_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    for (int k = 0; k < 64; k += 16) {
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + k)));
    }
  }
  std::memcpy(d + i, s + i, static_cast<size_t>(bytes - i));
  // No fence here: the emulator fences once per core when the kernel returns (pto_rt_fence).
}

extern "C" void pto_rt_fence() { _mm_sfence(); }

extern "C" void pto_rt_copy_from_gm(void* dst, const void* src, int64_t bytes) {
  constexpr int kStreams = 8;
  constexpr int64_t kStep = 128;  // bytes per stream per round
  const int64_t part = bytes / (kStreams * kStep) * kStep;
  if (part == 0) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  for (int64_t off = 0; off < part; off += kStep) {
    for (int j = 0; j < kStreams; ++j) {
      const uint8_t* from = s + j * part + off;
      uint8_t* to = d + j * part + off;
      for (int k = 0; k < kStep; k += 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(to + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + k)));
      }
    }
  }
  const int64_t done = part * kStreams;
  std::memcpy(d + done, s + done, static_cast<size_t>(bytes - done));
}

}  // namespace pto
