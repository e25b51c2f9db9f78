#pragma once
// Launch profiles of the samples for tests: each run is verified bit-exact against the C++
// reference before its profile is returned.
#include <doctest/doctest.h>

#include "01_vector_add/vector_add.hpp"
#include "02_softmax/softmax.hpp"

namespace pto::test {

/// Calls `body(sync)` for each way the samples' vector kernels can run: the JIT's code and the
/// interpreter, on one and two host threads, each sync mode (automatic, manual, none), races
/// reported (not raised). Leaves the host threads at their default.
template <class Body>
void for_each_backend_threads_sync(const Body& body) {
  for (bool interpret : {false, true}) {
    ScopedOptionOverrides backend({.interpret = interpret, .on_race = OnRace::report});
    for (int threads : {1, 2}) {
      set_host_threads(threads);
      for (samples::SyncMode sync : {samples::SyncMode::automatic, samples::SyncMode::manual, samples::SyncMode::none}) {
        CAPTURE(interpret);
        CAPTURE(threads);
        CAPTURE(static_cast<int>(sync));
        body(sync);
      }
      set_host_threads(0);
    }
  }
}

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

/// Softmax f32 over random rows x cols: the launch's profile, its output within 1e-6 of the reference.
inline LaunchProfile softmax_profile(const samples::softmax::Params& p, int64_t rows, int64_t cols, int block_dim) {
  namespace sm = samples::softmax;
  const auto kernel = sm::make_kernel<float>(p);
  auto x = Tensor<float>::random({rows, cols}, 3), y = Tensor<float>::zeros({rows, cols});
  auto profile = kernel[{.block_dim = block_dim}].run_sync(x, y);
  auto want = Tensor<float>::zeros({rows, cols});
  sm::reference(x, want);
  REQUIRE(samples::max_abs_diff(y, want) <= 1e-6);
  return profile;
}

/// Checks that two profiles give the same simulated numbers: cycles per core and pipe, bytes,
/// instructions and races.
inline void check_same_profile(const LaunchProfile& a, const LaunchProfile& b) {
  CHECK(a.device_us == b.device_us);
  CHECK(a.core_us == b.core_us);
  CHECK(a.gm_bytes == b.gm_bytes);
  CHECK(a.hbm_bytes == b.hbm_bytes);
  CHECK(a.instructions == b.instructions);
  CHECK(a.races.size() == b.races.size());
  REQUIRE(a.cores.size() == b.cores.size());
  for (size_t c = 0; c < a.cores.size(); ++c) {
    CHECK(a.cores[c].end_cycles == b.cores[c].end_cycles);
    for (size_t q = 0; q < a.cores[c].pipes.size(); ++q) {
      CHECK(a.cores[c].pipes[q].busy == b.cores[c].pipes[q].busy);
      CHECK(a.cores[c].pipes[q].wait == b.cores[c].pipes[q].wait);
      CHECK(a.cores[c].pipes[q].instructions == b.cores[c].pipes[q].instructions);
    }
  }
}

}  // namespace pto::test
