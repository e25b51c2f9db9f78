#pragma once
// Parallel drivers of the native baselines: run a float kernel (NativeKernels.hpp) over the rows
// of a [rows, cols] matrix, or over chunks of flat arrays, on TBB, widening half/bfloat16 inputs to
// float and rounding outputs back (that conversion is part of the baseline's time, as it would be
// on a host).
#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <pto/pto.hpp>

#include "NativeKernels.hpp"

namespace pto::samples::native {

/// n elements of a row as float (half through F16C where the host has it, bfloat16 by shifts).
template <class T>
void widen_row(const T* src, float* dst, int64_t n) {
  if constexpr (std::is_same_v<T, half>) {
    f16_to_f32(reinterpret_cast<const uint16_t*>(src), dst, n);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    bf16_to_f32(reinterpret_cast<const uint16_t*>(src), dst, n);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
  }
}

/// n floats rounded to T (nearest even).
template <class T>
void narrow_row(const float* src, T* dst, int64_t n) {
  if constexpr (std::is_same_v<T, half>) {
    f32_to_f16(src, reinterpret_cast<uint16_t*>(dst), n);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    f32_to_bf16(src, reinterpret_cast<uint16_t*>(dst), n);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = T(src[i]);
  }
}

/// fn(const float* in_row, float* out_row, int64_t r) for every row r; `x` and `y` may be the same
/// matrix when both are float.
template <class In, class Out, class Fn>
void for_each_row(const In* x, Out* y, int64_t rows, int64_t cols, Fn fn) {
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows, 8), [&](const tbb::blocked_range<int64_t>& rr) {
    std::vector<float> in, out;
    if constexpr (!std::is_same_v<In, float>) in.resize(static_cast<size_t>(cols));
    if constexpr (!std::is_same_v<Out, float>) out.resize(static_cast<size_t>(cols));
    for (int64_t r = rr.begin(); r < rr.end(); ++r) {
      const float* src;
      float* dst;
      if constexpr (std::is_same_v<In, float>) {
        src = x + r * cols;
      } else {
        widen_row(x + r * cols, in.data(), cols);
        src = in.data();
      }
      if constexpr (std::is_same_v<Out, float>) {
        dst = y + r * cols;
      } else {
        dst = out.data();
      }
      fn(src, dst, r);
      if constexpr (!std::is_same_v<Out, float>) {
        narrow_row(out.data(), y + r * cols, cols);
      }
    }
  });
}

/// fn(in, out, n) over the `count` elements of the N arrays `in` (float pointers to n elements of
/// each) into `out`, on TBB: float arrays in place, half and bfloat16 a chunk of 512 elements at a
/// time through float buffers of the thread's. Chunks that small keep every array's stream
/// moving together, as the float loop's do: with chunks of 4096, the host read one array's 8 KiB
/// at a time, its prefetchers starting over at each 4 KiB page, and the half add of 16M elements
/// took 4.8-6.7 ms where it takes 1.9-2.7 (`pto bench vector_add --shape 16777216 --dtype f16 --vs-native`).
template <class T, size_t N, class Fn>
void for_each_chunk(std::array<const T*, N> in, T* out, int64_t count, Fn fn) {
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, count, 1 << 16), [&](const tbb::blocked_range<int64_t>& r) {
    std::array<const float*, N> at{};
    if constexpr (std::is_same_v<T, float>) {
      for (size_t i = 0; i < N; ++i) at[i] = in[i] + r.begin();
      fn(at, out + r.begin(), r.end() - r.begin());
    } else {
      constexpr int64_t kChunk = 512;
      std::array<std::vector<float>, N + 1> buffers;
      for (auto& b : buffers) b.resize(static_cast<size_t>(kChunk));
      for (size_t i = 0; i < N; ++i) at[i] = buffers[i].data();
      for (int64_t c = r.begin(); c < r.end(); c += kChunk) {
        const int64_t n = std::min(kChunk, r.end() - c);
        for (size_t i = 0; i < N; ++i) widen_row(in[i] + c, buffers[i].data(), n);
        fn(at, buffers[N].data(), n);
        narrow_row(buffers[N].data(), out + c, n);
      }
    }
  });
}

}  // namespace pto::samples::native
