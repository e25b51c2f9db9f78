#pragma once
// Launch profiles of the samples for tests: each run is verified bit-exact against the C++
// reference before its profile is returned.
#include <doctest/doctest.h>

#include "01_vector_add/vector_add.hpp"

namespace pto::test {

inline LaunchProfile vector_add_profile(samples::vector_add::Params p, int64_t n, int block_dim) {
  namespace va = samples::vector_add;
  const auto kernel = va::make_kernel<float>(p);
  auto x = Tensor<float>::random({n}, 1), y = Tensor<float>::random({n}, 2), z = Tensor<float>::zeros({n});
  auto profile = kernel[{.block_dim = block_dim}].run_sync(x, y, z);
  auto want = Tensor<float>::zeros({n});
  va::reference(x, y, want);
  REQUIRE(samples::max_abs_diff(z, want) == 0);
  return profile;
}

}  // namespace pto::test
