#pragma once
// The native baseline of the matmul samples: OpenBLAS sgemm on row-major float matrices, run
// with as many threads as the emulator's host pool (so the ratio compares like with like).
#include <cstdint>
#include <vector>

#include <cblas.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace pto::samples {

/// c[m x n] = a[m x k] * b[k x n] (+ c when `accumulate`), row-major, OpenBLAS.
inline void blas_sgemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, bool accumulate = false) {
  openblas_set_num_threads(tbb::this_task_arena::max_concurrency());
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
              static_cast<int>(k), b, static_cast<int>(n), accumulate ? 1.0f : 0.0f, c, static_cast<int>(n));
}

/// c[m x n] = a[m x k] * b[k x n] in double, row-major, OpenBLAS (the matmul samples' reference).
inline void blas_dgemm(const double* a, const double* b, double* c, int64_t m, int64_t n, int64_t k) {
  openblas_set_num_threads(tbb::this_task_arena::max_concurrency());
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, a,
              static_cast<int>(k), b, static_cast<int>(n), 0.0, c, static_cast<int>(n));
}

/// Widens any element type to double (exactly: every input type has at most 24 significant bits).
template <class T>
std::vector<double> to_double(const T* p, int64_t n) {
  std::vector<double> out(static_cast<size_t>(n));
  tbb::parallel_for(int64_t{0}, n, [&](int64_t i) { out[static_cast<size_t>(i)] = static_cast<double>(static_cast<float>(p[i])); });
  return out;
}

/// Widens any element type to float (the native path for half and bfloat16 inputs).
template <class T>
std::vector<float> to_float(const T* p, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
  return out;
}

}  // namespace pto::samples
