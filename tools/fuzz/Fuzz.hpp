#pragma once
// The differential fuzzer: random kernels — expression trees over every tile operation and dtype
// (bitwise ops and shifts on integers), row and column reductions and arg-reductions, gathermask
// and fillpad passing a result on, PyPTO Pro's partial ops over a
// smaller valid extent, random shapes with tails, tile sizes, group depths and
// block_dims, store options and a closing sync_all, and (one round in four) cube kernels: matmul
// with tails, K steps, transposed B, L1/L0 depths, a bias row and FIX's store options, and mix
// kernels (samples 04 and 06 on a2 through GM workspaces and on a5 through the cross-core moves)
// — run on the JIT (O2) and on the reference interpreter, and compared element by element (and
// by simulated cycles). A vector mismatch is shrunk to a minimal kernel and printed as C++; a cube
// one is printed as its parameters.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pto::fuzz {

struct Options {
  int cases = 2000;
  uint64_t seed = 1;
  int batch = 16;       // cases traced into one kernel (one compile) — each has its own output rows
  bool shrink = true;   // shrink each failing case to a minimal one
  int jobs = 0;         // rounds run side by side: 0 every host thread, 1 one after another. The cases and
                        // the result do not depend on it (rounds are planned in order, reported in order)
  std::function<void(const std::string&)> log;  // failures, as they are found (may be empty)
  std::function<void(int cases, int mismatches)> progress;  // after each round (may be empty)
};

struct Failure {
  std::string what;  // the first differing element, or the cycle counts
  std::string cpp;   // the minimal kernel, as C++
};

struct Result {
  int cases = 0;
  int mismatches = 0;
  double seconds = 0;
  std::vector<Failure> failures;
};

Result run(const Options& options);

}  // namespace pto::fuzz
