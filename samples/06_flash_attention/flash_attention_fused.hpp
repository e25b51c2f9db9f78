#pragma once
// Sample 06 on a chip with the cross-core paths (the a5 profile): the same online-softmax
// attention with no GM workspace. Per key block j:
//   AIC  S_j = Q_i K_j^T in L0C, moved into the AIVs' UB (Acc -> Vec, rows split), flag S
//   AIV  online softmax on its rows -> P_j, moved into the AIC's L1 at its row offset
//        (Vec -> Mat), flag P
//   AIC  P_j V_j in L0C, moved into the AIVs' UB, flag PV; AIV: O = PV_j + O e^(m - m')
// Cross-core moves carry data only, so each receiver declares what it got (set_validshape),
// and each buffer written across cores is handed back with a "free" flag once read: S has two
// Vec slots (the cube computes S_{j+1} while the AIVs work on S_j: software pipelining across
// the cores), P one L1 tile, PV two Vec slots.
#include <cmath>
#include <string>

#include <pto/pto.hpp>

#include "online_softmax.hpp"

namespace pto::samples::flash_attention {

namespace pl = pto::lang;

/// Cross-core events of the fused kernel (AIC -> AIVs: ready / P free; AIVs -> AIC: P ready / free).
inline constexpr int kFusedScores = 3, kFusedScoresFree = 4, kFusedProbs = 5, kFusedProbsFree = 6, kFusedValues = 7,
                     kFusedValuesFree = 8;

/// True when `chip` moves L0C -> UB and UB -> L1 directly.
inline bool has_cross_core_paths(const std::string& chip) {
  const auto& c = ChipProfile::get(chip);
  return c.path(PathId::AccToVec).present() && c.path(PathId::VecToMat).present();
}

/// The fused kernel body: Q, K, V, O are S x D; `tq` x `tkv` blocks (D <= 128).
template <class T>
void attention_fused(const pl::Tensor<T>& q, const pl::Tensor<T>& k, const pl::Tensor<T>& v, const pl::Tensor<T>& o, int64_t tq,
                     int64_t tkv) {
  const int64_t S = q.dim(0), D = q.dim(1);
  const int64_t q_blocks = (S + tq - 1) / tq, kv_blocks = (S + tkv - 1) / tkv, half = (tq + 1) / 2;
  using pl::Pipe;
  // Written across cores: S and PV by the AIC into the AIVs' UB, P by the AIVs into the AIC's L1.
  // S leaves L0C converted to T (half the FIX bytes for half/bfloat16 inputs); PV stays float.
  auto s_vec = pl::make_tile_group<T>(pl::Vec, {half, tkv}, {0, 1});
  auto pv_vec = pl::make_tile_group<float>(pl::Vec, {half, D}, {2, 3});
  auto p_l1 = pl::make_tile<T>(pl::Mat, {tq, tkv});

  pl::section_cube([&] {
    auto q_l1 = pl::make_tile<T>(pl::Mat, {tq, D});
    auto k_l1 = pl::make_tile_group<T>(pl::Mat, {tkv, D}, {0, 1});
    auto v_l1 = pl::make_tile_group<T>(pl::Mat, {tkv, D}, {2, 3});
    auto q_l0 = pl::make_tile<T>(pl::Left, {tq, D});
    auto p_l0 = pl::make_tile<T>(pl::Left, {tq, tkv});
    auto kt_l0 = pl::make_tile<T>(pl::Right, {D, tkv});
    auto v_l0 = pl::make_tile<T>(pl::Right, {tkv, D});
    auto s_acc = pl::make_tile_group<float>(pl::Acc, {tq, tkv}, {4, 5});
    auto pv_acc = pl::make_tile<float>(pl::Acc, {tq, D});
    // S_j = Q_i K_j^T, moved into the AIVs' UB once both have read the S slot it goes to.
    auto scores = [&](const pl::Int& j) {
      auto k0 = j * tkv;
      auto klen = pl::min(tkv, S - k0);
      pl::load(k_l1.current(), k.slice(k0, klen, 0, D));
      pl::move(kt_l0, k_l1.current(), {.transpose = true});  // K_j^T: D x klen
      pl::matmul(s_acc.current(), q_l0, kt_l0);
      pl::wait_cross_core(Pipe::FIX, kFusedScoresFree);
      pl::move(s_vec.current(), s_acc.current(), {.acc_to_vec_mode = pl::AccToVecMode::DualModeSplitM});
      pl::set_cross_core(Pipe::FIX, kFusedScores);
      k_l1.next();
      s_acc.next();
      s_vec.next();
    };
    pl::set_cross_core(Pipe::MTE1, kFusedProbsFree);  // P's L1 tile starts free
    for (auto qb : pl::range(pl::get_block_idx(), q_blocks, pl::get_block_num())) {
      auto q0 = qb * tq;
      auto qlen = pl::min(tq, S - q0);
      pl::load(q_l1, q.slice(q0, qlen, 0, D));
      pl::move(q_l0, q_l1);
      scores(0);
      for (auto j : pl::range(kv_blocks)) {
        // Software pipelining: S_{j+1} is computed while the AIVs turn S_j into P_j.
        pl::if_(j + 1 < kv_blocks, [&] { scores(j + 1); });
        auto k0 = j * tkv;
        auto klen = pl::min(tkv, S - k0);
        pl::load(v_l1.current(), v.slice(k0, klen, 0, D));
        pl::move(v_l0, v_l1.current());
        v_l1.next();
        pl::wait_cross_core(Pipe::MTE1, kFusedProbs);  // both AIVs moved their rows of P_j in
        pl::set_validshape(p_l1, qlen, klen);
        pl::move(p_l0, p_l1);
        pl::set_cross_core(Pipe::MTE1, kFusedProbsFree);
        pl::matmul(pv_acc, p_l0, v_l0);
        pl::wait_cross_core(Pipe::FIX, kFusedValuesFree);
        pl::move(pv_vec.current(), pv_acc, {.acc_to_vec_mode = pl::AccToVecMode::DualModeSplitM});
        pl::set_cross_core(Pipe::FIX, kFusedValues);
        pv_vec.next();
      }
    }
  });

  pl::section_vector([&] {
    OnlineSoftmax<T> sm(half, tkv, D);
    for (int slot = 0; slot < 2; ++slot) pl::set_cross_core(Pipe::V, kFusedScoresFree);  // both S slots start free
    for (int slot = 0; slot < 2; ++slot) pl::set_cross_core(Pipe::V, kFusedValuesFree);  // both PV slots start free
    auto block = pl::get_block_idx();  // the same on the AIC and both AIVs of a block
    auto blocks = pl::get_block_num();
    for (auto qb : pl::range(block, q_blocks, blocks)) {
      auto q0 = qb * tq;
      auto qlen = pl::min(tq, S - q0);
      auto first = pl::get_subblock_idx() * ((qlen + 1) / 2);  // DualModeSplitM's split of the block's rows
      auto rows = pl::max(0, pl::min((qlen + 1) / 2, qlen - first));
      // P_j from S_j, moved into the AIC's L1 once it has taken the previous P out.
      auto probs = [&](const pl::Int& j) {
        auto s = s_vec.current();
        pl::wait_cross_core(Pipe::V, kFusedScores);
        pl::set_validshape(s, rows, pl::min(tkv, S - j * tkv));
        sm.scores(s);
        pl::set_cross_core(Pipe::V, kFusedScoresFree);  // V has read S: the cube may refill the slot
        s_vec.next();
        pl::wait_cross_core(Pipe::MTE3, kFusedProbsFree);
        pl::move(p_l1, sm.probs, {.offset = {first, 0}});
        pl::set_cross_core(Pipe::MTE3, kFusedProbs);
      };
      sm.steps_ahead(kv_blocks, probs, [&](const pl::Int&, const auto& use) {
        pl::wait_cross_core(Pipe::V, kFusedValues);
        pl::set_validshape(pv_vec.current(), rows, D);
        use(pv_vec.current());
        pl::set_cross_core(Pipe::V, kFusedValuesFree);
        pv_vec.next();
      });
      pl::store(o.slice(q0 + first, rows, 0, D), sm.out);
    }
  });
}

}  // namespace pto::samples::flash_attention
