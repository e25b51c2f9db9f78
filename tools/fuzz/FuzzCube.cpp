// Random cube kernels for the differential fuzzer: matmul over random M, N, K with tails, K steps
// accumulating in Acc, transposed B, L1/L0 group depths and block_dims, per dtype pair.
#include "FuzzCube.hpp"

#include <random>

#include <fmt/format.h>

#include <pto/pto.hpp>

namespace pto::fuzz::detail {
namespace {

namespace pl = pto::lang;

struct CubeCase {
  DType dtype = DType::f32;
  int64_t m = 1, n = 1, k = 1, tm = 16, tn = 32, tk = 32;
  int l1_depth = 1, l0_depth = 1, block_dim = 1;
  bool transpose_b = false;
  uint64_t data_seed = 1;
  std::string str() const {
    return fmt::format("cube case: {} {}x{}x{} tiles {}x{}x{} L1 depth {} L0 depth {} block_dim {} transpose_b {} data seed {}",
                       dtype_name(dtype), m, n, k, tm, tn, tk, l1_depth, l0_depth, block_dim, transpose_b, data_seed);
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
  return c;
}

std::vector<int> slots(int depth) {
  std::vector<int> s(static_cast<size_t>(depth));
  for (int i = 0; i < depth; ++i) s[static_cast<size_t>(i)] = i;
  return s;
}

template <class T>
auto make_kernel(const CubeCase& c, bool interpret) {
  using Acc = pl::accumulator_t<T>;
  return pl::jit({.name = interpret ? "fuzz_cube_interp" : "fuzz_cube_jit", .auto_mutex = true, .interpret = interpret},
                 [c](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<Acc> out) {
    auto a_l1 = pl::make_tile_group<T>(pl::Mat, {c.tm, c.tk}, slots(c.l1_depth));
    auto b_l1 = c.transpose_b ? pl::make_tile_group<T>(pl::Mat, {c.tn, c.tk}, slots(c.l1_depth))
                              : pl::make_tile_group<T>(pl::Mat, {c.tk, c.tn}, slots(c.l1_depth));
    auto a_l0 = pl::make_tile_group<T>(pl::Left, {c.tm, c.tk}, slots(c.l0_depth));
    auto b_l0 = pl::make_tile_group<T>(pl::Right, {c.tk, c.tn}, slots(c.l0_depth));
    auto acc = pl::make_tile_group<Acc>(pl::Acc, {c.tm, c.tn}, {0, 1});
    const int64_t n_tiles = (c.n + c.tn - 1) / c.tn, tiles = (c.m + c.tm - 1) / c.tm * n_tiles;
    const int64_t k_steps = (c.k + c.tk - 1) / c.tk;
    for (auto t : pl::range(pl::get_block_idx(), tiles, pl::get_block_num())) {
      auto m0 = t / n_tiles * c.tm, n0 = t % n_tiles * c.tn;
      auto mlen = pl::min(c.tm, c.m - m0), nlen = pl::min(c.tn, c.n - n0);
      auto step = [&](const pl::Int& k0, bool accumulate) {
        auto klen = pl::min(c.tk, c.k - k0);
        pl::load(a_l1.current(), a.slice(m0, mlen, k0, klen));
        if (c.transpose_b) {
          pl::load(b_l1.current(), b.slice(n0, nlen, k0, klen));  // B given as N x K
        } else {
          pl::load(b_l1.current(), b.slice(k0, klen, n0, nlen));
        }
        pl::move(a_l0.current(), a_l1.current());
        pl::move(b_l0.current(), b_l1.current(), {.transpose = c.transpose_b});
        pl::matmul(acc.current(), a_l0.current(), b_l0.current(), {.accumulate = accumulate});
        a_l1.next();
        b_l1.next();
        a_l0.next();
        b_l0.next();
      };
      step(0, false);
      for (auto kk : pl::range(1, k_steps)) step(kk * c.tk, true);
      pl::store(out.slice(m0, mlen, n0, nlen), acc.current());
      acc.next();
    }
  });
}

template <class T>
std::string compare(const CubeCase& c) {
  using Acc = pl::accumulator_t<T>;
  const auto a = Tensor<T>::random({c.m, c.k}, c.data_seed, -3.0, 3.0);
  const auto b = c.transpose_b ? Tensor<T>::random({c.n, c.k}, c.data_seed + 1, -3.0, 3.0)
                               : Tensor<T>::random({c.k, c.n}, c.data_seed + 1, -3.0, 3.0);
  auto jit_out = Tensor<Acc>::zeros({c.m, c.n}), ref_out = Tensor<Acc>::zeros({c.m, c.n});
  const auto pj = make_kernel<T>(c, false)[{.block_dim = c.block_dim}].run_sync(a, b, jit_out);
  const auto pr = make_kernel<T>(c, true)[{.block_dim = c.block_dim}].run_sync(a, b, ref_out);
  for (int64_t i = 0; i < jit_out.numel(); ++i) {
    if (!(jit_out[i] == ref_out[i])) {
      return fmt::format("element ({}, {}): JIT {} vs interpreter {}", i / c.n, i % c.n, static_cast<double>(jit_out[i]),
                         static_cast<double>(ref_out[i]));
    }
  }
  if (pj.device_us != pr.device_us) return fmt::format("simulated time: JIT {} us vs interpreter {} us", pj.device_us, pr.device_us);
  return "";
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
