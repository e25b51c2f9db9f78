#pragma once
// The native baseline of the matmul samples: OpenBLAS sgemm on row-major float matrices, run
// on as many threads as the emulator's host pool (so the ratio compares like with like): the rows
// of C split into one band per TBB thread, each band a single-threaded OpenBLAS call. OpenBLAS's
// own thread pool is not used: its workers spin for a while after every call, and on a small
// host they took the cores from the emulated launch timed next (measured: flash_attention's
// emulated median 23 ms alone, 41 ms alternating with a pooled OpenBLAS baseline).
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "OpenBlas.hpp"
#include "native/NativeRows.hpp"

namespace pto::samples {

/// Runs `band(first_row, rows)` over [0, m) in one band per host thread, each band calling
/// OpenBLAS single-threaded (OpenBlas.hpp opens it without its pool).
template <class Band>
void blas_by_bands(int64_t m, const Band& band) {
  const int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const int64_t rows = (m + threads - 1) / threads;
  tbb::parallel_for(int64_t{0}, threads, [&](int64_t t) {
    const int64_t first = t * rows, count = std::min(rows, m - first);
    if (count > 0) band(first, count);
  });
}

/// c[m x n] = a[m x k] * b[k x n] (+ c when `accumulate`), row-major, OpenBLAS.
inline void blas_sgemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool accumulate = false) {
  blas_by_bands(m, [&](int64_t r0, int64_t rows) {
    openblas().sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(n), static_cast<int>(k), 1.0f,
                a + r0 * k, static_cast<int>(k), b, static_cast<int>(n), accumulate ? 1.0f : 0.0f, c + r0 * n, static_cast<int>(n));
  });
}

/// c[m x n] = a[m x k] * b[n x k]^T, row-major, OpenBLAS (attention's Q K^T).
inline void blas_sgemm_nt(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, float alpha = 1.0f) {
  blas_by_bands(m, [&](int64_t r0, int64_t rows) {
    openblas().sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(n), static_cast<int>(k), alpha,
                a + r0 * k, static_cast<int>(k), b, static_cast<int>(k), 0.0f, c + r0 * n, static_cast<int>(n));
  });
}

/// c[m x n] = a[m x k] * b[k x n] in double, row-major, OpenBLAS (the matmul samples' reference).
inline void blas_dgemm(const double* a, const double* b, double* c, int64_t m, int64_t n, int64_t k) {
  blas_by_bands(m, [&](int64_t r0, int64_t rows) {
    openblas().dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(n), static_cast<int>(k), 1.0,
                a + r0 * k, static_cast<int>(k), b, static_cast<int>(n), 0.0, c + r0 * n, static_cast<int>(n));
  });
}

/// Widens any element type to double (exactly: every input type has at most 24 significant bits).
template <class T>
std::vector<double> to_double(const T* p, int64_t n) {
  std::vector<double> out(static_cast<size_t>(n));
  tbb::parallel_for(int64_t{0}, n, [&](int64_t i) { out[static_cast<size_t>(i)] = static_cast<double>(static_cast<float>(p[i])); });
  return out;
}

/// Widens any element type to float into `out`, in parallel. `out` is resized to n: a caller that
/// keeps it between calls reuses its memory (a fresh 4 MB vector a call cost the f16 matmul
/// baseline its page faults and zeroing: 35-41 ms for a 1024^3 sgemm of 10 ms).
template <class T>
void widen_into(const T* p, int64_t n, std::vector<float>& out) {
  out.resize(static_cast<size_t>(n));
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, 1 << 16), [&](const tbb::blocked_range<int64_t>& r) {
    native::widen_row(p + r.begin(), out.data() + r.begin(), r.end() - r.begin());
  });
}

/// Rounds n floats into `out` (any element type), in parallel: widen_into's other way.
template <class T>
void narrow_into(const float* p, int64_t n, T* out) {
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, 1 << 16), [&](const tbb::blocked_range<int64_t>& r) {
    native::narrow_row(p + r.begin(), out + r.begin(), r.end() - r.begin());
  });
}

/// Widens any element type to float into `storage` (kept by the caller between calls), or returns
/// the data itself when it already is float.
template <class T>
const float* as_float(const T* p, int64_t n, std::vector<float>& storage) {
  if constexpr (std::is_same_v<T, float>) {
    return p;
  } else {
    widen_into(p, n, storage);
    return storage.data();
  }
}

/// The matmul samples' native baseline: c = a b with OpenBLAS sgemm, half and bfloat16 inputs
/// widened to float first (counted in the caller's time) into buffers this thread keeps.
template <class T>
void native_matmul(const T* a, const T* b, float* c, int64_t m, int64_t n, int64_t k) {
  thread_local std::vector<float> af, bf;
  blas_sgemm(as_float(a, m * k, af), as_float(b, k * n, bf), c, m, n, k);
}

}  // namespace pto::samples
