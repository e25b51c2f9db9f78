// The reference interpreter's tile expressions, evaluated: element conversions and element-wise
// operations exactly as docs/semantics.md defines them (the LLVM code generator conforms to this
// file, not the other way round), one row at a time into per-node buffers (compiled by
// InterpretCompile.cpp).
//
// Row-at-a-time evaluation gives the results of the generated element-by-element loop: within
// an instruction, the only tile that is both written and read is the destination, and every
// element reads its own position of it (a row- or column-broadcast operand that is also the
// destination forces a one-column or one-row extent through result_over_tile).
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "CastRounding.hpp"
#include "InterpreterImpl.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/backend/Math.hpp"
#include "pto/ir/FloatSemantics.hpp"
#include "pto/ir/IntSemantics.hpp"
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


float flip_sign(float f) { return std::bit_cast<float>(std::bit_cast<uint32_t>(f) ^ 0x80000000u); }
float clear_sign(float f) { return std::bit_cast<float>(std::bit_cast<uint32_t>(f) & 0x7fffffffu); }

using ir::max_number;
using ir::min_number;

int32_t int_unary(ir::UnaryOp op, int32_t a) {
  switch (op) {
    case ir::UnaryOp::Neg: return static_cast<int32_t>(0u - static_cast<uint32_t>(a));
    case ir::UnaryOp::Abs: return a == std::numeric_limits<int32_t>::min() ? a : (a < 0 ? -a : a);  // llvm.abs(a, false)
    case ir::UnaryOp::Relu: return a > 0 ? a : 0;
    case ir::UnaryOp::Not: return ~a;
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

Val store_value(const uint8_t* p, DType from, DType to, bool relu, const float* scale) {
  Val v = widen(p, from);
  if (relu) {
    if (compute_cls(from) == Cls::F) {
      v.f = v.f > 0 ? v.f : 0.0f;
    } else {
      v.i = v.i > 0 ? v.i : 0;
    }
  }
  if (!scale) return convert(v, from, to);
  Val f{};
  f.f = (compute_cls(from) == Cls::F ? v.f : static_cast<float>(v.i)) * *scale;
  return convert(f, DType::f32, to);
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
    r.f = static_cast<float>(v.i);  // a boolean is 0 or 1
    return convert(r, DType::f32, to);
  }
  if (to == DType::i8) {
    r.i = v.i > 127 ? 127 : (v.i < -128 ? -128 : v.i);
    return r;
  }
  return v;
}

Val convert_mode(Val v, DType from, DType to, ir::RoundMode mode) {
  using ir::RoundMode;
  namespace rd = rounding;
  if (mode == RoundMode::Default || from == DType::boolean) return convert(v, from, to);
  const bool ffrom = is_floating(from), fto = is_floating(to);
  if (ffrom && std::isnan(v.f)) return convert(v, from, to);  // NaN: as the generated code's nearest-even step keeps it
  Val r{};
  if (ffrom && fto) {
    if (from == to) {  // within one dtype: to an integral value (CAST_NONE and CAST_ODD as CAST_RINT)
      r.f = mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_ODD ? std::nearbyint(v.f) : rd::round_to_integral(v.f, mode);
      return r;
    }
    if (to == DType::f32) return v;  // widening is exact
    const bool odd = mode == RoundMode::CAST_ODD && from == DType::f32 && to == DType::f16;
    const RoundMode m = mode == RoundMode::CAST_NONE || (mode == RoundMode::CAST_ODD && !odd) ? RoundMode::CAST_RINT : mode;
    r.f = to == DType::f16 ? rd::F16::widen(rd::narrow<rd::F16>(v.f, m)) : rd::BF16::widen(rd::narrow<rd::BF16>(v.f, m));
    return r;
  }
  if (ffrom) {
    r.f = rd::round_to_integral(v.f, mode);
    return convert(r, DType::f32, to);
  }
  if (fto) {  // from i32 (exact in double); into 16 bits through f32 rounded to odd (no double rounding)
    const RoundMode m = mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_ODD ? RoundMode::CAST_RINT : mode;
    const auto w = static_cast<double>(v.i);
    if (to == DType::f32) {
      r.f = std::bit_cast<float>(rd::narrow<rd::F32>(w, m));
      return r;
    }
    const bool directed = m == RoundMode::CAST_FLOOR || m == RoundMode::CAST_CEIL || m == RoundMode::CAST_TRUNC;
    const float f = std::bit_cast<float>(rd::narrow<rd::F32>(w, directed ? m : RoundMode::CAST_ODD));
    r.f = to == DType::f16 ? rd::F16::widen(rd::narrow<rd::F16>(f, m)) : rd::BF16::widen(rd::narrow<rd::BF16>(f, m));
    return r;
  }
  return convert(v, from, to);  // integer -> integer: no rounding
}

void fill_scalars(const CompiledExpr& x, const Frame& f, Val* scratch, int64_t n) {
  for (size_t i = 0; i < x.nodes.size(); ++i) {
    const XNode& nd = x.nodes[i];
    Val v{};
    if (nd.kind == XNode::Kind::Const) {
      v = nd.value;
    } else if (nd.kind == XNode::Kind::Scalar) {
      const int64_t s = eval_scalar(nd.scalar, f);
      if (nd.scalar_float) v.f = std::bit_cast<float>(static_cast<uint32_t>(s));
      else if (nd.cls == Cls::F) v.f = static_cast<float>(s);  // a boolean scalar is 0 or 1
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
            case ir::BinaryOp::Pow: for (int64_t c = 0; c < n; ++c) o[c].f = math::pow(a[c].f, b[c].f); break;
            case ir::BinaryOp::Max: for (int64_t c = 0; c < n; ++c) o[c].f = max_number(a[c].f, b[c].f); break;
            case ir::BinaryOp::Min: for (int64_t c = 0; c < n; ++c) o[c].f = min_number(a[c].f, b[c].f); break;
            case ir::BinaryOp::LT: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f < b[c].f; break;
            case ir::BinaryOp::LE: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f <= b[c].f; break;
            case ir::BinaryOp::GT: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f > b[c].f; break;
            case ir::BinaryOp::GE: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f >= b[c].f; break;
            case ir::BinaryOp::EQ: for (int64_t c = 0; c < n; ++c) o[c].i = a[c].f == b[c].f; break;  // oeq
            case ir::BinaryOp::NE: for (int64_t c = 0; c < n; ++c) o[c].i = !(a[c].f == b[c].f); break;  // une
            default: PTO_INTERNAL_CHECK(false) << "unsupported tile operator " << ir::binary_op_name(nd.bop);
          }
        } else {  // integers; booleans are the integers 0 and 1
          for (int64_t c = 0; c < n; ++c) o[c].i = ir::int_binary<int32_t>(nd.bop, a[c].i, b[c].i);
        }
        break;
      }
      case XNode::Kind::Unary: {
        const Val* a = buf(nd.a);
        if (nd.cls == Cls::F) {
          switch (nd.uop) {
            case ir::UnaryOp::Neg: for (int64_t c = 0; c < n; ++c) o[c].f = flip_sign(a[c].f); break;
            case ir::UnaryOp::Abs: for (int64_t c = 0; c < n; ++c) o[c].f = clear_sign(a[c].f); break;
            case ir::UnaryOp::Relu: for (int64_t c = 0; c < n; ++c) o[c].f = a[c].f > 0.0f ? a[c].f : 0.0f; break;  // NaN, -0 -> +0
            case ir::UnaryOp::Exp: for (int64_t c = 0; c < n; ++c) o[c].f = math::exp(a[c].f); break;
            case ir::UnaryOp::Log: for (int64_t c = 0; c < n; ++c) o[c].f = math::log(a[c].f); break;
            case ir::UnaryOp::Sqrt: for (int64_t c = 0; c < n; ++c) o[c].f = std::sqrt(a[c].f); break;
            case ir::UnaryOp::Rsqrt: for (int64_t c = 0; c < n; ++c) o[c].f = 1.0f / std::sqrt(a[c].f); break;
            case ir::UnaryOp::Tanh: for (int64_t c = 0; c < n; ++c) o[c].f = math::tanh(a[c].f); break;
            case ir::UnaryOp::Sigmoid: for (int64_t c = 0; c < n; ++c) o[c].f = math::sigmoid(a[c].f); break;
            case ir::UnaryOp::Erf: for (int64_t c = 0; c < n; ++c) o[c].f = math::erf(a[c].f); break;
            case ir::UnaryOp::Sin: for (int64_t c = 0; c < n; ++c) o[c].f = math::sin(a[c].f); break;
            case ir::UnaryOp::Cos: for (int64_t c = 0; c < n; ++c) o[c].f = math::cos(a[c].f); break;
            case ir::UnaryOp::Not: PTO_INTERNAL_CHECK(false) << "bitwise not of a floating-point tile"; break;
          }
        } else {
          PTO_INTERNAL_CHECK(nd.cls == Cls::I) << "an arithmetic operator on a condition";
          for (int64_t c = 0; c < n; ++c) o[c].i = int_unary(nd.uop, a[c].i);
        }
        break;
      }
      case XNode::Kind::Cast: {
        const Val* a = buf(nd.a);
        if (nd.mode == ir::RoundMode::Default) {
          for (int64_t c = 0; c < n; ++c) o[c] = convert(a[c], nd.from, nd.to);
        } else {
          for (int64_t c = 0; c < n; ++c) o[c] = convert_mode(a[c], nd.from, nd.to, nd.mode);
        }
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
    case ir::ReduceOp::ArgMax:
    case ir::ReduceOp::ArgMin: PTO_INTERNAL_CHECK(false) << "arg reductions keep an index (Interpreter::arg_reduce)"; break;
  }
  return v;
}

float float_row_sum(const Val* v, int64_t cols) {
  float lane[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t c = 0; c < cols; ++c) lane[c % 8] += v[c].f;
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

Val reduce_step(Cls cls, ir::ReduceOp op, Val acc, Val v) {
  Val r{};
  if (cls == Cls::F) {  // Sum: in column order (float row sums go through float_row_sum instead)
    switch (op) {
      case ir::ReduceOp::Sum: r.f = acc.f + v.f; break;
      case ir::ReduceOp::Max: r.f = max_number(acc.f, v.f); break;
      case ir::ReduceOp::Min: r.f = min_number(acc.f, v.f); break;
      case ir::ReduceOp::ArgMax:
      case ir::ReduceOp::ArgMin: PTO_INTERNAL_CHECK(false) << "arg reductions keep an index (Interpreter::arg_reduce)"; break;
    }
  } else {
    const ir::BinaryOp bop = op == ir::ReduceOp::Sum ? ir::BinaryOp::Add : op == ir::ReduceOp::Max ? ir::BinaryOp::Max : ir::BinaryOp::Min;
    r.i = ir::int_binary<int32_t>(bop, acc.i, v.i);
  }
  return r;
}

}  // namespace pto::backend::interp
