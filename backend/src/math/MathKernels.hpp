// The transcendental functions of tile expressions (exp, log, tanh, sigmoid, erf, sin, cos, pow), written
// once over an arithmetic `Ops` and instantiated twice: on plain C++ floats for the interpreter
// (ScalarMath.cpp) and on LLVM IR values for the JIT (codegen/CodeGenMath.cpp), where the loop
// vectoriser turns them into SIMD code at whatever width the host has.
//
// Contract:
//  * Every step is an IEEE-754 operation rounded once (add, sub, mul, div, and fma where the
//    algorithm asks for it by name: std::fma in the interpreter, llvm.fma in the JIT), an exact
//    conversion, a bit operation or a select. Nothing else is fused: the JIT emits no `contract`
//    flags and the backend is built with -ffp-contract=off. So both engines, and any SIMD width,
//    give the same bits for the same input: the engines agree exactly.
//  * Accuracy against the exact function (tests/unit/math_accuracy_test.cpp measures it on a sweep
//    of every 997th float plus specials, and exp, log and tanh densely; docs/semantics.md states it):
//    exp ≤ 1 ulp, log ≤ 1 ulp, tanh ≤ 2 ulp, sigmoid ≤ 3 ulp, erf ≤ 2 ulp,
//    sin/cos ≤ 1 ulp for |x| ≤ 2^20 (beyond, a value in [-1, 1] without an accuracy claim — like
//    the vector unit's, whose documented Sin/Cos range is smaller still), pow ≤ 1 ulp (its
//    logarithm and exponential are carried in double, so it rounds once, to within a hair of
//    0.5 ulp).
//  * Specials follow C99 Annex F: exp(-inf) = +0, exp(+inf) = +inf, log(±0) = -inf, log(x<0) = NaN,
//    log(+inf) = +inf, tanh(±inf) = ±1, erf(±inf) = ±1, sin/cos(±inf) = NaN; a NaN input is
//    returned as it is; tanh, erf and sin keep the sign of zero. pow follows F.9.4.4 in full:
//    pow(x, ±0) = 1 and pow(+1, y) = 1 even for NaN, pow(-1, ±inf) = 1, a negative finite base
//    with a finite non-integral exponent gives NaN, zeros and infinities as bases give ±0 or ±inf
//    by the sign and oddness of y, and an odd integral y keeps the base's sign.
//
// Why not a vector libm: libmvec or SLEEF would be fast, but their results depend on the host's
// ISA variant (FMA or not, SSE/AVX2/AVX-512 code paths) and they can't be inlined into the fused
// element loop; these polynomials are inlined, vectorised by LLVM, and give one answer everywhere.
//
// The coefficients are weighted least-squares fits on Chebyshev nodes in long double (near
// minimax), rounded to float; sin and cos use Taylor coefficients in double.
//
// Ops: F (f32 value), D (f64 value), I (i32 value), B (boolean); constants f(double), d(double),
// i(int32_t); add/sub/mul/div on F or D; fma(a, b, c) = a · b + c rounded once, on F or D; i2f,
// f2i (F integral, in range), f2d, d2f, d2i (D integral, in range); bits (F -> I), from_bits
// (I -> F); iadd, isub, iand, ior, shl, sra (wrapping); flt, fle, feq on F or D, ieq on I; isnan
// (F); sel(B, x, y) for any kind; band/bor/bnot on B.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>

namespace pto::math {

/// `v` rounded toward zero to `bits` significant bits: the high part of a constant split into a
/// part whose products with small integers are exact and the rest.
constexpr float leading_bits(double v, int bits) {
  const uint32_t mask = ~((uint32_t{1} << (24 - bits)) - 1);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(static_cast<float>(v)) & mask);
}
constexpr double leading_bits_d(double v, int bits) {
  const uint64_t mask = ~((uint64_t{1} << (53 - bits)) - 1);
  return std::bit_cast<double>(std::bit_cast<uint64_t>(v) & mask);
}

inline constexpr double kLn2 = 0.693147180559945309417232121458176568;
inline constexpr double kLog2e = 1.442695040888963407359924681001892137;
inline constexpr double kPiOver2 = 1.570796326794896619231321691639751442;
inline constexpr double kPiOver2Lo = 6.123233995736766035868820147291818e-17;  // π/2 − double(π/2)
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kTwoOverPi = 0.636619772367581343075535053490057448;

template <class Ops>
struct MathKernels {
  using F = typename Ops::F;
  using D = typename Ops::D;
  using I = typename Ops::I;
  using B = typename Ops::B;
  Ops& o;

  // ln 2 as 16 leading bits plus the rest: k · hi is exact for |k| < 2^8.
  static constexpr float kLn2Hi = leading_bits(kLn2, 16);
  static constexpr float kLn2Lo = static_cast<float>(kLn2 - static_cast<double>(kLn2Hi));

  // Polynomials are evaluated with fused multiply-adds: one rounding a step instead of two, and
  // half the vector operations. With exp's reduction fused too (below), the JIT's exp over 4M
  // floats went 1.80 -> 1.68 ms and softmax 4096x1024 f32 1.98 -> 1.79 ms (medians of 5
  // alternating runs; exp's worst error over every float of [-104, 89] 0.989 -> 0.986 ulp).
  template <std::size_t N>
  auto horner(auto x, const float (&c)[N]) {  // c[0] + x c[1] + ... + x^(N-1) c[N-1], in F
    F p = o.f(c[N - 1]);
    for (std::size_t k = N - 1; k-- > 0;) p = o.fma(p, x, o.f(c[k]));
    return p;
  }
  template <class Coefficients>  // a double[N] or std::array<double, N>
  D horner_d(D x, const Coefficients& c) {
    const std::size_t n = std::size(c);
    D p = o.d(c[n - 1]);
    for (std::size_t k = n - 1; k-- > 0;) p = o.fma(p, x, o.d(c[k]));
    return p;
  }
  /// Nearest integer (ties to even) of |t| < 2^51, by adding and removing 1.5 · 2^52.
  D round_small_d(D t) { return o.sub(o.add(t, o.d(0x1.8p52)), o.d(0x1.8p52)); }
  F fmin(F a, F b) { return o.sel(o.flt(b, a), b, a); }
  F fmax(F a, F b) { return o.sel(o.flt(a, b), b, a); }
  F abs(F x) { return o.from_bits(o.iand(o.bits(x), o.i(0x7fffffff))); }
  /// |y| with x's sign bit.
  F copy_sign(F y, F x) {
    return o.from_bits(o.ior(o.iand(o.bits(y), o.i(0x7fffffff)), o.iand(o.bits(x), o.i(INT32_MIN))));
  }
  /// 2^k for k in [-126, 127].
  F pow2(I k) { return o.from_bits(o.shl(o.iadd(k, o.i(127)), 23)); }

  F exp(F x) {
    static constexpr float kP[] = {0x1.fffff8p-2f, 0x1.55548ep-3f, 0x1.555b58p-5f, 0x1.123b8ep-7f, 0x1.687c22p-10f};
    // e^89 overflows and e^-104 rounds to zero: clamping keeps k in [-150, 129] with the same
    // result. A NaN fails the first comparison and clamps to 89 (k stays in range; the last select
    // returns it).
    F xc = fmax(o.sel(o.flt(x, o.f(89.0)), x, o.f(89.0)), o.f(-104.0));
    // k = round(x log2 e), ties to even, by adding and removing 1.5 · 2^23 (the product fused
    // into the addition). The sum's bits are 0x4b400000 + k.
    F shifted = o.fma(xc, o.f(kLog2e), o.f(0x1.8p23));
    F kf = o.sub(shifted, o.f(0x1.8p23));
    // r = x - k ln2: k · hi is exact (16-bit hi, |k| < 2^8), so fusing it changes nothing; k · lo
    // is fused into its step (one rounding instead of two).
    F r = o.fma(kf, o.f(-kLn2Lo), o.fma(kf, o.f(-kLn2Hi), xc));
    // Not fused: r + r² · P as one fma reaches 1.013 ulp over every float of [-104, 89].
    F y = o.add(o.f(1.0), o.add(r, o.mul(o.mul(r, r), horner(r, kP))));
    // y · 2^k as y · 2^k1 · 2^(k - k1), k1 = floor(k / 2), so that results down in the subnormals
    // and up to overflow round once (in the last product; y · 2^k1 is normal and exact, so it is
    // y's exponent field plus k1). The shifts take k from the sum's bits: 0x4b400000's bits leave
    // a 32-bit word when shifted left by 23, and (0x4b400000 + k) >> 1 is 0x25a00000 + k1. Seven
    // integer and float operations where pow2(k1) and pow2(k - k1) from k took nine, same results.
    const I k_bits = o.bits(shifted);
    const I k1_field = o.shl(o.sra(k_bits, 1), 23);                   // k1 << 23
    const I k2_field = o.isub(o.shl(k_bits, 23), k1_field);           // (k - k1) << 23
    F y1 = o.from_bits(o.iadd(o.bits(y), k1_field));
    y = o.mul(y1, o.from_bits(o.iadd(k2_field, o.i(127 << 23))));
    return o.sel(o.isnan(x), x, y);
  }

  /// x = 2^e · m with m in [√2/2, √2), for a positive finite x (subnormals included); other
  /// inputs give something the caller's selects replace.
  struct Split {
    I e;
    F m;
  };
  Split split_exponent(F x) {
    const B tiny = o.flt(x, o.f(0x1p-126));
    F xs = o.sel(tiny, o.mul(x, o.f(0x1p23)), x);
    I ix = o.iadd(o.bits(xs), o.i(0x3f800000 - 0x3f3504f3));
    I e = o.iadd(o.isub(o.sra(ix, 23), o.i(127)), o.sel(tiny, o.i(-23), o.i(0)));
    F m = o.from_bits(o.iadd(o.iand(ix, o.i(0x007fffff)), o.i(0x3f3504f3)));
    return {e, m};
  }

  F log(F x) {
    // log(x) = e ln2 + log(1+f), 1+f in [√2/2, √2); log(1+f) = f − f²/2 + s (f²/2 + R(s²)) with
    // s = f/(2+f), R(z) = 2z/3 + 2z²/5 + ... (the series of 2 atanh(s) − f + f²/2 − s f²/2).
    static constexpr float kR[] = {2.0f / 3, 2.0f / 5, 2.0f / 7, 2.0f / 9, 2.0f / 11};
    const auto [e, m] = split_exponent(x);
    F f = o.sub(m, o.f(1.0));
    F s = o.div(f, o.add(o.f(2.0), f));
    F z = o.mul(s, s);
    F R = o.mul(z, horner(z, kR));
    F hfsq = o.mul(o.f(0.5), o.mul(f, f));
    F dk = o.i2f(e);
    F y = o.sub(o.mul(dk, o.f(kLn2Hi)), o.sub(o.sub(hfsq, o.add(o.mul(s, o.add(hfsq, R)), o.mul(dk, o.f(kLn2Lo)))), f));
    y = o.sel(o.feq(x, o.f(0.0)), o.f(-kInf), y);
    y = o.sel(o.feq(x, o.f(kInf)), x, y);
    y = o.sel(o.flt(x, o.f(0.0)), o.f(kNaN), y);
    return o.sel(o.isnan(x), x, y);
  }

  F tanh(F x) {
    // |x| < 0.625: x + x³ P(x²); above, 1 − 2/(e^{2|x|} + 1) (≥ 0.55, so no cancellation).
    static constexpr float kP[] = {-0x1.555532p-2f, 0x1.1106d6p-3f, -0x1.b83322p-5f, 0x1.51f0fp-6f, -0x1.7507acp-8f};
    F a = abs(x);
    F z = o.mul(a, a);
    F small = o.add(a, o.mul(o.mul(a, z), horner(z, kP)));
    F large = o.sub(o.f(1.0), o.div(o.f(2.0), o.add(exp(o.add(a, a)), o.f(1.0))));
    return copy_sign(o.sel(o.flt(a, o.f(0.625)), small, large), x);
  }

  F sigmoid(F x) {  // t = e^-|x|: 1 / (1 + t) for x ≥ 0, t / (1 + t) below (no premature underflow)
    F t = exp(o.sub(o.f(-0.0), abs(x)));
    F d = o.add(o.f(1.0), t);
    F y = o.div(o.sel(o.flt(x, o.f(0.0)), t, o.f(1.0)), d);
    return o.sel(o.isnan(x), x, y);
  }

  F erf(F x) {
    // |x| < 0.921875: x + x Q(x²); up to 4: 1 − e^{G(|x|)}, G ≈ log erfc; from 4 on, erf rounds to 1.
    static constexpr float kQ[] = {0x1.20dd74p+0f - 1.0f, -0x1.8126ecp-2f, 0x1.ce1b58p-4f, -0x1.b69768p-6f, 0x1.477bf2p-8f, -0x1.3b07e8p-11f};
    static constexpr float kG[] = {0x1.3d66ep-12f,  -0x1.215278p+0f, -0x1.438db4p-1f, -0x1.c27546p-4f, 0x1.afee6ep-6f,
                                   -0x1.369deap-8f, 0x1.36b7fap-11f, -0x1.7e5366p-15f, 0x1.b116fap-20f};
    F a = abs(x);
    F small = o.add(a, o.mul(a, horner(o.mul(a, a), kQ)));
    F ac = fmin(a, o.f(4.0));
    F large = o.sel(o.flt(a, o.f(4.0)), o.sub(o.f(1.0), exp(horner(ac, kG))), o.f(1.0));
    F y = copy_sign(o.sel(o.flt(a, o.f(0.921875)), small, large), x);
    return o.sel(o.isnan(x), x, y);
  }

  /// sin (cosine = false) or cos of x: reduced by π/2 in double (exact for |k| < 2^20), both
  /// series in double on [-π/4, π/4], the quadrant picks one and its sign, rounded once to float.
  F sin_cos(F x, bool cosine) {
    static constexpr double kS[] = {-1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800};
    static constexpr double kC[] = {-1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600, -1.0 / 87178291200};
    static constexpr double kP1 = leading_bits_d(kPiOver2, 32);
    static constexpr double kP2 = leading_bits_d(kPiOver2 - kP1, 32);
    static constexpr double kP3 = (kPiOver2 - kP1 - kP2) + kPiOver2Lo;
    const B bad = o.bor(o.isnan(x), o.feq(abs(x), o.f(kInf)));
    D xd = o.f2d(o.sel(bad, o.f(0.0), x));
    D t = o.mul(xd, o.d(kTwoOverPi));
    // Nearest integer by adding and removing 1.5 · 2^52 while |t| < 2^31; beyond, no accuracy claim.
    const B in_range = o.band(o.flt(t, o.d(0x1p31)), o.flt(o.d(-0x1p31), t));
    D kd = o.sel(in_range, round_small_d(t), o.d(0.0));
    D r = o.sub(o.sub(o.sub(xd, o.mul(kd, o.d(kP1))), o.mul(kd, o.d(kP2))), o.mul(kd, o.d(kP3)));
    D z = o.mul(r, r);
    D s = o.add(r, o.mul(o.mul(r, z), horner_d(z, kS)));
    s = o.sel(o.feq(z, o.d(0.0)), r, s);  // sin(±0) = ±0 (r + r z S(z) would give +0)
    D c = o.add(o.d(1.0), o.mul(z, horner_d(z, kC)));
    I q = o.iadd(o.d2i(kd), o.i(cosine ? 1 : 0));
    D y = o.sel(o.ieq(o.iand(q, o.i(1)), o.i(0)), s, c);
    y = o.sel(o.ieq(o.iand(q, o.i(2)), o.i(0)), y, o.sub(o.d(-0.0), y));
    // Past 2^31 quarter turns the reduction is meaningless; keep the value a sine's.
    y = o.sel(o.band(o.fle(y, o.d(1.0)), o.fle(o.d(-1.0), y)), y, o.d(0.0));
    return o.sel(bad, o.sel(o.isnan(x), x, o.f(kNaN)), o.d2f(y));
  }

  /// x^y as 2^(y · log2|x|) with the logarithm and the exponential in double (relative error
  /// below 2^-36 before the one rounding to float, so ≤ 0.5 + 2^-12 ulp), then C99 F.9.4.4's
  /// signs and special cases.
  F pow(F x, F y) {
    // log2 m = 2 atanh(s) / ln 2 with s = (m − 1)/(m + 1), |s| ≤ 0.1716: 2s Σ s^2k / (2k + 1), k ≤ 7 (s^16/17 < 2^-45).
    static constexpr double kAtanh[] = {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15};
    // 2^r for |r| ≤ 1/2: Σ (r ln 2)^n / n!, n ≤ 10 (the rest < 2^-37 relative).
    static constexpr auto kExp2 = [] {
      std::array<double, 11> c{};
      long double t = 1;
      for (std::size_t n = 0; n < c.size(); ++n) c[n] = static_cast<double>(t), t = t * static_cast<long double>(kLn2) / static_cast<long double>(n + 1);
      return c;
    }();
    const F ax = abs(x);
    const B x_zero = o.feq(ax, o.f(0.0));
    const B x_inf = o.feq(ax, o.f(kInf));
    const auto [e, m] = split_exponent(o.sel(o.bor(o.bor(x_zero, x_inf), o.isnan(x)), o.f(1.0), ax));
    D f = o.sub(o.f2d(m), o.d(1.0));
    D s = o.div(f, o.add(o.d(2.0), f));
    D lm = o.mul(o.mul(o.d(2.0), s), horner_d(o.mul(s, s), kAtanh));
    D l = o.add(o.f2d(o.i2f(e)), o.mul(lm, o.d(kLog2e)));
    l = o.sel(x_zero, o.d(-kInf), o.sel(x_inf, o.d(kInf), l));
    // y · log2|x|: NaN for a NaN y or ±inf · 0 (|x| = 1, handled below); beyond ±200 the result is
    // 0 or inf in float, so clamping keeps the exponent small without changing it.
    D t = o.mul(o.f2d(y), l);
    D tc = o.sel(o.flt(t, o.d(-200.0)), o.d(-200.0), o.sel(o.flt(o.d(200.0), t), o.d(200.0), t));
    tc = o.sel(o.fle(t, o.d(kInf)), tc, o.d(0.0));  // NaN → 0
    D kd = round_small_d(tc);
    D p = horner_d(o.sub(tc, kd), kExp2);
    I k = o.d2i(kd);
    I k1 = o.sra(k, 1);
    F mag = o.d2f(o.mul(o.mul(p, o.f2d(pow2(k1))), o.f2d(pow2(o.isub(k, k1)))));
    // y's kind: every float of magnitude ≥ 2^24 (±inf included) is an even integer.
    const F ay = abs(y);
    const B y_small = o.flt(ay, o.f(0x1p24));
    I yi = o.f2i(o.sel(y_small, y, o.f(0.0)));
    const B y_int = o.bor(o.fle(o.f(0x1p24), ay), o.feq(o.i2f(yi), y));
    const B y_odd = o.band(o.band(y_small, y_int), o.ieq(o.iand(yi, o.i(1)), o.i(1)));
    F r = o.from_bits(o.ior(o.bits(mag), o.sel(y_odd, o.iand(o.bits(x), o.i(INT32_MIN)), o.i(0))));
    r = o.sel(o.band(o.band(o.flt(x, o.f(0.0)), o.flt(o.f(-kInf), x)), o.band(o.bnot(y_int), o.bnot(o.isnan(y)))), o.f(kNaN), r);
    r = o.sel(o.isnan(x), x, o.sel(o.isnan(y), y, r));
    return o.sel(o.bor(o.feq(y, o.f(0.0)), o.feq(x, o.f(1.0))), o.f(1.0), r);
  }
  F sin(F x) { return sin_cos(x, false); }
  F cos(F x) { return sin_cos(x, true); }
};

}  // namespace pto::math
