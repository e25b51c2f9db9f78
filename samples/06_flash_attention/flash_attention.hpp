#pragma once
// Sample 06: flash attention forward, O = softmax(Q K^T / sqrt(D)) V, for Q, K, V of S x D with
// one head-dim tile (D <= 128), as a mix kernel with online softmax.
//
// Query rows are cut into blocks of tq; block i goes to mix block i % block_dim. For each query
// block the AIC keeps Q_i in L0A and walks the keys in blocks of tkv:
//   AIC   S_j = Q_i K_j^T  (K_j moved into L0B transposed)  -> workspace slot j % (preload + 1), flag S
//   AIV   online softmax on its half of the rows: m' = max(m, rowmax(S_j) / sqrt(D)),
//         P_j = exp(S_j / sqrt(D) - m'), l = l e^(m - m') + rowsum(P_j) -> P_j workspace, flag P
//   AIC   (after both AIVs' flag P) PV_j = P_j V_j -> workspace slot j % 2, flag PV
//   AIV   O = PV_j + O e^(m - m')
// and at the end each AIV writes O / l. Both sides run ahead of the other (the cube computes up to
// `preload` S blocks ahead while the AIVs work on S_j, the AIVs P_{j+1} while the cube works on
// P_j), as the published PTO kernel does with its QK preload; each workspace slot is handed back
// to its producer with a "free" flag.
// On a chip with the cross-core paths (a5) the kernel skips the workspaces: flash_attention_fused.hpp.
#include <algorithm>
#include <cmath>

#include <tbb/parallel_for.h>

#include "../common/Blas.hpp"
#include "../common/Sample.hpp"
#include "../common/native/NativeKernels.hpp"
#include "../common/native/NativeRows.hpp"
#include "flash_attention_fused.hpp"

namespace pto::samples::flash_attention {

namespace pl = pto::lang;

struct Params {
  int64_t tq = 128, tkv = 128;  // query and key/value block rows
  // S blocks the cube computes ahead of the AIVs: the published kernel's QK preload (its depth is 4;
  // on the model 2 and 3 are fastest at S = 1024, 2 with a slot fewer; deeper, the cube's S stores
  // compete with the AIVs' loads).
  int64_t preload = 2;
  std::string chip = "a2";
  bool timing = true;
  bool fused = true;  // on chips with the cross-core paths, skip the GM workspaces (false: use them anyway)
};

/// Workspaces of a launch: per block, preload + 1 slots of S and two of PV in float, and one of P
/// in the input type.
template <class T>
struct Workspace {
  Tensor<float> scores, values;
  Tensor<T> probs;
  Workspace(int block_dim, const Params& p, int64_t D)
      : scores(Tensor<float>::zeros({(p.preload + 1) * block_dim * p.tq, p.tkv})),
        values(Tensor<float>::zeros({2 * block_dim * p.tq, D})),
        probs(Tensor<T>::zeros({block_dim * p.tq, p.tkv})) {}
};

template <class T>
auto make_kernel(Params p) {
  return pl::jit({.name = "flash_attention", .auto_mutex = true, .chip = p.chip, .timing = p.timing, .race_check = p.timing},
                 [p](pl::Tensor<T> q, pl::Tensor<T> k, pl::Tensor<T> v, pl::Tensor<T> o, pl::Tensor<float> s_ws,
                     pl::Tensor<T> p_ws, pl::Tensor<float> pv_ws) {
    const int64_t S = q.dim(0), D = q.dim(1);
    pl::require(k.dim(0) == S && v.dim(0) == S && k.dim(1) == D && v.dim(1) == D && o.dim(0) == S && o.dim(1) == D,
                "Q, K, V and O are all S x D");
    pl::require(D <= 128, "one head-dim tile: D must be at most 128");
    pl::require(D * static_cast<int64_t>(sizeof(T)) % 32 == 0,
                "Q, K and V rows are loaded into L1 tiles D wide, in whole 32-byte units: D must be a multiple of 32 / sizeof(T) "
                "(8 for f32, 16 for f16 and bf16)");
    pl::require(p.preload >= 1 && p.preload <= 4, "preload: 1 to 4 S blocks ahead");
    const int64_t q_blocks = (S + p.tq - 1) / p.tq, kv_blocks = (S + p.tkv - 1) / p.tkv;
    if (p.fused && has_cross_core_paths(p.chip)) {
      (void)s_ws, (void)p_ws, (void)pv_ws;  // S, P and PV move between the cores' local memories
      return attention_fused<T>(q, k, v, o, p.tq, p.tkv);
    }
    using pl::Pipe;
    // Software-pipelined across the cores as the published kernels are: the cube computes S up to
    // `preload` blocks ahead (S_{j+1..j+preload}) while the AIVs turn S_j into P_j, and the AIVs
    // compute P_{j+1} while the cube multiplies P_j V_j. S has preload + 1 workspace slots per
    // block, PV two; every buffer written across cores is handed back with a "free" flag (the
    // same events as the fused kernel).
    const int64_t s_slots = p.preload + 1;
    auto s_row = [&](const pl::Int& j) { return (pl::get_block_idx() * s_slots + j % s_slots) * p.tq; };
    auto slot_row = [&](const pl::Int& j) { return (pl::get_block_idx() * 2 + j % 2) * p.tq; };

    pl::section_cube([&] {
      auto q_l1 = pl::make_tile<T>(pl::Mat, {p.tq, D});
      auto k_l1 = pl::make_tile_group<T>(pl::Mat, {p.tkv, D}, {0, 1});
      auto p_l1 = pl::make_tile<T>(pl::Mat, {p.tq, p.tkv});
      auto v_l1 = pl::make_tile_group<T>(pl::Mat, {p.tkv, D}, {2, 3});
      auto q_l0 = pl::make_tile<T>(pl::Left, {p.tq, D});
      auto p_l0 = pl::make_tile<T>(pl::Left, {p.tq, p.tkv});
      auto kt_l0 = pl::make_tile<T>(pl::Right, {D, p.tkv});
      auto v_l0 = pl::make_tile<T>(pl::Right, {p.tkv, D});
      auto s_acc = pl::make_tile<float>(pl::Acc, {p.tq, p.tkv});
      auto pv_acc = pl::make_tile<float>(pl::Acc, {p.tq, D});
      auto p_row = pl::get_block_idx() * p.tq;  // this block's rows of the P workspace
      // S_j = Q_i K_j^T into S slot j % 2, once both AIVs have read what that slot held.
      auto scores = [&](const pl::Int& j, const pl::Int& qlen) {
        auto k0 = j * p.tkv;
        auto klen = pl::min(p.tkv, S - k0);
        pl::load(k_l1.current(), k.slice(k0, klen, 0, D));
        pl::move(kt_l0, k_l1.current(), {.transpose = true});  // K_j^T: D x klen
        pl::matmul(s_acc, q_l0, kt_l0);
        pl::wait_cross_core(Pipe::FIX, kFusedScoresFree);
        pl::store(s_ws.slice(s_row(j), qlen, 0, klen), s_acc);
        pl::set_cross_core(Pipe::FIX, kFusedScores);
        k_l1.next();
      };
      pl::set_cross_core(Pipe::MTE2, kFusedProbsFree);  // the P workspace starts free
      for (auto qb : pl::range(pl::get_block_idx(), q_blocks, pl::get_block_num())) {
        auto q0 = qb * p.tq;
        auto qlen = pl::min(p.tq, S - q0);
        pl::load(q_l1, q.slice(q0, qlen, 0, D));
        pl::move(q_l0, q_l1);
        for (int64_t j = 0; j < std::min(p.preload, kv_blocks); ++j) scores(j, qlen);
        for (auto j : pl::range(kv_blocks)) {
          pl::if_(j + p.preload < kv_blocks, [&] { scores(j + p.preload, qlen); });
          auto k0 = j * p.tkv;
          auto klen = pl::min(p.tkv, S - k0);
          pl::load(v_l1.current(), v.slice(k0, klen, 0, D));
          pl::move(v_l0, v_l1.current());
          v_l1.next();
          pl::wait_cross_core(Pipe::MTE2, kFusedProbs);  // both AIVs wrote their rows of P_j
          pl::load(p_l1, p_ws.slice(p_row, qlen, 0, klen));
          pl::set_cross_core(Pipe::MTE2, kFusedProbsFree);
          pl::move(p_l0, p_l1);
          pl::matmul(pv_acc, p_l0, v_l0);
          pl::wait_cross_core(Pipe::FIX, kFusedValuesFree);
          pl::store(pv_ws.slice(slot_row(j), qlen, 0, D), pv_acc);
          pl::set_cross_core(Pipe::FIX, kFusedValues);
        }
      }
    });

    pl::section_vector([&] {
      const int64_t half = (p.tq + 1) / 2;
      auto s = pl::make_tile<float>(pl::Vec, {half, p.tkv});
      auto pv = pl::make_tile<float>(pl::Vec, {half, D});
      OnlineSoftmax<T> sm(half, p.tkv, D);
      for (int64_t slot = 0; slot < s_slots; ++slot) pl::set_cross_core(Pipe::MTE2, kFusedScoresFree);  // every S slot starts free
      for (int slot = 0; slot < 2; ++slot) pl::set_cross_core(Pipe::MTE2, kFusedValuesFree);  // both PV slots start free
      auto block = pl::get_block_idx();  // the same on the AIC and both AIVs of a block
      auto blocks = pl::get_block_num();
      for (auto qb : pl::range(block, q_blocks, blocks)) {
        auto q0 = qb * p.tq;
        auto qlen = pl::min(p.tq, S - q0);
        auto first = pl::get_subblock_idx() * ((qlen + 1) / 2);       // this AIV's rows of the block
        auto rows = pl::max(0, pl::min((qlen + 1) / 2, qlen - first));
        // P_j from S_j, written to the P workspace once the cube has loaded the previous P.
        auto probs = [&](const pl::Int& j) {
          auto klen = pl::min(p.tkv, S - j * p.tkv);
          pl::wait_cross_core(Pipe::MTE2, kFusedScores);
          pl::load(s, s_ws.slice(s_row(j) + first, rows, 0, klen));
          pl::set_cross_core(Pipe::MTE2, kFusedScoresFree);  // S read: the cube may refill the slot
          sm.scores(s);
          pl::wait_cross_core(Pipe::MTE3, kFusedProbsFree);
          pl::store(p_ws.slice(block * p.tq + first, rows, 0, klen), sm.probs);
          pl::set_cross_core(Pipe::MTE3, kFusedProbs);
        };
        sm.steps_ahead(kv_blocks, probs, [&](const pl::Int& j, const auto& use) {
          pl::wait_cross_core(Pipe::MTE2, kFusedValues);
          pl::load(pv, pv_ws.slice(slot_row(j) + first, rows, 0, D));
          pl::set_cross_core(Pipe::MTE2, kFusedValuesFree);  // PV read: the cube may refill the slot
          use(pv);
        });
        pl::store(o.slice(q0 + first, rows, 0, D), sm.out);
      }
    });
  });
}

/// Plain C++ attention in double: scores, a stable softmax per row, the weighted sum of V.
template <class T>
void reference(const Tensor<T>& q, const Tensor<T>& k, const Tensor<T>& v, Tensor<T>& o) {
  const int64_t S = q.shape()[0], D = q.shape()[1];
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  tbb::parallel_for(int64_t{0}, S, [&](int64_t i) {
    std::vector<double> w(static_cast<size_t>(S));
    double mx = -INFINITY;
    for (int64_t j = 0; j < S; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < D; ++d) dot += static_cast<double>(static_cast<float>(q[i * D + d])) * static_cast<float>(k[j * D + d]);
      w[j] = dot * scale;
      mx = std::max(mx, w[j]);
    }
    double sum = 0;
    for (auto& x : w) sum += (x = std::exp(x - mx));
    for (int64_t d = 0; d < D; ++d) {
      double acc = 0;
      for (int64_t j = 0; j < S; ++j) acc += w[j] * static_cast<float>(v[j * D + d]);
      o[i * D + d] = T(static_cast<float>(acc / sum));
    }
  });
}

/// P is rounded to T before P V (as on the chip) and O once at the end: errors of a few T ulps of
/// |V| <= 1, plus float sums.
template <class T>
double tolerance() {
  const double eps = std::is_same_v<T, float> ? 0x1p-20 : (std::is_same_v<T, half> ? 0x1p-10 : 0x1p-7);
  return 4 * eps + 1e-5;
}

/// Default blocks: as large as L0A/L0B/L0C allow for the element type.
template <class T>
Params default_params(const std::string& chip) {
  return Params{.tq = std::is_same_v<T, float> ? 64 : 128, .tkv = std::is_same_v<T, float> ? 64 : 128, .chip = chip};
}

/// What `pto tune flash_attention` searches (block_dim up to a2's 24 AIC cores).
struct Tunables {
  BOOST_HANA_DEFINE_STRUCT(Tunables,
    (KeyValues<int, 1, 2, 4, 8, 12, 16, 20, 24>, block_dim),
    (KeyValues<int, 64, 128, 256>, tq),
    (KeyValues<int, 64, 128, 256, 512>, tkv),
    (KeyField<int, 1, 3>, preload));  // S blocks QK runs ahead of PV (the kernel takes 1..4)
};

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "flash_attention";
  info.about = "O = softmax(Q K^T / sqrt(D)) V, online softmax, cube and vector cores through cross-core flags";
  info.default_shape = {2048, 128};
  info.tunables = tune_space_of<Tunables>();
  info.prepare = [](const SampleArgs& args) {
    return dispatch_float_dtype(args.dtype, [&]<class T>() {
      PTO_USER_CHECK(args.shape.size() == 2, ErrorSite{}) << "flash_attention takes --shape SxD";
      const int64_t S = args.shape[0], D = args.shape[1];
      Params p = default_params<T>(args.chip);
      p.tq = args.param("tq", p.tq);
      p.tkv = args.param("tkv", p.tkv);
      p.preload = args.param("preload", p.preload);
      p.fused = args.param("fused", 1) != 0;
      auto kernel = std::make_shared<decltype(make_kernel<T>(p))>(make_kernel<T>(p));
      auto q = Tensor<T>::random({S, D}, 1), k = Tensor<T>::random({S, D}, 2), v = Tensor<T>::random({S, D}, 3);
      auto o = Tensor<T>::zeros({S, D});
      const int bd = args.block_dim;
      auto ws = std::make_shared<Workspace<T>>(bd, p, D);
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd}](q, k, v, o, ws->scores, ws->probs, ws->values); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd}].run_sync(q, k, v, o, ws->scores, ws->probs, ws->values); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd}].compile(q, k, v, o, ws->scores, ws->probs, ws->values); };
      run.verify = [=] {
        auto want = Tensor<T>::zeros({S, D});
        reference(q, k, v, want);
        Verdict verdict;
        verdict.max_abs_error = max_abs_diff(o, want);
        verdict.tolerance = tolerance<T>();
        verdict.ok = verdict.max_abs_error <= verdict.tolerance;
        return verdict;
      };
      // A native attention: per block of 256 query rows, S = Q K^T / sqrt(D) (OpenBLAS sgemm), a
      // vectorised softmax per row, O = P V (sgemm) — the whole S row at once, not online.
      run.native_about = "per 256 query rows: " + openblas_sgemm_name() + " Q K^T, native::softmax_row (libmvec expf) on TBB, sgemm P V "
                         "(half and bfloat16 widened to float and rounded back, counted in its time)";
      auto scores = std::make_shared<std::vector<float>>(static_cast<size_t>(std::min<int64_t>(S, 256) * S));
      auto out = std::make_shared<std::vector<float>>(static_cast<size_t>(S * D));
      run.native = [=, qs = std::vector<float>(), ks = std::vector<float>(), vs = std::vector<float>()]() mutable {  // kept between calls
        const float* qf = as_float(q.data(), S * D, qs);
        const float* kf = as_float(k.data(), S * D, ks);
        const float* vf = as_float(v.data(), S * D, vs);
        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        for (int64_t r0 = 0; r0 < S; r0 += 256) {
          const int64_t rows = std::min<int64_t>(256, S - r0);
          blas_sgemm_nt(qf + r0 * D, kf, scores->data(), rows, S, D, scale);
          native::for_each_row(scores->data(), scores->data(), rows, S,
                               [&](const float* in, float* row, int64_t) { native::softmax_row(in, row, S); });
          blas_sgemm(scores->data(), vf, out->data() + r0 * D, rows, D, S);
        }
        narrow_into(out->data(), S * D, o.data());
      };
      run.gm_bytes = static_cast<int64_t>(4 * q.bytes());
      run.flops = 4.0 * static_cast<double>(S) * static_cast<double>(S) * static_cast<double>(D);
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::flash_attention
