#include "pto/backend/KernelABI.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "InterpreterImpl.hpp"
#include "pto/support/DType.hpp"
#include "pto/support/Float16.hpp"

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

namespace {
template <class H>
void add_16bit(void* at, float v) {  // half / bfloat16: compare-and-swap on the 16 bits
  std::atomic_ref<uint16_t> word(*static_cast<uint16_t*>(at));
  uint16_t seen = word.load(std::memory_order_relaxed);
  while (true) {
    const H sum(static_cast<float>(std::bit_cast<H>(seen)) + v);
    if (word.compare_exchange_weak(seen, std::bit_cast<uint16_t>(sum), std::memory_order_relaxed)) return;
  }
}
}  // namespace

extern "C" void pto_rt_atomic_add_rows(void* gm, int64_t gm_pitch, int32_t gm_dtype, const void* tile, int64_t tile_pitch,
                                       int32_t tile_dtype, int64_t rows, int64_t cols, int32_t relu, int32_t scaled, float scale) {
  const auto to = static_cast<DType>(gm_dtype), from = static_cast<DType>(tile_dtype);
  const int64_t es = static_cast<int64_t>(dtype_size(to)), tile_es = static_cast<int64_t>(dtype_size(from));
  for (int64_t r = 0; r < rows; ++r) {
    auto* row = static_cast<uint8_t*>(gm) + r * gm_pitch * es;
    const auto* src = static_cast<const uint8_t*>(tile) + r * tile_pitch * tile_es;
    for (int64_t c = 0; c < cols; ++c) {
      // The value a plain store would write (converted, rounded to the GM dtype), then added.
      const backend::interp::Val v = backend::interp::store_value(src + c * tile_es, from, to, relu != 0, scaled ? &scale : nullptr);
      void* at = row + c * es;
      switch (to) {
        case DType::f32: std::atomic_ref<float>(*static_cast<float*>(at)).fetch_add(v.f, std::memory_order_relaxed); break;
        case DType::f16: add_16bit<half>(at, v.f); break;
        case DType::bf16: add_16bit<bfloat16>(at, v.f); break;
        case DType::i32:
          std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(at)).fetch_add(static_cast<uint32_t>(v.i), std::memory_order_relaxed);
          break;
        default: break;
      }
    }
  }
}

}  // namespace pto
