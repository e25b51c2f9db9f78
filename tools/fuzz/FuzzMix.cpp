// Random mix kernels for the differential fuzzer: sample 04 (cube matmul, vector bias + relu
// epilogue) and sample 06 (flash attention), each on chip a2 (through GM workspaces) or a5
// (fused through the cross-core moves Acc -> Vec and Vec -> Mat), over random shapes with tails,
// tile sizes, buffer depths, block_dims and dtypes. The JIT and the interpreter run the same
// kernel (Kernel::with_options) and must agree bit for bit and on the simulated time.
#include <random>

#include <fmt/format.h>

#include <pto/pto.hpp>

#include "04_matmul_bias_relu/matmul_bias_relu.hpp"
#include "06_flash_attention/flash_attention.hpp"
#include "FuzzCube.hpp"

namespace pto::fuzz::detail {
namespace {

struct MixCase {
  bool attention = false;
  std::string chip = "a2";
  DType dtype = DType::f32;
  int64_t m = 1, n = 1, k = 1;  // attention: S = m, D = n
  int64_t t0 = 16, t1 = 32, t2 = 32;  // bias_relu: tm, tn, tk; attention: tq, tkv
  int buffers = 1, block_dim = 1;
  uint64_t data_seed = 1;
  std::string str() const {
    if (attention) {
      return fmt::format("mix case: flash_attention chip {} {} S {} D {} tq {} tkv {} block_dim {} data seed {}", chip, dtype_name(dtype),
                         m, n, t0, t1, block_dim, data_seed);
    }
    return fmt::format("mix case: matmul_bias_relu chip {} {} {}x{}x{} tiles {}x{}x{} buffers {} block_dim {} data seed {}", chip,
                       dtype_name(dtype), m, n, k, t0, t1, t2, buffers, block_dim, data_seed);
  }
};

MixCase random_case(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  static constexpr DType kTypes[] = {DType::f32, DType::f16, DType::bf16};
  MixCase c;
  c.attention = pick(2) == 1;
  c.chip = pick(2) == 1 ? "a5" : "a2";
  c.dtype = kTypes[pick(3)];
  c.block_dim = 1 + pick(3);
  if (c.attention) {
    c.m = 1 + pick(160);
    c.n = 16 << pick(3);  // D: 16, 32, 64
    c.t0 = 16 << pick(3);
    c.t1 = 16 << pick(3);
  } else {
    c.m = 1 + pick(120);
    c.n = 1 + pick(120);
    c.k = 1 + pick(120);
    c.t0 = 16 * (1 + pick(4));
    c.t1 = 32 * (1 + pick(2));
    c.t2 = 32 * (1 + pick(2));
    c.buffers = 1 + pick(2);
  }
  c.data_seed = rng();
  return c;
}

/// The first element where `a` and `b` differ, or "".
template <class T>
std::string first_difference(const Tensor<T>& a, const Tensor<T>& b, int64_t cols) {
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (!(a[i] == b[i])) {
      return fmt::format("element ({}, {}): JIT {} vs interpreter {}", i / cols, i % cols, static_cast<double>(a[i]),
                         static_cast<double>(b[i]));
    }
  }
  return "";
}

template <class Kernel>
Kernel interpreted(const Kernel& k) {
  JitOptions o = k.options();
  o.name += "_interp";
  o.interpret = true;
  return k.with_options(o);
}

std::string time_difference(const LaunchProfile& jit, const LaunchProfile& ref) {
  return jit.device_us == ref.device_us ? "" : fmt::format("simulated time: JIT {} us vs interpreter {} us", jit.device_us, ref.device_us);
}

template <class T>
std::string compare_bias_relu(const MixCase& c) {
  namespace mbr = samples::matmul_bias_relu;
  const samples::matmul::Params p{.tm = c.t0, .tn = c.t1, .tk = c.t2, .buffers = c.buffers, .chip = c.chip};
  const auto jit = mbr::make_kernel<T>(p);
  const auto ref = interpreted(jit);
  const auto a = Tensor<T>::random({c.m, c.k}, c.data_seed, -2.0, 2.0), b = Tensor<T>::random({c.k, c.n}, c.data_seed + 1, -2.0, 2.0);
  const auto bias = Tensor<T>::random({1, c.n}, c.data_seed + 2, -2.0, 2.0);
  auto y_jit = Tensor<T>::zeros({c.m, c.n}), y_ref = Tensor<T>::zeros({c.m, c.n});
  auto ws_jit = Tensor<float>::zeros({c.m, c.n}), ws_ref = Tensor<float>::zeros({c.m, c.n});
  const auto pj = jit[{.block_dim = c.block_dim}].run_sync(a, b, bias, y_jit, ws_jit);
  const auto pr = ref[{.block_dim = c.block_dim}].run_sync(a, b, bias, y_ref, ws_ref);
  if (auto d = first_difference(y_jit, y_ref, c.n); !d.empty()) return d;
  if (!pj.races.empty()) return "race on the JIT: " + pj.races.front().message();
  return time_difference(pj, pr);
}

template <class T>
std::string compare_attention(const MixCase& c) {
  namespace fa = samples::flash_attention;
  const fa::Params p{.tq = c.t0, .tkv = c.t1, .chip = c.chip};
  const auto jit = fa::make_kernel<T>(p);
  const auto ref = interpreted(jit);
  const int64_t S = c.m, D = c.n;
  const auto q = Tensor<T>::random({S, D}, c.data_seed), k = Tensor<T>::random({S, D}, c.data_seed + 1);
  const auto v = Tensor<T>::random({S, D}, c.data_seed + 2);
  auto o_jit = Tensor<T>::zeros({S, D}), o_ref = Tensor<T>::zeros({S, D});
  fa::Workspace<T> ws_jit(c.block_dim, p, D), ws_ref(c.block_dim, p, D);
  const auto pj = jit[{.block_dim = c.block_dim}].run_sync(q, k, v, o_jit, ws_jit.scores, ws_jit.probs, ws_jit.values);
  const auto pr = ref[{.block_dim = c.block_dim}].run_sync(q, k, v, o_ref, ws_ref.scores, ws_ref.probs, ws_ref.values);
  if (auto d = first_difference(o_jit, o_ref, D); !d.empty()) return d;
  if (!pj.races.empty()) return "race on the JIT: " + pj.races.front().message();
  return time_difference(pj, pr);
}

}  // namespace

std::string run_mix_case(uint64_t seed, std::string* description) {
  const MixCase c = random_case(seed);
  if (description) *description = c.str();
  try {
    return samples::dispatch_float_dtype(c.dtype, [&]<class T>() { return c.attention ? compare_attention<T>(c) : compare_bias_relu<T>(c); });
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

}  // namespace pto::fuzz::detail
