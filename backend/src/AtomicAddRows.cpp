// pto_rt_atomic_add_rows (KernelABI.hpp): the atomic-add store both engines call.
//
// Adds are serialised per 4 KB region of GM by striped spin locks: every atomic add to a region
// holds that region's lock (the stripe is a function of the region's address, so two stores that
// overlap in any way meet on the same locks), and adds under it are plain loads and stores, a
// row's run in a region at a time (one lock a row for rows up to a region). perf_routines, 64 f32
// tiles of 64 x 128 added into 8 from 8 blocks, plain store time / atomic-add store time: 0.046
// with a compare-and-swap loop per element (a float fetch_add is one on x86; a 16-bit add was one
// on the 16 bits); 0.33 with a lock a 64-byte line; 0.90-1.02 with a lock a 4 KB region and the
// adds in AVX-512 (3 runs).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>

#include <immintrin.h>

#include "InterpreterImpl.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/support/DType.hpp"
#include "pto/support/Float16.hpp"

namespace pto {
namespace {

constexpr int kRegionShift = 12;   // 4 KB regions
constexpr size_t kStripes = 4096;  // locks; regions further apart than this share one (contention only)

std::array<std::atomic<uint8_t>, kStripes> stripes{};

/// Holds the lock of the GM region `region` (an address >> kRegionShift) for its lifetime.
class RegionLock {
 public:
  explicit RegionLock(uintptr_t region) : lock_(stripes[(region ^ (region >> 12)) % kStripes]) {
    while (lock_.exchange(1, std::memory_order_acquire) != 0) {
      while (lock_.load(std::memory_order_relaxed) != 0) _mm_pause();
    }
  }
  ~RegionLock() { lock_.store(0, std::memory_order_release); }
  RegionLock(const RegionLock&) = delete;
  RegionLock& operator=(const RegionLock&) = delete;

 private:
  std::atomic<uint8_t>& lock_;
};

/// d[i] += s[i] for i < n, floats (each sum rounded once, as a scalar add): 16 a step in AVX-512
/// where the host has it.
__attribute__((target("avx512f"))) void add_floats_avx512(uint8_t* d, const uint8_t* s, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(d + i * 4, _mm512_add_ps(_mm512_loadu_ps(d + i * 4), _mm512_loadu_ps(s + i * 4)));
  }
  const auto rest = static_cast<__mmask16>((1u << (n - i)) - 1);
  _mm512_mask_storeu_ps(d + i * 4, rest, _mm512_add_ps(_mm512_maskz_loadu_ps(rest, d + i * 4), _mm512_maskz_loadu_ps(rest, s + i * 4)));
}
void add_floats_portable(uint8_t* d, const uint8_t* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float x, y;
    std::memcpy(&x, d + i * 4, 4);
    std::memcpy(&y, s + i * 4, 4);
    x += y;
    std::memcpy(d + i * 4, &x, 4);
  }
}

/// GM element `at` (of dtype `to`) += v, the value a plain store would write (converted, rounded
/// to the GM dtype), added in the GM dtype: floats computed in float and rounded once, i32 wraps.
/// Under the element's region lock.
void add_element(uint8_t* at, DType to, const backend::interp::Val& v) {
  auto add_16bit = [&]<class H>() {
    uint16_t bits;
    std::memcpy(&bits, at, 2);
    const H sum(static_cast<float>(std::bit_cast<H>(bits)) + v.f);
    std::memcpy(at, &sum, 2);
  };
  switch (to) {
    case DType::f32: {
      float x;
      std::memcpy(&x, at, 4);
      x += v.f;
      std::memcpy(at, &x, 4);
      break;
    }
    case DType::f16: add_16bit.template operator()<half>(); break;
    case DType::bf16: add_16bit.template operator()<bfloat16>(); break;
    case DType::i32: {
      uint32_t x;
      std::memcpy(&x, at, 4);
      x += static_cast<uint32_t>(v.i);
      std::memcpy(at, &x, 4);
      break;
    }
    default: break;
  }
}

}  // namespace

extern "C" void pto_rt_atomic_add_rows(void* gm, int64_t gm_pitch, int32_t gm_dtype, const void* tile, int64_t tile_pitch,
                                       int32_t tile_dtype, int64_t rows, int64_t cols, int32_t relu, int32_t scaled, float scale) {
  const auto to = static_cast<DType>(gm_dtype), from = static_cast<DType>(tile_dtype);
  const int64_t es = static_cast<int64_t>(dtype_size(to)), tile_es = static_cast<int64_t>(dtype_size(from));
  // f32 into f32 with nothing applied first: each element is the tile's value, added as is.
  const bool plain_f32 = to == DType::f32 && from == DType::f32 && relu == 0 && scaled == 0;
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  const int es_shift = std::countr_zero(static_cast<uint64_t>(es));  // es is 1, 2 or 4
  for (int64_t r = 0; r < rows; ++r) {
    auto* row = static_cast<uint8_t*>(gm) + r * gm_pitch * es;
    const auto* src = static_cast<const uint8_t*>(tile) + r * tile_pitch * tile_es;
    for (int64_t c = 0; c < cols;) {
      // The row's elements in the region of element c (an element never straddles two regions:
      // GM elements are aligned to their size, a power of two up to 4).
      const auto addr = reinterpret_cast<uintptr_t>(row + c * es);
      const int64_t in_region = static_cast<int64_t>(((addr | ((uintptr_t{1} << kRegionShift) - 1)) + 1 - addr) >> es_shift);
      const int64_t n = std::min(cols - c, std::max<int64_t>(1, in_region));
      const RegionLock lock(addr >> kRegionShift);
      if (plain_f32) {
        (avx512 ? add_floats_avx512 : add_floats_portable)(row + c * 4, src + c * 4, n);
      } else {
        for (int64_t i = c; i < c + n; ++i) {
          add_element(row + i * es, to, backend::interp::store_value(src + i * tile_es, from, to, relu != 0, scaled ? &scale : nullptr));
        }
      }
      c += n;
    }
  }
}

}  // namespace pto
