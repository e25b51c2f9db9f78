#pragma once
// Sample 03: C = A x B on the cube.
//
//   A [M, K], B [K, N] in half, bfloat16 or float; C [M, N] in the same type (float accumulation,
//   converted on the way out by FIX) — or int8 inputs with an int32 C.
//
// C is cut into tm x tn output tiles; tile t goes to core t % block_dim (strided assignment).
// For each output tile the core walks K in steps of tk: MTE2 loads the A and B panels into L1
// (Mat), MTE1 moves them into L0A/L0B (Left/Right), and the cube (M pipe) multiplies into the
// L0C accumulator (Acc) — the first step overwrites it, later steps accumulate. FIX stores the
// finished tile. The L1 and L0 tile groups have `buffers` slots, so the next panel loads while the
// cube works on this one (auto_mutex orders every slot). With `k0` < tk the L1 panels are walked
// into L0 in K slices of k0 (pl::extract), as the published Ascend GEMMs do: big GM loads that
// amortise the DMA latency, L0 tiles small enough to double-buffer. M, N and K need not be
// multiples of the tile: the last tiles are short and every instruction follows the valid extents.
#include <cmath>
#include <numeric>

#include <tbb/parallel_for.h>

#include "../common/Blas.hpp"
#include "../common/Sample.hpp"

namespace pto::samples::matmul {

namespace pl = pto::lang;

struct Params {
  int64_t tm = 128, tn = 128, tk = 64;  // output tile and K step (elements)
  int buffers = 2;                      // slots of the L1 (and, unless l0_buffers is set, L0) tile groups
  std::string chip = "a2";
  bool timing = true;
  bool transpose_b = false;             // B is given as N x K and moved into L0B transposed
  int l0_buffers = 0;                   // slots of the L0 tile groups (0: `buffers`)
  int64_t k0 = 0;                       // K slice moved from L1 into L0 (pl::extract); 0: the whole K step
  int acc_buffers = 2;                  // slots of the L0C accumulator group
  /// B given as N x K (as with transpose_b), read through its [K, N] column-major view into ZN L1
  /// tiles (DN -> ZN on the load), which move into L0B as they are (no transpose on MTE1).
  bool b_column_view = false;
};

/// The output element type of a multiply of `T` inputs: T itself for floats, int32 for int8.
template <class T>
using out_t = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, T>;

/// The body the matmul kernels share (03 standalone, 04/05 inside section_cube): C tiles of
/// `c` (or `store_tile(acc, m0, mlen, n0, nlen)` when given) for the output tiles of this core.
template <class T, class Store>
void matmul_tiles(const pl::Tensor<T>& a, const pl::Tensor<T>& b, const Params& p, const pl::Int& first, const pl::Int& step,
                  Store&& store_tile) {
  using Acc = pl::accumulator_t<T>;
  const pl::Int M = a.extent(0);  // a constant, unless the kernel declares A's rows pl::DYNAMIC
  const bool b_nk = p.transpose_b || p.b_column_view;  // B given as N x K
  const int64_t K = a.dim(1), N = b_nk ? b.dim(0) : b.dim(1);
  pl::require((b_nk ? b.dim(1) : b.dim(0)) == K, b_nk ? "A is M x K and B (transposed) must be N x K" : "A is M x K and B must be K x N");
  auto slots = [](int depth) {
    std::vector<int> s(static_cast<size_t>(depth));
    std::iota(s.begin(), s.end(), 0);
    return s;
  };
  const auto l1 = slots(p.buffers), l0 = slots(p.l0_buffers > 0 ? p.l0_buffers : p.buffers);
  auto a_l1 = pl::make_tile_group<T>(pl::Mat, {p.tm, p.tk}, l1);
  auto b_l1 = p.transpose_b     ? pl::make_tile_group<T>(pl::Mat, {p.tn, p.tk}, l1)
              : p.b_column_view ? pl::make_tile_group<T>(pl::Mat, {p.tk, p.tn}, l1, pl::ZN)
                                : pl::make_tile_group<T>(pl::Mat, {p.tk, p.tn}, l1);
  const int64_t l0_k = p.k0 > 0 ? std::min(p.k0, p.tk) : p.tk;  // the K slice in L0
  auto a_l0 = pl::make_tile_group<T>(pl::Left, {p.tm, l0_k}, l0);
  auto b_l0 = pl::make_tile_group<T>(pl::Right, {l0_k, p.tn}, l0);
  auto acc = pl::make_tile_group<Acc>(pl::Acc, {p.tm, p.tn}, slots(p.acc_buffers));
  const int64_t n_tiles = (N + p.tn - 1) / p.tn;
  const pl::Int tiles = pl::ceil_div(M, p.tm) * n_tiles;
  const int64_t k_steps = (K + p.tk - 1) / p.tk;
  for (auto t : pl::range(first, tiles, step)) {
    auto m0 = t / n_tiles * p.tm, n0 = t % n_tiles * p.tn;
    auto mlen = pl::min(p.tm, M - m0), nlen = pl::min(p.tn, N - n0);
    auto k_step = [&](const pl::Int& k0, bool accumulate) {
      auto klen = pl::min(p.tk, K - k0);
      pl::load(a_l1.current(), a.slice(m0, mlen, k0, klen));
      if (p.transpose_b) {
        pl::load(b_l1.current(), b.slice(n0, nlen, k0, klen));
      } else if (p.b_column_view) {
        pl::load(b_l1.current(), b.permute({1, 0}).slice(k0, klen, n0, nlen));
      } else {
        pl::load(b_l1.current(), b.slice(k0, klen, n0, nlen));
      }
      // One K slice of the panels (from K offset `s` in them) into L0 and through the cube.
      auto slice = [&](const pl::Int& s, bool acc_into) {
        if (l0_k == p.tk) {
          pl::move(a_l0.current(), a_l1.current());
          pl::move(b_l0.current(), b_l1.current(), {.transpose = p.transpose_b});
        } else {
          pl::extract(a_l0.current(), a_l1.current(), 0, s);
          if (p.transpose_b) {
            pl::extract(b_l0.current(), b_l1.current(), 0, s, {.transpose = true});
          } else {
            pl::extract(b_l0.current(), b_l1.current(), s, 0);
          }
        }
        pl::matmul(acc.current(), a_l0.current(), b_l0.current(), {.accumulate = acc_into});
        a_l0.next();
        b_l0.next();
      };
      slice(0, accumulate);
      if (l0_k < p.tk) {
        for (auto s : pl::range(1, (klen + l0_k - 1) / l0_k)) slice(s * l0_k, true);
      }
      a_l1.next();
      b_l1.next();
    };
    k_step(0, false);                                  // the first K step overwrites the accumulator
    for (auto kk : pl::range(1, k_steps)) k_step(kk * p.tk, true);
    store_tile(acc.current(), m0, mlen, n0, nlen);
    acc.next();
  }
}

template <class T>
const pto::Op<pto::Tensor<T>, pto::Tensor<T>, pto::Tensor<out_t<T>>>& matmul_op();

template <class T>
auto make_kernel(Params p) {
  return pl::jit({.name = "matmul", .auto_mutex = true, .chip = p.chip, .timing = p.timing, .race_check = p.timing},
                 [p](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<out_t<T>> c) {
                   pl::require(a.rank() == 2 && b.rank() == 2 && c.rank() == 2, "matmul takes 2-D tensors");
                   pl::require(c.dim(0) == a.dim(0) && c.dim(1) == (p.transpose_b || p.b_column_view ? b.dim(0) : b.dim(1)), "C must be M x N");
                   matmul_tiles<T>(a, b, p, pl::get_block_idx(), pl::get_block_num(),
                                   [&](const auto& acc, const pl::Int& m0, const pl::Int& mlen, const pl::Int& n0, const pl::Int& nlen) {
                                     pl::store(c.slice(m0, mlen, n0, nlen), acc);
                                   });
                 });
}

/// Each C element summed in double from the exact products (a product of two inputs of 24 or fewer
/// significant bits is exact in double), rounded once to the output type. The sums are OpenBLAS
/// dgemm's, so the reference stays seconds long at the published GEMM's 6144^3.
template <class T>
void reference(const Tensor<T>& a, const Tensor<T>& b, Tensor<out_t<T>>& c) {
  const int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  const std::vector<double> ad = to_double(a.data(), M * K), bd = to_double(b.data(), K * N);
  std::vector<double> cd(static_cast<size_t>(M * N));
  blas_dgemm(ad.data(), bd.data(), cd.data(), M, N, K);
  tbb::parallel_for(int64_t{0}, M * N, [&](int64_t i) {
    if constexpr (std::is_same_v<T, int8_t>) {
      c[i] = static_cast<int32_t>(cd[static_cast<size_t>(i)]);
    } else {
      c[i] = out_t<T>(static_cast<float>(cd[static_cast<size_t>(i)]));
    }
  });
}

/// The error bound of a float-accumulated product against the double reference: K roundings of
/// float sums, plus one rounding of the 16-bit output.
template <class T>
double tolerance(const Tensor<out_t<T>>& want, int64_t K) {
  if constexpr (std::is_same_v<T, int8_t>) {
    return 0;  // int32 accumulation is exact
  } else {
    double biggest = 0;
    for (int64_t i = 0; i < want.numel(); ++i) biggest = std::max(biggest, std::abs(static_cast<double>(static_cast<float>(want[i]))));
    const double out_eps = std::is_same_v<T, float> ? 0 : (std::is_same_v<T, half> ? 0x1p-10 : 0x1p-7);
    return static_cast<double>(K) * 0x1p-22 * std::max(1.0, biggest) + out_eps * biggest;
  }
}

/// What `pto tune matmul` searches (block_dim up to a2's 24 AIC cores).
struct Tunables {
  BOOST_HANA_DEFINE_STRUCT(Tunables,
    (KeyValues<int, 1, 2, 4, 8, 12, 16, 20, 24>, block_dim),
    (KeyValues<int, 64, 128, 256>, tm),
    (KeyValues<int, 64, 128, 256>, tn),
    (KeyValues<int, 64, 128, 256>, tk),
    (KeyField<int, 1, 2>, buffers));
};

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "matmul";
  info.about = "C = A x B on the cube: L1 double buffering, K accumulation in L0C, tails in M, N and K";
  info.default_shape = {512, 512, 512};
  info.tunables = tune_space_of<Tunables>();
  info.prepare = [](const SampleArgs& args) {
    return dispatch_float_dtype(args.dtype, [&]<class T>() {
      PTO_USER_CHECK(args.shape.size() == 3, ErrorSite{}) << "matmul takes --shape MxNxK";
      const int64_t M = args.shape[0], N = args.shape[1], K = args.shape[2];
      // 16-bit inputs take the published GEMM's tiling (pto-isa gemm_performance): 128 x 256 output
      // blocks, 256-deep L1 panels (64 and 128 KiB loads amortise the DMA latency) walked into L0 in
      // 64-deep K slices that double-buffer. L0 and L0C keep two slots only where they fit.
      constexpr bool wide = std::is_same_v<T, float>;
      Params p{args.param("tm", 128), args.param("tn", wide ? 128 : 256), args.param("tk", wide ? 64 : 256),
               static_cast<int>(args.param("buffers", 2)), args.chip};
      p.k0 = args.param("k0", wide ? 0 : 64);
      const ChipProfile& chip = ChipProfile::get(args.chip);
      const int64_t l0_k = p.k0 > 0 ? std::min(p.k0, p.tk) : p.tk;
      const int64_t l0_slot = std::max(p.tm, p.tn) * l0_k * static_cast<int64_t>(sizeof(T));
      const bool two_fit = 2 * l0_slot <= chip.limits(ir::MemSpace::Left).bytes;
      p.l0_buffers = static_cast<int>(args.param("l0_buffers", two_fit ? 2 : 1));
      const bool two_acc_fit = 2 * p.tm * p.tn * 4 <= chip.limits(ir::MemSpace::Acc).bytes;
      p.acc_buffers = static_cast<int>(args.param("acc_buffers", two_acc_fit ? 2 : 1));
      auto kernel = std::make_shared<decltype(make_kernel<T>(p))>(make_kernel<T>(p));
      auto a = Tensor<T>::random({M, K}, 1), b = Tensor<T>::random({K, N}, 2);
      auto c = Tensor<T>::zeros({M, N});
      const int bd = args.block_dim;
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd}](a, b, c); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd}].run_sync(a, b, c); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd}].compile(a, b, c); };
      run.verify = [=] {
        auto want = Tensor<T>::zeros({M, N});
        reference(a, b, want);
        Verdict v;
        v.max_abs_error = max_abs_diff(c, want);
        v.tolerance = tolerance<T>(want, K);
        v.ok = v.max_abs_error <= v.tolerance;
        return v;
      };
      // OpenBLAS sgemm into C; half and bfloat16 inputs are widened to float first and the float
      // product rounded into C (both counted in its time).
      auto out = std::make_shared<std::vector<float>>(std::is_same_v<T, float> ? 0 : static_cast<size_t>(M * N));
      run.native_about = openblas_sgemm_name() + " (half and bfloat16 widened to float first and C rounded back, counted in its time)";
      run.native = [=]() mutable {
        if constexpr (std::is_same_v<T, float>) {
          native_matmul(a.data(), b.data(), c.data(), M, N, K);
        } else {
          native_matmul(a.data(), b.data(), out->data(), M, N, K);
          narrow_into(out->data(), M * N, c.data());
        }
      };
      run.op_launch = [=] { matmul_op<T>()(a, b, c); };
      run.gm_bytes = static_cast<int64_t>(a.bytes() + b.bytes() + c.bytes());
      run.flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::matmul

#include "matmul_op.hpp"  // the operator (defines matmul_op, used by sample())
