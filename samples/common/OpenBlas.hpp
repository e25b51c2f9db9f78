#pragma once
// OpenBLAS, opened on first use and single-threaded: the matmul samples' reference (dgemm) and
// native baseline (sgemm). It is not linked into the programs: Debian's OpenBLAS starts a thread
// pool in its load-time constructor whose workers spin on sched_yield for about 0.1 s, which on a
// small host took a core from every process that links it, whether it ever called BLAS or not
// (measured on `pto run vector_add --shape 1024` with no cache: 50-80 ms of system time, most
// of it sched_yield, down to 10-20 ms). Opened with OPENBLAS_NUM_THREADS=1, it starts no threads; the callers
// split work into one band per TBB thread themselves (Blas.hpp).
//
// Kernels: OpenBLAS (DYNAMIC_ARCH) picks its kernel set by CPU model unless OPENBLAS_CORETYPE
// names one; the baselines report which (`openblas_sgemm_name`). Measured on an AMD family 1Ah
// host with AVX-512, single-threaded sgemm 1024^3: its own pick (Cooperlake, AVX-512) 216-240
// GFLOP/s, OPENBLAS_CORETYPE=Haswell (AVX2) 122 GFLOP/s.
#include <cblas.h>

#include <string>

namespace pto::samples {

struct OpenBlas {
  decltype(&cblas_sgemm) sgemm;
  decltype(&cblas_dgemm) dgemm;
  std::string kernels;  // the kernel set OpenBLAS chose ("SkylakeX", "Haswell", ...)
};

/// The process's OpenBLAS, opened on the first call (thread-safe). Throws std::runtime_error naming
/// the library when it cannot be opened.
const OpenBlas& openblas();

/// "OpenBLAS sgemm (<kernels> kernels)": the matmul baselines' name for `pto bench --vs-native`.
std::string openblas_sgemm_name();

}  // namespace pto::samples
