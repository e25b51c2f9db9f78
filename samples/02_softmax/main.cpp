// Sample 02 — row softmax, the classic vector kernel with reductions.
//
// What it shows:
//   * 2-D tiles holding several rows, row reductions (row_max, row_sum) into (R, 1) tiles
//   * broadcasting a (R, 1) tile along rows inside a fused expression: exp(x - max)
//   * one kernel source specialised per dtype: float, half and bfloat16
//   * tails in rows (a short last block) and in columns (rows padded to the 32-byte block)
//   * rows too wide for the UB walked in column chunks (softmax_in_chunks)
#include <algorithm>
#include <cstdio>

#include "softmax.hpp"

namespace sm = pto::samples::softmax;

template <class T>
bool check(const char* dtype, int64_t rows, int64_t cols, int block_dim) {
  static const auto kernel = sm::make_kernel<T>({});
  auto x = pto::Tensor<T>::random({rows, cols}, 3, -4.0, 4.0);
  auto y = pto::Tensor<T>::zeros({rows, cols}), want = pto::Tensor<T>::zeros({rows, cols});
  sm::reference(x, want);
  kernel[{.block_dim = block_dim}](x, y);
  pto::synchronize();
  const double err = pto::samples::max_abs_diff(y, want);
  // The tolerance scaled by the largest output: over tens of thousands of columns the outputs are
  // around 1 / cols, and a row sum a chunk short would still pass an absolute bound.
  double peak = 0;
  for (int64_t i = 0; i < want.numel(); ++i) peak = std::max(peak, static_cast<double>(static_cast<float>(want[i])));
  const double tol = sm::tolerance<T>() * peak;
  const bool ok = err <= tol;
  std::printf("  %-4s [%lld x %lld] block_dim=%-2d max |err| %.3g (tolerance %.2g) %s\n", dtype, static_cast<long long>(rows),
              static_cast<long long>(cols), block_dim, err, tol, ok ? "ok" : "MISMATCH");
  return ok;
}

int main() {
  std::printf("02_softmax: y = softmax(x) along rows on emulated AI Vector cores\n");
  bool ok = true;
  ok &= check<float>("f32", 256, 1024, 8);
  ok &= check<float>("f32", 37, 1000, 5);         // tails in rows and columns
  ok &= check<pto::half>("f16", 128, 512, 16);
  ok &= check<pto::half>("f16", 33, 100, 4);
  ok &= check<pto::bfloat16>("bf16", 64, 256, 2);
  // Rows wider than the UB holds (a vocabulary's logits): walked in column chunks, with a chunk
  // tail, a short last block of rows and idle cores.
  ok &= check<float>("f32", 9, 16000, 4);
  ok &= check<pto::half>("f16", 3, 33000, 2);
  ok &= check<pto::bfloat16>("bf16", 2, 20000, 8);
  std::printf(ok ? "02_softmax: all results within tolerance of the C++ reference\n" : "02_softmax: FAILED\n");
  return ok ? 0 : 1;
}
