// The reference interpreter's tile expressions, evaluated: element conversions and the
// element-wise operations of CodeGenLLVM.cpp (element, binary, unary, convert, broadcast_scalar),
// one row at a time into per-node buffers (compiled by InterpretCompile.cpp).
//
// Row-at-a-time evaluation gives the results of the generated element-by-element loop: within
// an instruction, the only tile that is both written and read is the destination, and every
// element reads its own position of it (a row- or column-broadcast operand that is also the
// destination forces a one-column or one-row extent through result_over_tile).
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "InterpreterImpl.hpp"
#include "pto/support/Error.hpp"

namespace pto::backend::interp {
namespace {

/// float -> IEEE half bits as LLVM's fptrunc does on x86 (F16C vcvtps2ph, or compiler-rt's
/// __truncsfhf2): round to nearest even; a NaN keeps its sign and top payload bits, made quiet.
uint16_t f32_to_f16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7e00u | ((x >> 13) & 0x3ffu));
  return pto::detail::float_to_half_bits(f);
}

/// half bits -> float as fpext does on x86 (vcvtph2ps): exact; a signalling NaN becomes quiet.
float f16_to_f32(uint16_t h) {
  if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) {
    const uint32_t bits = (static_cast<uint32_t>(h & 0x8000u) << 16) | 0x7fc00000u | (static_cast<uint32_t>(h & 0x3ffu) << 13);
    return std::bit_cast<float>(bits);
  }
  return pto::detail::half_bits_to_float(h);
}

/// CodeGen::float_to_bf16_bits (the same as pto::bfloat16's conversion).
uint16_t f32_to_bf16(float f) { return pto::detail::float_to_bfloat16_bits(f); }
float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

/// llvm.fptosi.sat: NaN -> 0, out of range -> the nearest bound, else truncation toward zero.
int32_t fptosi_sat(float f, int32_t lo, int32_t hi) {
  if (std::isnan(f)) return 0;
  if (f >= static_cast<float>(hi)) return hi;  // i32: 2^31 (hi rounds up), i8: 127
  if (f <= static_cast<float>(lo)) return lo;
  return static_cast<int32_t>(f);
}

int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

float flip_sign(float f) { return std::bit_cast<float>(std::bit_cast<uint32_t>(f) ^ 0x80000000u); }
float clear_sign(float f) { return std::bit_cast<float>(std::bit_cast<uint32_t>(f) & 0x7fffffffu); }

/// llvm.maxnum / llvm.minnum as X86 lowers them (combineFMinNumFMaxNum): with an operand known
/// never NaN, one maxss/minss with that operand second (returned on ties and NaN); otherwise
/// maxss(op1, op0) and op1 when op0 is NaN.
float fmax_known(float x, float known) { return x > known ? x : known; }
float fmin_known(float x, float known) { return x < known ? x : known; }
float fmax_generic(float op0, float op1) { return std::isnan(op0) ? op1 : (op1 > op0 ? op1 : op0); }
float fmin_generic(float op0, float op1) { return std::isnan(op0) ? op1 : (op1 < op0 ? op1 : op0); }

/// The host libm's fmaxf/fminf, which the generated code calls for a half maxnum/minnum (called
/// through pointers: the compiler must not expand them with its own choice for ties).
float (*volatile libm_fmaxf)(float, float) = ::fmaxf;
float (*volatile libm_fminf)(float, float) = ::fminf;

/// A float Max/Min node as finalize_minmax decided LLVM computes it.
void eval_minmax(const XNode& nd, const Val* x, const Val* y, const Val* known, Val* o, int64_t n) {
  switch (nd.mm) {
    case XNode::MinMax::Fabs:
      for (int64_t c = 0; c < n; ++c) o[c].f = clear_sign(x[c].f);
      break;
    case XNode::MinMax::Libm:  // the libm call a half maxnum/minnum becomes (with the same NaN and zero rules)
      for (int64_t c = 0; c < n; ++c) o[c].f = nd.mm_max ? libm_fmaxf(x[c].f, y[c].f) : libm_fminf(x[c].f, y[c].f);
      break;
    case XNode::MinMax::X86:
      if (known) {
        const Val* other = known == y ? x : y;
        for (int64_t c = 0; c < n; ++c) o[c].f = nd.mm_max ? fmax_known(other[c].f, known[c].f) : fmin_known(other[c].f, known[c].f);
      } else {
        for (int64_t c = 0; c < n; ++c) o[c].f = nd.mm_max ? fmax_generic(x[c].f, y[c].f) : fmin_generic(x[c].f, y[c].f);
      }
      break;
  }
  if (nd.mm_negate) {
    for (int64_t c = 0; c < n; ++c) o[c].f = flip_sign(o[c].f);
  }
}

/// An i1 as the signed value LLVM's integer instructions see (true is -1).
int32_t sext_bool(int32_t v) { return -(v & 1); }


int32_t int_unary(ir::UnaryOp op, int32_t a) {
  switch (op) {
    case ir::UnaryOp::Neg: return static_cast<int32_t>(0u - static_cast<uint32_t>(a));
    case ir::UnaryOp::Abs: return a == std::numeric_limits<int32_t>::min() ? a : (a < 0 ? -a : a);  // llvm.abs(a, false)
    case ir::UnaryOp::Relu: return a > 0 ? a : 0;
    default: break;
  }
  PTO_INTERNAL_CHECK(false) << "unsupported integer tile operator " << ir::unary_op_name(op);
  return 0;
}

}  // namespace

Cls compute_cls(DType t) { return is_floating(t) ? Cls::F : (t == DType::boolean ? Cls::B : Cls::I); }

Val widen(const uint8_t* p, DType t) {
  Val v{};
  switch (t) {
    case DType::f32: std::memcpy(&v.f, p, 4); return v;
    case DType::i32: std::memcpy(&v.i, p, 4); return v;
    case DType::f16: { uint16_t h; std::memcpy(&h, p, 2); v.f = f16_to_f32(h); return v; }
    case DType::bf16: { uint16_t h; std::memcpy(&h, p, 2); v.f = bf16_to_f32(h); return v; }
    case DType::i8: v.i = static_cast<int8_t>(*p); return v;
    default: break;
  }
  PTO_INTERNAL_CHECK(false) << "tile element of unsupported dtype " << dtype_name(t);
  return v;
}

void narrow(Val v, DType t, uint8_t* p) {
  switch (t) {
    case DType::f32: std::memcpy(p, &v.f, 4); return;
    case DType::i32: std::memcpy(p, &v.i, 4); return;
    case DType::f16: { const uint16_t h = f32_to_f16(v.f); std::memcpy(p, &h, 2); return; }
    case DType::bf16: { const uint16_t h = f32_to_bf16(v.f); std::memcpy(p, &h, 2); return; }
    case DType::i8: *p = static_cast<uint8_t>(v.i); return;
    default: break;
  }
  PTO_INTERNAL_CHECK(false) << "tile element of unsupported dtype " << dtype_name(t);
}

Val store_value(const uint8_t* p, DType from, DType to, bool relu) {
  Val v = widen(p, from);
  if (relu) {
    if (compute_cls(from) == Cls::F) {
      v.f = v.f > 0 ? v.f : 0.0f;
    } else {
      v.i = v.i > 0 ? v.i : 0;
    }
  }
  return convert(v, from, to);
}

Val convert(Val v, DType from, DType to) {
  if (from == to) return v;
  const bool ffrom = is_floating(from), fto = is_floating(to);
  Val r{};
  if (ffrom && fto) {
    if (to == DType::f16) r.f = f16_to_f32(f32_to_f16(v.f));
    else if (to == DType::bf16) r.f = bf16_to_f32(f32_to_bf16(v.f));
    else r.f = v.f;
    return r;
  }
  if (ffrom) {
    r.i = to == DType::i8 ? fptosi_sat(v.f, -128, 127) : fptosi_sat(v.f, std::numeric_limits<int32_t>::min(),
                                                                       std::numeric_limits<int32_t>::max());
    return r;
  }
  if (fto) {
    r.f = from == DType::boolean ? (v.i != 0 ? -1.0f : 0.0f) : static_cast<float>(v.i);  // sitofp
    return convert(r, DType::f32, to);
  }
  if (to == DType::i8) {
    r.i = v.i > 127 ? 127 : (v.i < -128 ? -128 : v.i);
    return r;
  }
  return v;
}

void fill_scalars(const CompiledExpr& x, const Frame& f, Val* scratch, int64_t n) {
  for (size_t i = 0; i < x.nodes.size(); ++i) {
    const XNode& nd = x.nodes[i];
    Val v{};
    if (nd.kind == XNode::Kind::Const) {
      v = nd.value;
    } else if (nd.kind == XNode::Kind::Scalar) {
      const int64_t s = eval_scalar(nd.scalar, f);
      if (nd.cls == Cls::F) v.f = nd.scalar_bool ? (s != 0 ? -1.0f : 0.0f) : static_cast<float>(s);
      else if (nd.cls == Cls::I) v.i = wrap32(s);
      else v.i = static_cast<int32_t>(s & 1);
    } else {
      continue;
    }
    Val* out = scratch + static_cast<int64_t>(i) * n;
    for (int64_t c = 0; c < n; ++c) out[c] = v;
  }
}

const Val* eval_row(const CompiledExpr& x, const Frame& f, Val* scratch, int64_t n) {
  auto buf = [&](int i) { return scratch + static_cast<int64_t>(i) * n; };
  for (size_t i = 0; i < x.nodes.size(); ++i) {
    const XNode& nd = x.nodes[i];
    Val* o = buf(static_cast<int>(i));
    switch (nd.kind) {
      case XNode::Kind::Const:
      case XNode::Kind::Scalar:
        break;
      case XNode::Kind::Leaf: {
        const uint8_t* p = f.leaf_row[static_cast<size_t>(nd.leaf)];
        if (x.leaves[static_cast<size_t>(nd.leaf)].read->row_broadcast) {
          const Val v = widen(p, nd.from);
          for (int64_t c = 0; c < n; ++c) o[c] = v;
        } else {
          const int64_t es = static_cast<int64_t>(dtype_size(nd.from));
          for (int64_t c = 0; c < n; ++c) o[c] = widen(p + c * es, nd.from);
        }
        break;
      }
      case XNode::Kind::Binary: {
        const Val* a = buf(nd.a);
        const Val* b = buf(nd.b);
        const Cls ct = x.nodes[static_cast<size_t>(nd.a)].cls;
        if (ct == Cls::F) {
          switch (nd.bop) {
            case ir::BinaryOp::Add: for (int64_t c = 0; c < n; ++c) o[c].f = a[c].f + b[c].f; break;
            case ir::BinaryOp::Sub: for (int64_t c = 0; c < n; ++c) o[c].f = a[c].f - b[c].f; break;
            case ir::BinaryOp::Mul: for (int64_t c = 0; c < n; ++c) o[c].f = a[c].f * b[c].f; break;
            case ir::BinaryOp::Div: for (int64_t c = 0; c < n; ++c) o[c].f = a[c].f / b[c].f; break;
            case ir::BinaryOp::Max:
            case ir::BinaryOp::Min:
              eval_minmax(nd, buf(nd.mm_x), nd.mm_y >= 0 ? buf(nd.mm_y) : nullptr, nd.known >= 0 ? buf(nd.known) : nullptr, o, n);
              break;
            case ir::BinaryOp::LT: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f < b[c].f; break;
            case ir::BinaryOp::LE: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f <= b[c].f; break;
            case ir::BinaryOp::GT: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f > b[c].f; break;
            case ir::BinaryOp::GE: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f >= b[c].f; break;
            case ir::BinaryOp::EQ: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f == b[c].f; break;  // oeq
            case ir::BinaryOp::NE: for (int64_t c = 0; c < n; ++c) o[c].i = !(a[c].f == b[c].f); break;  // une
            default: PTO_INTERNAL_CHECK(false) << "unsupported tile operator " << ir::binary_op_name(nd.bop);
          }
        } else if (ct == Cls::I) {
          for (int64_t c = 0; c < n; ++c) o[c].i = wrapping_binary<int32_t>(nd.bop, a[c].i, b[c].i);
        } else {  // i1 operands: LLVM's integer instructions on 1-bit values
          const bool cmp = ir::is_comparison(nd.bop);
          for (int64_t c = 0; c < n; ++c) {
            const int32_t r = wrapping_binary<int32_t>(nd.bop, sext_bool(a[c].i), sext_bool(b[c].i));
            o[c].i = cmp ? r : (r & 1);
          }
        }
        break;
      }
      case XNode::Kind::Unary: {
        const Val* a = buf(nd.a);
        if (nd.cls == Cls::F) {
          switch (nd.uop) {
            case ir::UnaryOp::Neg: for (int64_t c = 0; c < n; ++c) o[c].f = flip_sign(a[c].f); break;
            case ir::UnaryOp::Abs: for (int64_t c = 0; c < n; ++c) o[c].f = clear_sign(a[c].f); break;
            case ir::UnaryOp::Relu: for (int64_t c = 0; c < n; ++c) o[c].f = fmax_known(a[c].f, 0.0f); break;
            case ir::UnaryOp::Exp: for (int64_t c = 0; c < n; ++c) o[c].f = std::exp(a[c].f); break;
            case ir::UnaryOp::Log: for (int64_t c = 0; c < n; ++c) o[c].f = std::log(a[c].f); break;
            case ir::UnaryOp::Sqrt: for (int64_t c = 0; c < n; ++c) o[c].f = std::sqrt(a[c].f); break;
            case ir::UnaryOp::Rsqrt: for (int64_t c = 0; c < n; ++c) o[c].f = 1.0f / std::sqrt(a[c].f); break;
          }
        } else if (nd.cls == Cls::I) {
          for (int64_t c = 0; c < n; ++c) o[c].i = int_unary(nd.uop, a[c].i);
        } else {
          for (int64_t c = 0; c < n; ++c) o[c].i = int_unary(nd.uop, sext_bool(a[c].i)) & 1;
        }
        break;
      }
      case XNode::Kind::Cast: {
        const Val* a = buf(nd.a);
        for (int64_t c = 0; c < n; ++c) o[c] = convert(a[c], nd.from, nd.to);
        break;
      }
      case XNode::Kind::Select: {
        const Val* cond = buf(nd.c);
        const Val* a = buf(nd.a);
        const Val* b = buf(nd.b);
        for (int64_t c = 0; c < n; ++c) o[c] = (cond[c].i & 1) ? a[c] : b[c];
        break;
      }
    }
  }
  return buf(static_cast<int>(x.nodes.size()) - 1);
}

Val reduce_init(Cls cls, ir::ReduceOp op) {
  PTO_INTERNAL_CHECK(cls != Cls::B) << "a row reduction of a condition";
  Val v{};
  const bool fp = cls == Cls::F;
  switch (op) {
    case ir::ReduceOp::Sum: if (fp) v.f = 0.0f; else v.i = 0; break;
    case ir::ReduceOp::Max: if (fp) v.f = -std::numeric_limits<float>::infinity(); else v.i = std::numeric_limits<int32_t>::min(); break;
    case ir::ReduceOp::Min: if (fp) v.f = std::numeric_limits<float>::infinity(); else v.i = std::numeric_limits<int32_t>::max(); break;
  }
  return v;
}

float float_row_sum(const Val* v, int64_t cols) {
  float lane[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t c = 0; c < cols; ++c) lane[c % 8] += v[c].f;
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

Val reduce_step(const CompiledExpr& x, ir::ReduceOp op, Val acc, Val v) {
  Val r{};
  if (x.cls == Cls::F) {
    // Sum: sequential, in column order (float row sums go through float_row_sum instead).
    // Max/Min: maxnum(acc, v); the accumulator is a loop phi, never known to be non-NaN.
    const bool v_known = x.nodes.back().never_nan;
    switch (op) {
      case ir::ReduceOp::Sum: r.f = acc.f + v.f; break;
      case ir::ReduceOp::Max: r.f = v_known ? fmax_known(acc.f, v.f) : fmax_generic(acc.f, v.f); break;
      case ir::ReduceOp::Min: r.f = v_known ? fmin_known(acc.f, v.f) : fmin_generic(acc.f, v.f); break;
    }
  } else {
    switch (op) {
      case ir::ReduceOp::Sum: r.i = static_cast<int32_t>(static_cast<uint32_t>(acc.i) + static_cast<uint32_t>(v.i)); break;
      case ir::ReduceOp::Max: r.i = acc.i > v.i ? acc.i : v.i; break;
      case ir::ReduceOp::Min: r.i = acc.i < v.i ? acc.i : v.i; break;
    }
  }
  return r;
}

}  // namespace pto::backend::interp
