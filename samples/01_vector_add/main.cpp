// Sample 01 — vector add, the "hello world" of AI Core kernels.
//
// What it shows:
//   * a kernel is a C++ lambda given to pl::jit; host code calls it as kernel[{.block_dim = n}](...)
//   * the first call of a shape traces and JIT-compiles it; the second call is a cache hit
//   * tiles are spread over cores by strided assignment, with a short tail tile at the end
//   * results are checked against plain C++
#include <chrono>
#include <cstdio>

#include "vector_add.hpp"

namespace pl = pto::lang;
namespace va = pto::samples::vector_add;
using Clock = std::chrono::steady_clock;

template <class T>
bool check(const char* dtype, int64_t n, int block_dim) {
  static const auto kernel = va::make_kernel<T>({.buffers = 2, .tile = 4096});
  auto x = pto::Tensor<T>::random({n}, 1), y = pto::Tensor<T>::random({n}, 2);
  auto z = pto::Tensor<T>::zeros({n}), want = pto::Tensor<T>::zeros({n});
  va::reference(x, y, want);

  auto t0 = Clock::now();
  kernel[{.block_dim = block_dim}](x, y, z);  // first call of this shape: trace + compile + run
  pto::synchronize();
  const double cold_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  t0 = Clock::now();
  kernel[{.block_dim = block_dim}](x, y, z);  // cache hit
  pto::synchronize();
  const double warm_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();

  const double err = pto::samples::max_abs_diff(z, want);
  std::printf("  %-4s n=%-9lld block_dim=%-2d first call %7.2f ms, second %8.1f us, max |err| %g %s\n", dtype,
              static_cast<long long>(n), block_dim, cold_ms, warm_us, err, err == 0 ? "ok" : "MISMATCH");
  return err == 0;
}

int main() {
  std::printf("01_vector_add: z = x + y on emulated AI Vector cores\n");
  bool ok = true;
  ok &= check<float>("f32", 1 << 16, 1);
  ok &= check<float>("f32", 100003, 8);         // a tail tile of 1699 elements
  ok &= check<pto::half>("f16", 50000, 48);     // more cores than tiles: some cores idle
  ok &= check<pto::bfloat16>("bf16", 12345, 3);
  std::printf(ok ? "01_vector_add: all results match the C++ reference\n" : "01_vector_add: FAILED\n");
  return ok ? 0 : 1;
}
