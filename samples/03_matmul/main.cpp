// Sample 03 — matmul on the cube: GM -> L1 (MTE2) -> L0A/L0B (MTE1) -> cube (M) -> L0C -> GM (FIX).
//
// What it shows:
//   * tiles in pl::Mat, pl::Left, pl::Right and pl::Acc, and the instructions between them
//   * the K loop accumulating in the Acc tile (the first step overwrites, later steps add)
//   * L1/L0 double buffering with tile groups and auto_mutex
//   * tails in M, N and K, and the float -> half conversion of the output on FIX
//   * mac_util: how much of the cube's peak the kernel reaches in simulated time
#include <cstdio>

#include "matmul.hpp"

namespace mm = pto::samples::matmul;

template <class T>
bool check(const char* dtype, int64_t M, int64_t N, int64_t K, int block_dim, mm::Params p = {}) {
  const auto kernel = mm::make_kernel<T>(p);
  auto a = pto::Tensor<T>::random({M, K}, 1), b = pto::Tensor<T>::random({K, N}, 2);
  auto c = pto::Tensor<mm::out_t<T>>::zeros({M, N}), want = pto::Tensor<mm::out_t<T>>::zeros({M, N});
  mm::reference(a, b, want);
  const auto prof = kernel[{.block_dim = block_dim}].run_sync(a, b, c);
  const double err = pto::samples::max_abs_diff(c, want), tol = mm::tolerance<T>(want, K);
  std::printf("  %-4s %4lldx%-4lldx%-4lld block_dim=%-2d  %8.1f us simulated  mac_util %5.1f%%  max |err| %.3g (tol %.3g) %s\n", dtype,
              static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), block_dim, prof.device_us,
              100 * prof.mac_util, err, tol, err <= tol && prof.races.empty() ? "ok" : "MISMATCH");
  return err <= tol && prof.races.empty();
}

int main() {
  std::printf("03_matmul: C = A x B on emulated AI Cube cores\n");
  bool ok = true;
  ok &= check<float>("f32", 256, 256, 256, 4);
  ok &= check<float>("f32", 200, 136, 100, 3);               // tails in M, N and K
  ok &= check<pto::half>("f16", 256, 384, 512, 6, {.tk = 128});
  ok &= check<pto::bfloat16>("bf16", 130, 70, 300, 2, {.tk = 128});
  ok &= check<int8_t>("i8", 128, 160, 96, 2, {.tk = 32});
  ok &= check<float>("f32", 96, 64, 64, 1, {.buffers = 1});  // single buffering works too
  std::printf(ok ? "03_matmul: all results match the C++ reference\n" : "03_matmul: FAILED\n");
  return ok ? 0 : 1;
}
