#pragma once
// The row kernels of the samples' native baselines (`pto bench --vs-native`): what a good host
// implementation does, so a ratio against them means something. They are compiled on their own
// (NativeKernels.cpp) with -O3 -ffast-math, one clone per x86 ISA level chosen at run time
// (x86-64-v4, x86-64-v3, baseline), and glibc's libmvec supplies the vectorised expf. They are baselines
// for timing, not references: the samples verify against plain C++ in double.
#include <cstdint>

namespace pto::samples::native {

/// y = softmax(x · scale) over one row of n floats (max, exp, sum, multiply by 1/sum); x and y
/// may be the same row.
void softmax_row(const float* x, float* y, int64_t n, float scale = 1.0f);

/// y = (x − mean) / sqrt(var + eps) · gamma + beta over one row of n floats.
void layernorm_row(const float* x, const float* gamma, const float* beta, float* y, int64_t n, float eps);

/// z = x + y element by element over n floats.
void add_row(const float* x, const float* y, float* z, int64_t n);

/// y = x · a + b element by element over n floats.
void affine_row(const float* x, float* y, int64_t n, float a, float b);

/// y = max(y + bias, 0) over one row of n floats.
void bias_relu_row(float* y, const float* bias, int64_t n);

/// y = e^x element by element over n floats (libmvec's vectorised expf).
void exp_row(const float* x, float* y, int64_t n);

/// z = x^y element by element over n floats (libmvec's vectorised powf).
void pow_row(const float* x, const float* y, float* z, int64_t n);

/// Half (IEEE binary16) and bfloat16 rows, given as their bits, to float and back (round to
/// nearest even): half through F16C, 8 elements an instruction, where the host has it (else one
/// at a time); bfloat16 by shifts that GCC vectorises.
void f16_to_f32(const uint16_t* src, float* dst, int64_t n);
void f32_to_f16(const float* src, uint16_t* dst, int64_t n);
void bf16_to_f32(const uint16_t* src, float* dst, int64_t n);
void f32_to_bf16(const float* src, uint16_t* dst, int64_t n);

}  // namespace pto::samples::native
