#include <chrono>

#include <fmt/format.h>

#include "Commands.hpp"
#include "Samples.hpp"
#include "Timing.hpp"

namespace pto::cli {

// The main job of `make demo`: both samples on a few shapes, first call (trace + JIT compile)
// versus steady state (cache hit), every result verified against plain C++.
int demo_command() {
  struct Case {
    const char* sample;
    const char* shape;
    const char* dtype;
    int block_dim;
  };
  const Case cases[] = {
      {"vector_add", "1048576", "f32", 8},  {"vector_add", "100003", "f32", 48}, {"vector_add", "65536", "f16", 4},
      {"softmax", "1024x1024", "f32", 8},   {"softmax", "333x1000", "f16", 16},  {"softmax", "256x4096", "bf16", 24},
  };
  fmt::print("PTO-JIT demo: kernels traced from C++ lambdas, JIT-compiled with LLVM ORC, run on emulated AI Vector cores\n\n");
  fmt::print("{:<11} {:<10} {:<5} {:>9} {:>14} {:>15} {:>9} {:>7}\n", "sample", "shape", "dtype", "block_dim", "first call ms",
             "steady state us", "speed-up", "check");
  bool all_ok = true;
  for (const auto& c : cases) {
    RunOptions o{.sample = c.sample, .shape = c.shape, .dtype = c.dtype, .block_dim = c.block_dim};
    auto run = find_sample(c.sample).prepare(sample_args(o));
    auto launch_and_sync = [&] {
      run.launch();
      pto::synchronize();
    };
    auto t = std::chrono::steady_clock::now();
    launch_and_sync();
    const double cold_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    const TimeStats warm = time_calls_for(launch_and_sync, 2, 10, 0.1);
    const auto v = run.verify();
    all_ok &= v.ok;
    fmt::print("{:<11} {:<10} {:<5} {:>9} {:>14.2f} {:>15.1f} {:>8.0f}x {:>7}\n", c.sample, c.shape, c.dtype, c.block_dim, cold_ms,
               warm.median_us, cold_ms * 1000.0 / warm.median_us, v.ok ? "ok" : "FAILED");
  }
  const auto stats = CompileCache::global().stats();
  fmt::print("\ncompile cache: {} specialisations, {} hits, {:.1f} ms compiling in total\n", stats.entries, stats.hits, stats.compile_ms);
  fmt::print("{}\n", all_ok ? "all results match the plain C++ references" : "SOME RESULTS DID NOT MATCH");
  return all_ok ? 0 : 1;
}

}  // namespace pto::cli
