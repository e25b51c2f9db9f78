#pragma once
// The launch profile of the flash attention sample for tests (a mix kernel), its output checked
// against the C++ reference first.
#include <doctest/doctest.h>

#include "06_flash_attention/flash_attention.hpp"

namespace pto::test {

/// Flash attention 512x64 f16 on the a2 profile (tq = tkv = 128: four query blocks), on
/// `block_dim` blocks: each block's AIC and two AIVs hand S, P and PV over through GM workspaces
/// and cross-core flags. Its output within the sample's tolerance of the reference.
inline LaunchProfile flash_attention_profile(int block_dim) {
  namespace fa = samples::flash_attention;
  using T = half;
  constexpr int64_t S = 512, D = 64;
  const fa::Params params = fa::default_params<T>("a2");
  const auto kernel = fa::make_kernel<T>(params);
  auto q = Tensor<T>::random({S, D}, 11), k = Tensor<T>::random({S, D}, 12), v = Tensor<T>::random({S, D}, 13);
  auto o = Tensor<T>::zeros({S, D}), want = Tensor<T>::zeros({S, D});
  fa::Workspace<T> ws(block_dim, params, D);
  auto profile = kernel[{.block_dim = block_dim}].run_sync(q, k, v, o, ws.scores, ws.probs, ws.values);
  fa::reference(q, k, v, want);
  REQUIRE(samples::max_abs_diff(o, want) <= fa::tolerance<T>());
  return profile;
}

}  // namespace pto::test
