// Sample 08 — layer normalisation with a runtime epsilon, checked against plain C++.
#include <cstdio>

#include "layernorm.hpp"

namespace ln = pto::samples::layernorm;

template <class T>
bool check(const char* dtype, int64_t rows, int64_t cols, int block_dim, float eps) {
  static const auto kernel = ln::make_kernel<T>({});
  auto x = pto::Tensor<T>::random({rows, cols}, 3, -3.0, 5.0);
  auto gamma = pto::Tensor<T>::random({1, cols}, 4, 0.5, 1.5), beta = pto::Tensor<T>::random({1, cols}, 5, -1.0, 1.0);
  auto y = pto::Tensor<T>::zeros({rows, cols}), want = pto::Tensor<T>::zeros({rows, cols});
  ln::reference(x, gamma, beta, eps, want);
  kernel[{.block_dim = block_dim}](x, gamma, beta, y, eps);
  pto::synchronize();
  const double err = pto::samples::max_abs_diff(y, want);
  const bool ok = err <= ln::tolerance<T>();
  std::printf("  %-4s [%lld x %lld] block_dim=%-2d eps=%g max |err| %.3g (tolerance %.0e) %s\n", dtype, static_cast<long long>(rows),
              static_cast<long long>(cols), block_dim, eps, err, ln::tolerance<T>(), ok ? "ok" : "MISMATCH");
  return ok;
}

int main() {
  std::printf("08_layernorm: y = (x - mean) / sqrt(var + eps) * gamma + beta along rows on emulated AI Vector cores\n");
  bool ok = true;
  ok &= check<float>("f32", 256, 1024, 8, 1e-5f);
  const auto before = pto::CompileCache::global().stats().entries;
  ok &= check<float>("f32", 256, 1024, 8, 1e-2f);  // another epsilon: the same compiled kernel
  const bool one_kernel = pto::CompileCache::global().stats().entries == before;
  std::printf("  a new epsilon compiled %s\n", one_kernel ? "nothing (eps is a runtime pl::Float)" : "a NEW KERNEL");
  ok &= one_kernel;
  ok &= check<float>("f32", 37, 1000, 5, 1e-5f);  // tails in rows and columns
  ok &= check<float>("f32", 3, 200, 8, 1e-5f);    // fewer row blocks than blocks: idle cores
  ok &= check<pto::half>("f16", 128, 512, 16, 1e-5f);
  ok &= check<pto::half>("f16", 33, 100, 4, 1e-3f);
  ok &= check<pto::bfloat16>("bf16", 64, 256, 2, 1e-5f);
  ok &= check<pto::bfloat16>("bf16", 5, 77, 24, 1e-5f);
  // Rows wider than the UB holds (f32 from about 4,900 columns, 16-bit from about 7,000): walked in
  // column chunks, with a chunk tail, few rows and idle cores.
  ok &= check<float>("f32", 9, 8192, 4, 1e-5f);
  ok &= check<pto::half>("f16", 5, 12000, 8, 1e-5f);
  ok &= check<pto::bfloat16>("bf16", 3, 9000, 2, 1e-5f);
  // The rows are pl::DYNAMIC: six batch sizes of one width run on one compiled kernel (static
  // shapes would compile six).
  const auto entries = pto::CompileCache::global().stats().entries;
  for (int64_t rows : {1, 7, 64, 300, 1000, 2048}) ok &= check<float>("f32", rows, 768, 8, 1e-5f);
  const auto made = pto::CompileCache::global().stats().entries - entries;
  std::printf("  six row counts of 768 columns compiled %zu kernel%s (rows are pl::DYNAMIC)\n", static_cast<size_t>(made), made == 1 ? "" : "s");
  ok &= made == 1;
  std::printf(ok ? "08_layernorm: all results within tolerance of the C++ reference\n" : "08_layernorm: FAILED\n");
  return ok ? 0 : 1;
}
