// Sample 05 — matmul fused with a row softmax: cube -> vector through cross-core flags.
//
// What it shows:
//   * tile shapes chosen from the chip profile (whole rows per tile, Acc double buffer within L0C)
//   * the vector cores start on tile i while the cube works on tile i + 1 (overlap in simulated time)
//   * the same tile loop and cross-core structure as sample 04 with a different epilogue
#include <cstdio>

#include "matmul_softmax.hpp"

namespace ms = pto::samples::matmul_softmax;

template <class T>
bool check(const char* dtype, int64_t M, int64_t N, int64_t K, int block_dim, const char* chip = "a2") {
  const auto p = ms::params_for<T>(N, chip, 128);
  const auto kernel = ms::make_kernel<T>(p);
  auto a = pto::Tensor<T>::random({M, K}, 1), b = pto::Tensor<T>::random({K, N}, 2);
  auto y = pto::Tensor<T>::full({M, N}, T(-1.0f)), want = pto::Tensor<T>::zeros({M, N});
  auto ws = pto::Tensor<float>::zeros({M, N});
  ms::reference(a, b, want);
  const auto prof = kernel[{.block_dim = block_dim}].run_sync(a, b, y, ws);
  const double err = pto::samples::max_abs_diff(y, want), tol = ms::tolerance<T>(K);
  const bool ok = err <= tol && prof.races.empty();
  std::printf("  %-4s %-2s %4lldx%-4lldx%-4lld block_dim=%-2d tile %lldx%lld  %8.1f us simulated  V %4.1f%% M %4.1f%%  max |err| %.3g %s\n",
              dtype, chip, static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), block_dim,
              static_cast<long long>(p.tm), static_cast<long long>(p.tn), prof.device_us, 100 * prof.pipe_utilization(pto::ir::Pipe::V),
              100 * prof.pipe_utilization(pto::ir::Pipe::M), err, ok ? "ok" : "MISMATCH");
  for (const auto& r : prof.races) std::printf("    %s\n", r.message().c_str());
  return ok;
}

int main() {
  std::printf("05_matmul_softmax: softmax_rows(A x B) on emulated AIC + AIV blocks\n");
  bool ok = true;
  ok &= check<float>("f32", 256, 128, 64, 2);
  ok &= check<float>("f32", 150, 100, 70, 3);      // tails in every dimension, N not a multiple of 16
  ok &= check<float>("f32", 150, 48, 200, 3);      // narrow rows: K slices as deep as the Left slots allow
  ok &= check<float>("f32", 5, 7, 3, 2);           // fewer rows than blocks, N and K under one fractal
  ok &= check<pto::half>("f16", 512, 256, 128, 4);
  ok &= check<pto::bfloat16>("bf16", 96, 512, 64, 2);
  ok &= check<float>("f32", 150, 100, 70, 3, "a5");     // fused: L0C straight into the AIVs' UB
  ok &= check<pto::half>("f16", 512, 256, 128, 4, "a5");
  std::printf(ok ? "05_matmul_softmax: all results match the C++ reference\n" : "05_matmul_softmax: FAILED\n");
  return ok ? 0 : 1;
}
