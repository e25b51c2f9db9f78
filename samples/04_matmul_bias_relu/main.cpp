// Sample 04 — a mix kernel: cube matmul with a vector epilogue (bias + relu), connected by
// cross-core flags through a GM workspace.
//
// What it shows:
//   * pl::section_cube / pl::section_vector in one kernel: each block is 1 AIC + 2 AIVs
//   * set_cross_core on the AIC's FIX pipe, wait_cross_core on the AIVs' MTE2 pipe
//   * get_block_idx() is the block on the AIC and on both AIVs; get_subblock_idx() picks the half
//   * a {1, n} bias tile broadcast down the columns of a {rows, n} tile
//   * the race checker follows the cross-core flags: a correct kernel reports no race
//   * on the a5 profile, the fused path: Acc -> Vec straight into the AIVs' UB (no workspace),
//     with set_validshape on the receiving AIV and a flag handing each Vec slot back
#include <cstdio>

#include "matmul_bias_relu.hpp"

namespace mbr = pto::samples::matmul_bias_relu;

template <class T>
bool check(const char* dtype, int64_t M, int64_t N, int64_t K, int block_dim, pto::samples::matmul::Params p = {}) {
  const auto kernel = mbr::make_kernel<T>(p);
  auto a = pto::Tensor<T>::random({M, K}, 1), b = pto::Tensor<T>::random({K, N}, 2), bias = pto::Tensor<T>::random({1, N}, 3);
  auto y = pto::Tensor<T>::full({M, N}, T(-1.0f)), want = pto::Tensor<T>::zeros({M, N});  // relu never gives -1
  auto ws = pto::Tensor<float>::zeros({M, N});
  mbr::reference(a, b, bias, want);
  const auto prof = kernel[{.block_dim = block_dim}].run_sync(a, b, bias, y, ws);
  const double err = pto::samples::max_abs_diff(y, want), tol = pto::samples::matmul::tolerance<T>(want, K);
  const bool ok = err <= tol && prof.races.empty();
  std::printf("  %-4s %-2s %4lldx%-4lldx%-4lld block_dim=%-2d (%s)  %8.1f us simulated  mac_util %5.1f%%  max |err| %.3g %s\n", dtype,
              p.chip.c_str(), static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), block_dim, prof.mode.c_str(),
              prof.device_us, 100 * prof.mac_util, err, ok ? "ok" : "MISMATCH");
  for (const auto& r : prof.races) std::printf("    %s\n", r.message().c_str());
  return ok;
}

int main() {
  std::printf("04_matmul_bias_relu: relu(A x B + bias) on emulated AIC + AIV blocks\n");
  bool ok = true;
  ok &= check<float>("f32", 256, 256, 128, 2);
  ok &= check<float>("f32", 200, 136, 100, 3);   // tails: short tiles, an odd row count split over 2 AIVs
  ok &= check<pto::half>("f16", 256, 256, 256, 4, {.tk = 128});
  ok &= check<pto::bfloat16>("bf16", 64, 96, 64, 1, {.tk = 128});
  // a5: the epilogue fused through Acc -> Vec (no GM workspace round trip)
  ok &= check<float>("f32", 200, 136, 100, 3, {.chip = "a5"});
  ok &= check<pto::half>("f16", 256, 256, 256, 4, {.tk = 128, .chip = "a5"});
  ok &= check<pto::bfloat16>("bf16", 65, 96, 64, 1, {.tk = 128, .chip = "a5"});  // a 1-row tail tile: AIV 1 gets nothing
  std::printf(ok ? "04_matmul_bias_relu: all results match the C++ reference\n" : "04_matmul_bias_relu: FAILED\n");
  return ok ? 0 : 1;
}
