// Random cube kernels for the differential fuzzer: sample 03's matmul over random M, N, K with
// tails, K steps accumulating in Acc, transposed B (moved transposed, or read through a column-major
// view into ZN L1 tiles), L1/L0 group depths and block_dims, per dtype,
// and FIX's store options on the way out (relu, a scale, the conversion to half); one case in four
// is instead a matmul with a bias row over output tiles strided across the blocks.
#include "FuzzCube.hpp"

#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include <pto/pto.hpp>

#include "03_matmul/matmul.hpp"

namespace pto::fuzz::detail {
namespace {

namespace pl = pto::lang;

struct CubeCase {
  DType dtype = DType::f32;
  int64_t m = 1, n = 1, k = 1, tm = 16, tn = 32, tk = 32;
  int l1_depth = 1, l0_depth = 1, block_dim = 1;
  bool transpose_b = false;
  uint64_t data_seed = 1;
  int64_t k0 = 0;  // K slice extracted from the L1 panels into L0 (pl::extract); 0: whole K steps
  int fix = 0;      // the store out of Acc: 0 plain, 1 with relu and `scale`, 2 into half with `scale`
  float scale = 1;
  bool bias = false;  // pl::matmul(acc, left, right, bias) with whole K, instead of sample 03
  bool b_column_view = false;  // transposed B read through its column-major view into ZN L1 tiles
  std::string str() const {
    return fmt::format("cube case: {} {}x{}x{} tiles {}x{}x{} L1 depth {} L0 depth {} block_dim {} transpose_b {} k0 {} fix {} scale {} "
                       "data seed {}",
                       dtype_name(dtype), m, n, k, tm, tn, tk, l1_depth, l0_depth, block_dim, transpose_b, k0, fix, scale, data_seed) +
           (bias ? " bias" : "") + (b_column_view ? " b_column_view" : "");
  }
};

CubeCase random_case(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  static constexpr DType kTypes[] = {DType::f32, DType::f16, DType::bf16, DType::i8};
  CubeCase c;
  c.dtype = kTypes[pick(4)];
  c.m = 1 + pick(150);
  c.n = 1 + pick(150);
  c.k = 1 + pick(150);
  c.tm = 16 * (1 + pick(4));
  c.tn = 32 * (1 + pick(2));  // row pitch of a {tk, tn} Mat tile: a multiple of 32 B for every dtype
  c.tk = 32 * (1 + pick(2));
  c.l1_depth = 1 + pick(2);
  c.l0_depth = 1 + pick(2);
  c.block_dim = 1 + pick(4);
  c.transpose_b = pick(2) == 1;
  c.data_seed = rng();
  c.k0 = pick(2) == 0 ? 16 : 0;
  c.fix = pick(3);
  c.scale = static_cast<float>(pick(17) - 8) / 8.0f;  // -1 .. 1 in eighths (0 and negatives included)
  c.bias = pick(4) == 0;
  if (c.bias) c.transpose_b = false;
  if (c.transpose_b && pick(2) == 0) {  // the same B through the other layout path
    c.transpose_b = false;
    c.b_column_view = true;
  }
  return c;
}

/// The case's store out of Acc.
pl::StoreOptions fix_options(const CubeCase& c) {
  pl::StoreOptions fix;
  if (c.fix > 0) fix.scale = c.scale;
  if (c.fix == 1) fix.relu_pre_mode = pl::ReluPreMode::NormalRelu;
  return fix;
}

template <class T, class Out>
auto make_kernel(const CubeCase& c, bool interpret) {
  const samples::matmul::Params p{.tm = c.tm, .tn = c.tn, .tk = c.tk, .buffers = c.l1_depth, .transpose_b = c.transpose_b,
                                  .l0_buffers = c.l0_depth, .k0 = c.k0,
                                  .b_column_view = c.b_column_view};
  const pl::StoreOptions fix = fix_options(c);
  return pl::jit({.name = interpret ? "fuzz_cube_interp" : "fuzz_cube_jit", .auto_mutex = true, .interpret = interpret},
                 [p, fix](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<Out> out) {
    samples::matmul::matmul_tiles<T>(a, b, p, pl::get_block_idx(), pl::get_block_num(),
                                     [&](const auto& acc, const pl::Int& m0, const pl::Int& mlen, const pl::Int& n0, const pl::Int& nlen) {
                                       pl::store(out.slice(m0, mlen, n0, nlen), acc, fix);
                                     });
  });
}

/// acc = bias + A x B per output tile (whole K: one Mat panel each), tiles strided over the blocks.
template <class T, class Out>
auto make_bias_kernel(const CubeCase& c, bool interpret, const pl::StoreOptions& fix) {
  using Acc = pl::accumulator_t<T>;
  return pl::jit({.name = interpret ? "fuzz_bias_interp" : "fuzz_bias_jit", .auto_mutex = true, .interpret = interpret},
                 [c, fix](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<Acc> bias, pl::Tensor<Out> out) {
    const int64_t kp = (c.k + 31) / 32 * 32, mt = (c.m + c.tm - 1) / c.tm, nt = (c.n + c.tn - 1) / c.tn;
    auto am = pl::make_tile<T>(pl::Mat, {c.tm, kp});
    auto bm = pl::make_tile<T>(pl::Mat, {kp, c.tn});
    auto biasm = pl::make_tile<Acc>(pl::Mat, {1, c.tn});
    auto l = pl::make_tile<T>(pl::Left, {c.tm, kp});
    auto r = pl::make_tile<T>(pl::Right, {kp, c.tn});
    auto acc = pl::make_tile<Acc>(pl::Acc, {c.tm, c.tn});
    for (auto t : pl::range(pl::get_block_idx(), mt * nt, pl::get_block_num())) {
      auto m0 = t / nt * c.tm, n0 = t % nt * c.tn;
      auto mlen = pl::min(c.tm, c.m - m0), nlen = pl::min(c.tn, c.n - n0);
      pl::load(am, a.slice(m0, mlen, 0, c.k));
      pl::load(bm, b.slice(0, c.k, n0, nlen));
      pl::load(biasm, bias.slice(0, 1, n0, nlen));
      pl::move(l, am);
      pl::move(r, bm);
      pl::matmul(acc, l, r, biasm);
      pl::store(out.slice(m0, mlen, n0, nlen), acc, fix);
    }
  });
}

template <class T, class Out>
std::string compare_into(const CubeCase& c) {
  const auto a = Tensor<T>::random({c.m, c.k}, c.data_seed, -3.0, 3.0);
  const auto b = c.transpose_b || c.b_column_view ? Tensor<T>::random({c.n, c.k}, c.data_seed + 1, -3.0, 3.0)
                               : Tensor<T>::random({c.k, c.n}, c.data_seed + 1, -3.0, 3.0);
  auto jit_out = Tensor<Out>::zeros({c.m, c.n}), ref_out = Tensor<Out>::zeros({c.m, c.n});
  LaunchProfile pj, pr;
  if (c.bias) {
    const pl::StoreOptions fix = fix_options(c);
    const auto bias = Tensor<pl::accumulator_t<T>>::random({1, c.n}, c.data_seed + 2, -20.0, 20.0);
    pj = make_bias_kernel<T, Out>(c, false, fix)[{.block_dim = c.block_dim}].run_sync(a, b, bias, jit_out);
    pr = make_bias_kernel<T, Out>(c, true, fix)[{.block_dim = c.block_dim}].run_sync(a, b, bias, ref_out);
  } else {
    pj = make_kernel<T, Out>(c, false)[{.block_dim = c.block_dim}].run_sync(a, b, jit_out);
    pr = make_kernel<T, Out>(c, true)[{.block_dim = c.block_dim}].run_sync(a, b, ref_out);
  }
  for (int64_t i = 0; i < jit_out.numel(); ++i) {
    // Bit for bit (the sign of a zero included), except that any NaN equals any NaN.
    const double j = static_cast<double>(static_cast<float>(jit_out[i])), r = static_cast<double>(static_cast<float>(ref_out[i]));
    if (!(std::isnan(j) && std::isnan(r)) && std::memcmp(&jit_out[i], &ref_out[i], sizeof(Out)) != 0) {
      return fmt::format("element ({}, {}): JIT {} vs interpreter {}", i / c.n, i % c.n, j, r);
    }
  }
  if (pj.device_us != pr.device_us) return fmt::format("simulated time: JIT {} us vs interpreter {} us", pj.device_us, pr.device_us);
  return "";
}

template <class T>
std::string compare(const CubeCase& c) {
  using Acc = pl::accumulator_t<T>;
  return c.fix == 2 ? compare_into<T, half>(c) : compare_into<T, Acc>(c);
}

}  // namespace

std::string run_cube_case(uint64_t seed, std::string* description) {
  const CubeCase c = random_case(seed);
  if (description) *description = c.str();
  try {
    switch (c.dtype) {
      case DType::f32: return compare<float>(c);
      case DType::f16: return compare<half>(c);
      case DType::bf16: return compare<bfloat16>(c);
      default: return compare<int8_t>(c);
    }
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

}  // namespace pto::fuzz::detail
