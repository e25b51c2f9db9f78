// pto::math on plain C++ values: MathKernels instantiated with float/double/int32_t/bool. Integer
// arithmetic wraps (done on uint32_t) and shifts are C++20's, matching LLVM's add/shl/ashr. Every
// operation exists for each kind it takes: this file is built with -Werror=float-conversion, so a
// missing double overload can't silently round its operands to float.
#include "pto/backend/Math.hpp"

#include "MathKernels.hpp"

#include <cmath>

namespace pto::math {
namespace {

struct ScalarOps {
  using F = float;
  using D = double;
  using I = int32_t;
  using B = bool;
  static F f(double v) { return static_cast<float>(v); }
  static D d(double v) { return v; }
  static I i(int32_t v) { return v; }
  static F add(F a, F b) { return a + b; }
  static F sub(F a, F b) { return a - b; }
  static F mul(F a, F b) { return a * b; }
  static F div(F a, F b) { return a / b; }
  static D add(D a, D b) { return a + b; }
  static D sub(D a, D b) { return a - b; }
  static D mul(D a, D b) { return a * b; }
  static D div(D a, D b) { return a / b; }
  static F fma(F a, F b, F c) { return std::fma(a, b, c); }
  static D fma(D a, D b, D c) { return std::fma(a, b, c); }
  static F i2f(I v) { return static_cast<float>(v); }
  static I f2i(F v) { return static_cast<int32_t>(v); }
  static D f2d(F v) { return v; }
  static F d2f(D v) { return static_cast<float>(v); }
  static I d2i(D v) { return static_cast<int32_t>(v); }
  static I bits(F v) { return std::bit_cast<int32_t>(v); }
  static F from_bits(I v) { return std::bit_cast<float>(v); }
  static I iadd(I a, I b) { return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)); }
  static I isub(I a, I b) { return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)); }
  static I iand(I a, I b) { return a & b; }
  static I ior(I a, I b) { return a | b; }
  static I shl(I a, int n) { return static_cast<int32_t>(static_cast<uint32_t>(a) << n); }
  static I sra(I a, int n) { return a >> n; }
  static B flt(F a, F b) { return a < b; }
  static B fle(F a, F b) { return a <= b; }
  static B feq(F a, F b) { return a == b; }
  static B flt(D a, D b) { return a < b; }
  static B fle(D a, D b) { return a <= b; }
  static B feq(D a, D b) { return a == b; }
  static B ieq(I a, I b) { return a == b; }
  static B isnan(F v) { return v != v; }
  static B band(B a, B b) { return a && b; }
  static B bor(B a, B b) { return a || b; }
  static B bnot(B a) { return !a; }
  template <class T>
  static T sel(B c, T a, T b) { return c ? a : b; }
};

ScalarOps ops;

}  // namespace

float exp(float x) { return MathKernels<ScalarOps>{ops}.exp(x); }
float log(float x) { return MathKernels<ScalarOps>{ops}.log(x); }
float tanh(float x) { return MathKernels<ScalarOps>{ops}.tanh(x); }
float sigmoid(float x) { return MathKernels<ScalarOps>{ops}.sigmoid(x); }
float erf(float x) { return MathKernels<ScalarOps>{ops}.erf(x); }
float sin(float x) { return MathKernels<ScalarOps>{ops}.sin(x); }
float cos(float x) { return MathKernels<ScalarOps>{ops}.cos(x); }
float pow(float x, float y) { return MathKernels<ScalarOps>{ops}.pow(x, y); }

}  // namespace pto::math
