// Sample 03 — matmul on the cube: GM -> L1 (MTE2) -> L0A/L0B (MTE1) -> cube (M) -> L0C -> GM (FIX).
//
// What it shows:
//   * tiles in pl::Mat, pl::Left, pl::Right and pl::Acc, and the instructions between them
//   * the K loop accumulating in the Acc tile (the first step overwrites, later steps add)
//   * L1/L0 double buffering with tile groups and auto_mutex
//   * tails in M, N and K, and the float -> half conversion of the output on FIX
//   * mac_util: how much of the cube's peak the kernel reaches in simulated time
//   * a layout choice: B given as K x N or as N x K. L1 holds both as NZ blocks, converted from ND
//     on the GM -> L1 load, which loses rate when the GM rows are not a multiple of 256 B; with
//     N = 1000 the K x N rows (2000 B) are not, the N x K rows (2048 B) are
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

/// The same product with B given as K x N and as N x K (moved into L0B with {.transpose = true}):
/// simulated time and the share of MTE2's busy time spent converting ND -> NZ.
bool layout_choice() {
  constexpr int64_t M = 512, N = 1000, K = 1024;
  constexpr int kBlocks = 8;
  std::printf("  layouts: f16 %lldx%lldx%lld, block_dim=%d, B given as K x N or as N x K\n", static_cast<long long>(M),
              static_cast<long long>(N), static_cast<long long>(K), kBlocks);
  auto a = pto::Tensor<pto::half>::random({M, K}, 1), b = pto::Tensor<pto::half>::random({K, N}, 2);
  auto bt = pto::Tensor<pto::half>::zeros({N, K});
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t n = 0; n < N; ++n) bt.at(n, k) = b.at(k, n);
  }
  auto want = pto::Tensor<pto::half>::zeros({M, N});
  mm::reference(a, b, want);
  const double tol = mm::tolerance<pto::half>(want, K);
  double us[2] = {};
  bool ok = true;
  for (int transposed = 0; transposed < 2; ++transposed) {
    mm::Params p{.tm = 128, .tn = 256, .tk = 256, .transpose_b = transposed == 1, .k0 = 64, .acc_buffers = 1};
    const auto kernel = mm::make_kernel<pto::half>(p);
    auto c = pto::Tensor<pto::half>::zeros({M, N});
    const auto prof = kernel[{.block_dim = kBlocks}].run_sync(a, transposed ? bt : b, c);
    double busy = 0, convert = 0;
    for (const auto& core : prof.cores) {
      busy += core.pipes[static_cast<size_t>(pto::ir::Pipe::MTE2)].busy;
      convert += core.pipes[static_cast<size_t>(pto::ir::Pipe::MTE2)].convert;
    }
    const double err = pto::samples::max_abs_diff(c, want);
    us[transposed] = prof.device_us;
    ok &= err <= tol && prof.races.empty();
    std::printf("    B as %s (GM rows of %4lld B): %8.1f us simulated, MTE2 converting ND -> NZ %4.1f%% of its busy time, max |err| %.3g %s\n",
                transposed ? "N x K" : "K x N", static_cast<long long>((transposed ? K : N) * 2), prof.device_us,
                100 * convert / busy, err, err <= tol ? "ok" : "MISMATCH");
  }
  std::printf("    B as N x K is %.2fx faster: its rows are a multiple of 256 B, which ND -> NZ converts at 0.9 of the DMA's rate "
              "against 0.5 (a2's table; the figures are assumptions, docs/calibration.md)\n",
              us[0] / us[1]);
  return ok;
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
  ok &= layout_choice();
  std::printf(ok ? "03_matmul: all results match the C++ reference\n" : "03_matmul: FAILED\n");
  return ok ? 0 : 1;
}
