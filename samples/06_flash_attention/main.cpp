// Sample 06 — flash attention forward on a mix kernel.
//
// What it shows:
//   * a three-step cross-core pipeline per key block (S -> P -> PV), flags in both directions
//   * a transposed move (K_j into L0B as K_j^T)
//   * online softmax state ({rows, 1} tiles) carried across the key loop on the vector cores
//   * tails: S not a multiple of the blocks, odd query blocks split over the two AIVs
//   * on the a5 profile, no GM workspace: S and PV move Acc -> Vec, P moves Vec -> Mat
#include <chrono>
#include <cstdio>

#include "flash_attention.hpp"

namespace fa = pto::samples::flash_attention;

template <class T>
bool check(const char* dtype, int64_t S, int64_t D, int block_dim, const char* chip = "a2") {
  const auto p = fa::default_params<T>(chip);
  const auto kernel = fa::make_kernel<T>(p);
  auto q = pto::Tensor<T>::random({S, D}, 1), k = pto::Tensor<T>::random({S, D}, 2), v = pto::Tensor<T>::random({S, D}, 3);
  auto o = pto::Tensor<T>::zeros({S, D}), want = pto::Tensor<T>::zeros({S, D});
  fa::Workspace<T> ws(block_dim, p, D);
  fa::reference(q, k, v, want);
  const auto t0 = std::chrono::steady_clock::now();
  const auto prof = kernel[{.block_dim = block_dim}].run_sync(q, k, v, o, ws.scores, ws.probs, ws.values);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double err = pto::samples::max_abs_diff(o, want), tol = fa::tolerance<T>();
  const bool ok = err <= tol && prof.races.empty();
  std::printf("  %-4s %-2s S=%-5lld D=%-4lld block_dim=%-2d  %9.1f us simulated  mac_util %5.1f%%  host %7.1f ms  max |err| %.3g %s\n",
              dtype, chip, static_cast<long long>(S), static_cast<long long>(D), block_dim, prof.device_us, 100 * prof.mac_util, ms, err,
              ok ? "ok" : "MISMATCH");
  for (const auto& r : prof.races) std::printf("    %s\n", r.message().c_str());
  return ok;
}

int main() {
  std::printf("06_flash_attention: softmax(Q K^T / sqrt(D)) V on emulated AIC + AIV blocks\n");
  bool ok = true;
  ok &= check<float>("f32", 256, 64, 2);
  ok &= check<pto::half>("f16", 512, 128, 4);
  ok &= check<pto::half>("f16", 300, 128, 3);     // tails: a short last query and key block
  ok &= check<pto::bfloat16>("bf16", 200, 32, 2);
  ok &= check<pto::half>("f16", 512, 128, 4, "a5");  // fused through the cross-core moves
  ok &= check<pto::half>("f16", 300, 128, 3, "a5");
  ok &= check<float>("f32", 257, 64, 2, "a5");         // a 1-row last query block: AIV 1 gets nothing
  std::printf(ok ? "06_flash_attention: all results match the C++ reference\n" : "06_flash_attention: FAILED\n");
  return ok ? 0 : 1;
}
