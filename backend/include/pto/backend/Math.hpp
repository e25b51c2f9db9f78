// The transcendental functions of tile expressions as plain C++ functions: what the interpreter
// computes, bit for bit what the JIT's inlined, vectorised code computes (backend/src/math/
// MathKernels.hpp has the algorithms, their accuracy and their special values). Half and bfloat16
// tiles compute in float and round once to their format.
#pragma once

namespace pto::math {

float exp(float x);      ///< ≤ 1 ulp
float log(float x);      ///< ≤ 1 ulp
float tanh(float x);     ///< ≤ 2 ulp
float sigmoid(float x);  ///< 1 / (1 + exp(-x)), ≤ 3 ulp
float erf(float x);      ///< ≤ 2 ulp
float sin(float x);      ///< ≤ 1 ulp for |x| ≤ 2^20, a value in [-1, 1] beyond
float cos(float x);      ///< ≤ 1 ulp for |x| ≤ 2^20, a value in [-1, 1] beyond
float pow(float x, float y);  ///< ≤ 1 ulp; C99 F.9.4.4's special cases

}  // namespace pto::math
