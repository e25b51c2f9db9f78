#pragma once
// Sample 04: Y = relu(A x B + bias) as a mix kernel — the cube multiplies, the vector cores
// finish each tile (a fused epilogue).
//
// Each block is 1 AIC + 2 AIVs. In section_cube the AIC runs sample 03's tile loop, stores each
// finished float tile into a GM workspace and signals its AIVs with set_cross_core. In
// section_vector each AIV waits for that flag, loads its half of the tile's rows from the
// workspace, adds the bias row (a {1, tn} tile broadcast down the columns), applies relu, casts
// to the output type and stores. The workspace tiles are disjoint, so the AIC never waits for
// the AIVs: the epilogue of tile i overlaps the cube's work on tile i + 1.
//
// On a chip with an L0C -> UB path (the a5 profile) the epilogue is fused without the GM round
// trip: the AIC moves each finished accumulator straight into its AIVs' UB (Acc -> Vec on FIX,
// rows split between the two AIVs), and the AIVs hand each Vec slot back with a cross-core flag
// once they have read it (see cube_tiles_then_vector).
#include "../03_matmul/matmul.hpp"
#include "../common/native/NativeKernels.hpp"
#include "../common/native/NativeRows.hpp"

namespace pto::samples::matmul_bias_relu {

namespace pl = pto::lang;
using matmul::Params;

inline constexpr int kTileReady = 0;  // cross-core event: a workspace (or Vec) tile is complete
inline constexpr int kVecFree = 1;    // cross-core event (fused path): an AIV has read its Vec slot

/// The rows [first, first + count) of an output tile of `mlen` rows that AIV `sub` of 2 finishes.
struct HalfRows {
  pl::Int first, count;
};
inline HalfRows half_rows(const pl::Int& mlen, const pl::Int& sub) {
  auto half = (mlen + 1) / 2;
  auto first = sub * half;
  return {first, pl::max(0, pl::min(half, mlen - first))};
}

/// True when `chip` moves L0C to UB directly (the fused epilogue needs no workspace).
inline bool has_acc_to_vec(const std::string& chip) { return ChipProfile::get(chip).path(PathId::AccToVec).present(); }

/// The mix structure samples 04 and 05 share. section_cube: sample 03's tile loop; each finished
/// float tile goes to the AIVs, announced with set_cross_core. section_vector: `make_epilogue()`
/// declares the AIV's tiles once and returns `epilogue(c, row, rows, n0, nlen)`, traced for this
/// AIV's half of the rows of each tile once they are in its float Vec tile `c`:
///   * through the GM workspace `ws` (every chip): the cube stores the tile, the AIV loads its rows;
///   * on a chip with the Acc -> Vec path (a5): the cube moves the accumulator into both AIVs' UB
///     (DualModeSplitM), each AIV declares its rows (set_validshape) and hands the slot back with
///     a flag once V has read it (two slots: the cube runs up to two tiles ahead).
template <class T, class MakeEpilogue>
void cube_tiles_then_vector(const pl::Tensor<T>& a, const pl::Tensor<T>& b, const pl::Tensor<float>& ws, const Params& p,
                            MakeEpilogue&& make_epilogue) {
  const int64_t M = a.dim(0), N = b.dim(1);
  pl::require(ws.dim(0) == M && ws.dim(1) == N, "the workspace is M x N floats");
  const int64_t n_tiles = (N + p.tn - 1) / p.tn, tiles = (M + p.tm - 1) / p.tm * n_tiles;
  const bool fused = has_acc_to_vec(p.chip);
  // The AIVs' tile of C, in the same order on both sides (the cube writes it on the fused path).
  auto c = pl::make_tile_group<float>(pl::Vec, {(p.tm + 1) / 2, p.tn}, {0, 1});
  pl::section_cube([&] {
    matmul::matmul_tiles<T>(a, b, p, pl::get_block_idx(), pl::get_block_num(),
                            [&](const auto& acc, const pl::Int& m0, const pl::Int& mlen, const pl::Int& n0, const pl::Int& nlen) {
                              if (fused) {
                                pl::wait_cross_core(pl::Pipe::FIX, kVecFree);  // one from each AIV
                                pl::move(c.current(), acc, {.acc_to_vec_mode = pl::AccToVecMode::DualModeSplitM});
                                c.next();
                              } else {
                                pl::store(ws.slice(m0, mlen, n0, nlen), acc);
                              }
                              pl::set_cross_core(pl::Pipe::FIX, kTileReady);
                            });
  });
  pl::section_vector([&] {
    auto epilogue = make_epilogue();
    if (fused) {
      for (int slot = 0; slot < 2; ++slot) pl::set_cross_core(pl::Pipe::V, kVecFree);  // both slots start free
    }
    auto block = pl::get_block_idx();  // the same on the AIC and both AIVs of a block
    auto blocks = pl::get_block_num();
    for (auto t : pl::range(block, tiles, blocks)) {
      auto m0 = t / n_tiles * p.tm, n0 = t % n_tiles * p.tn;
      auto mlen = pl::min(p.tm, M - m0), nlen = pl::min(p.tn, N - n0);
      auto rows = half_rows(mlen, pl::get_subblock_idx());  // also DualModeSplitM's split
      if (fused) {
        pl::wait_cross_core(pl::Pipe::V, kTileReady);
        pl::set_validshape(c.current(), rows.count, nlen);
      } else {
        pl::wait_cross_core(pl::Pipe::MTE2, kTileReady);
        pl::load(c.current(), ws.slice(m0 + rows.first, rows.count, n0, nlen));
      }
      epilogue(c.current(), m0 + rows.first, rows.count, n0, nlen);
      if (fused) pl::set_cross_core(pl::Pipe::V, kVecFree);  // V has read the slot: the cube may refill it
      c.next();
    }
  });
}

template <class T>
auto make_kernel(Params p) {
  return pl::jit({.name = "matmul_bias_relu", .auto_mutex = true, .chip = p.chip, .timing = p.timing, .race_check = p.timing},
                 [p](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<T> bias, pl::Tensor<T> y, pl::Tensor<float> ws) {
    const int64_t M = a.dim(0), N = b.dim(1);
    pl::require(bias.rank() == 2 && bias.dim(0) == 1 && bias.dim(1) == N, "bias is a 1 x N tensor");
    pl::require(y.dim(0) == M && y.dim(1) == N, "Y is M x N");
    cube_tiles_then_vector<T>(a, b, ws, p, [&] {
      auto out = pl::make_tile_group<T>(pl::Vec, {(p.tm + 1) / 2, p.tn}, {2, 3});
      auto bias_row = pl::make_tile<T>(pl::Vec, {1, p.tn});
      return [=, &bias, &y](const pl::Tile<float>& c, const pl::Int& row, const pl::Int& rows, const pl::Int& n0, const pl::Int& nlen) {
        pl::load(bias_row, bias.slice(0, 1, n0, nlen));
        out.current() = pl::cast<T>(pl::relu(c + pl::cast<float>(bias_row)));  // {1, n} broadcasts down
        pl::store(y.slice(row, rows, n0, nlen), out.current());
        out.next();
      };
    });
  });
}

template <class T>
void reference(const Tensor<T>& a, const Tensor<T>& b, const Tensor<T>& bias, Tensor<T>& y) {
  const int64_t M = a.shape()[0], N = b.shape()[1];
  auto c = Tensor<float>::zeros({M, N});
  auto af = Tensor<float>::zeros(a.shape()), bf = Tensor<float>::zeros(b.shape());
  for (int64_t i = 0; i < a.numel(); ++i) af[i] = static_cast<float>(a[i]);
  for (int64_t i = 0; i < b.numel(); ++i) bf[i] = static_cast<float>(b[i]);
  matmul::reference(af, bf, c);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) y[i * N + j] = T(std::max(0.0f, c[i * N + j] + static_cast<float>(bias[j])));
  }
}

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "matmul_bias_relu";
  info.about = "Y = relu(A x B + bias): cube matmul, then a vector epilogue in mix mode via cross-core flags";
  info.default_shape = {512, 512, 512};
  info.prepare = [](const SampleArgs& args) {
    return dispatch_float_dtype(args.dtype, [&]<class T>() {
      PTO_USER_CHECK(args.shape.size() == 3, ErrorSite{}) << "matmul_bias_relu takes --shape MxNxK";
      const int64_t M = args.shape[0], N = args.shape[1], K = args.shape[2];
      Params p{args.param("tm", 128), args.param("tn", 128), args.param("tk", std::is_same_v<T, float> ? 64 : 128),
               static_cast<int>(args.param("buffers", 2)), args.chip};
      auto kernel = std::make_shared<decltype(matmul_bias_relu::make_kernel<T>(p))>(matmul_bias_relu::make_kernel<T>(p));
      auto a = Tensor<T>::random({M, K}, 1), b = Tensor<T>::random({K, N}, 2), bias = Tensor<T>::random({1, N}, 3);
      auto y = Tensor<T>::zeros({M, N});
      auto ws = Tensor<float>::zeros({M, N});
      const int bd = args.block_dim;
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd}](a, b, bias, y, ws); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd}].run_sync(a, b, bias, y, ws); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd}].compile(a, b, bias, y, ws); };
      run.verify = [=] {
        auto want = Tensor<T>::zeros({M, N});
        reference(a, b, bias, want);
        Verdict v;
        v.max_abs_error = max_abs_diff(y, want);
        v.tolerance = matmul::tolerance<T>(want, K);
        v.ok = v.max_abs_error <= v.tolerance;
        return v;
      };
      run.native_about = openblas_sgemm_name() + ", then native::bias_relu_row over rows on TBB (half and bfloat16 widened to float and "
                         "rounded back, counted in its time)";
      auto c = std::make_shared<std::vector<float>>(static_cast<size_t>(M * N));
      run.native = [=, bias_storage = std::vector<float>()]() mutable {  // kept between calls
        native_matmul(a.data(), b.data(), c->data(), M, N, K);
        const float* bias_f = as_float(bias.data(), N, bias_storage);
        native::for_each_row(c->data(), y.data(), M, N, [&](const float* in, float* out, int64_t) {
          std::copy(in, in + N, out);
          native::bias_relu_row(out, bias_f, N);
        });
      };
      run.gm_bytes = static_cast<int64_t>(a.bytes() + b.bytes() + bias.bytes() + y.bytes() + 2 * ws.bytes());
      run.flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::matmul_bias_relu
