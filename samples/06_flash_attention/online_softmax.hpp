#pragma once
// The vector cores' half of flash attention (both kernels of sample 06): the online softmax of
// one AIV's query rows over the key blocks, carried in {rows, 1} tiles.
//   start:  m = -inf, l = 0, O = 0
//   scores: m' = max(m, rowmax(S_j) / sqrt(D)), P_j = exp(S_j / sqrt(D) - m'),
//           alpha = e^(m - m'), l = l alpha + rowsum(P_j), m = m'; P_j rounded to T in `probs`
//   values: O = PV_j + O alpha (or the alpha held from step j when step j + 1 ran first)
//   finish: out = O / l in T
#include <cmath>
#include <type_traits>

#include <pto/pto.hpp>

namespace pto::samples::flash_attention {

namespace pl = pto::lang;

template <class T>
struct OnlineSoftmax {
  pl::Tile<float> pr, acc, m, m_new, row_max, alpha, l, row_sum, alpha_held;
  pl::Tile<T> probs, out;
  float scale;

  /// Tiles for `rows` query rows, `tkv` keys and head dimension D.
  OnlineSoftmax(int64_t rows, int64_t tkv, int64_t D)
      : pr(pl::make_tile<float>(pl::Vec, {rows, tkv})), acc(pl::make_tile<float>(pl::Vec, {rows, D})),
        m(pl::make_tile<float>(pl::Vec, {rows, 1})), m_new(pl::make_tile<float>(pl::Vec, {rows, 1})),
        row_max(pl::make_tile<float>(pl::Vec, {rows, 1})), alpha(pl::make_tile<float>(pl::Vec, {rows, 1})),
        l(pl::make_tile<float>(pl::Vec, {rows, 1})), row_sum(pl::make_tile<float>(pl::Vec, {rows, 1})),
        alpha_held(pl::make_tile<float>(pl::Vec, {rows, 1})),
        probs(pl::make_tile<T>(pl::Vec, {rows, tkv})), out(pl::make_tile<T>(pl::Vec, {rows, D})),
        scale(1.0f / std::sqrt(static_cast<float>(D))) {}

  void start() {
    m = -INFINITY;
    l = 0.0f;
    acc = 0.0f;
  }
  /// The first operand of each {rows, 1} expression sets its extent: this block's rows (m, l and
  /// acc start filled over the whole tile).
  /// S in float, or in T when it came out of L0C already converted (the fused kernel).
  template <class S>
  void scores(const pl::Tile<S>& s) {
    pl::row_max(row_max, s);
    m_new = pl::max(row_max * scale, m);
    if constexpr (std::is_same_v<S, float>) {
      pr = pl::exp(s * scale - m_new);
    } else {
      pr = pl::exp(pl::cast<float>(s) * scale - m_new);
    }
    alpha = pl::exp(-(m_new - m));
    pl::row_sum(row_sum, pr);
    l = row_sum + l * alpha;
    m = m_new;
    probs = pl::cast<T>(pr);
  }
  void values(const pl::Tile<float>& pv) { values(pv, alpha); }
  /// values() with the alpha of an earlier step (software pipelining: see hold_alpha).
  void values(const pl::Tile<float>& pv, const pl::Tile<float>& step_alpha) { acc = pv + acc * step_alpha; }
  /// Keeps this step's alpha for values() while the next scores() computes its own.
  void hold_alpha() { alpha_held = alpha; }
  void finish() { out = pl::cast<T>(acc / l); }

  /// One query block's steps, one step ahead of the cube (software pipelining across the cores):
  /// P_{j+1} is computed while the cube works on P_j V_j, and PV_j is rescaled by step j's alpha,
  /// kept aside before step j + 1 replaces it. `probs(j)` turns S_j into P_j and hands it over;
  /// `with_values(j, use)` takes PV_j in, calls use(tile) and hands the tile back.
  template <class Probs, class WithValues>
  void steps_ahead(int64_t kv_blocks, Probs&& probs, WithValues&& with_values) {
    start();
    probs(pl::Int(0));
    for (auto j : pl::range(kv_blocks)) {
      hold_alpha();
      pl::if_(j + 1 < kv_blocks, [&] { probs(j + 1); });
      with_values(j, [&](const pl::Tile<float>& pv) { values(pv, alpha_held); });
    }
    finish();
  }
};

}  // namespace pto::samples::flash_attention
