#pragma once
// Which host instruction set the cube's multiply (pto_rt_matmul, CubeMatmul.cpp) runs on. The
// emulator picks the best the host has at run time; tests force a lower one to check that every
// path computes bit-identical results (float: one fused multiply-add chain per element in k
// order; int8: wrapping int32 sums). The portable float path multiplies and adds unfused.
#include <cstdint>

namespace pto {

enum class MatmulIsa : uint8_t { portable, avx2, avx512, best };

/// Forces `isa` for later multiplies in every thread (`best` undoes it). An ISA the host lacks
/// falls back to the best it has. For tests and benchmarks; not for use while kernels run.
void force_matmul_isa(MatmulIsa isa);

/// The ISA multiplies run on now: the forced one if the host has it, else the host's best.
MatmulIsa matmul_isa();

/// "portable", "avx2" or "avx512".
const char* matmul_isa_name(MatmulIsa isa);

}  // namespace pto
