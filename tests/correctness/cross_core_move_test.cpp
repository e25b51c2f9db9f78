// The cross-core moves of the a5 profile, against the plain C++ matmul reference:
//   * Acc -> Vec (FIX, on the AIC): C = A x B lands in the AIVs' UB in each AccToVecMode
//     (whole to AIV 0 or AIV 1, rows or columns split between them), converted to float, half,
//     bfloat16 or kept int32; each AIV declares what it got with set_validshape and stores it.
//   * Vec -> Mat (MTE3, on an AIV): the AIVs load and double their halves of A (split by rows or
//     by columns) and move them into the AIC's L1 at an offset; the AIC multiplies 2A x B.
// Tails in M, N and K, one and two blocks; the timing model charges the path to FIX / MTE3; the
// race checker follows the cross-core flags into the other core's memory (no race when the
// receiver waits, a RAW race when it does not).
#include "common.hpp"
#include "matmul_reference.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kTM = 40, kTN = 64, kTK = 64;  // one output tile per block; K and N fit one tile
constexpr int kReady = 0;                        // cross-core event

using Mode = pl::AccToVecMode;

/// PyPTO Pro's split, traced into the kernel (the AIV's side of set_validshape): the part of an
/// m x n accumulator AIV `sub` receives, rows [r0, r0 + rows) and columns [c0, c0 + cols).
struct IntPart {
  pl::Int r0, rows, c0, cols;
};
IntPart traced_part(Mode mode, const pl::Int& m, const pl::Int& n, const pl::Int& sub) {
  switch (mode) {
    case Mode::SingleModeVec0: return {0, (1 - sub) * m, 0, n};
    case Mode::SingleModeVec1: return {0, sub * m, 0, n};
    case Mode::DualModeSplitM: {
      auto h = (m + 1) / 2;
      return {sub * h, h - sub * (2 * h - m), 0, n};
    }
    case Mode::DualModeSplitN: {
      auto h = pl::min(n, (n + 31) / 32 * 16);
      return {0, m, sub * h, h - sub * (2 * h - n)};
    }
  }
  return {0, 0, 0, 0};
}

/// The Vec tile that holds the largest part of a kTM x kTN accumulator in `mode`.
std::vector<int64_t> vec_tile_shape(Mode mode) {
  if (mode == Mode::DualModeSplitM) return {(kTM + 1) / 2, kTN};
  if (mode == Mode::DualModeSplitN) return {kTM, kTN / 2};
  return {kTM, kTN};
}

/// C = A x B with the cube's result sent to the AIVs by an Acc -> Vec move; each AIV stores its part.
template <class In, class Out>
auto make_acc_to_vec(Mode mode, bool wait_for_flag = true) {
  const std::string name = "acc_to_vec_" + type_name<In>() + "_" + type_name<Out>() + "_" + ir::acc_to_vec_name(mode);
  return pl::jit({.name = name, .auto_mutex = true, .chip = "a5", .timing = true, .race_check = true},
                 [mode, wait_for_flag](pl::Tensor<In> a, pl::Tensor<In> b, pl::Tensor<Out> c) {
    const int64_t M = a.dim(0), K = a.dim(1), N = b.dim(1);
    pl::require(K <= kTK && N <= kTN, "one K step and one column of tiles");
    using Acc = pl::accumulator_t<In>;
    auto vec = pl::make_tile<Out>(pl::Vec, vec_tile_shape(mode));
    pl::section_cube([&] {
      auto am = pl::make_tile<In>(pl::Mat, {kTM, kTK});
      auto bm = pl::make_tile<In>(pl::Mat, {kTK, kTN});
      auto l = pl::make_tile<In>(pl::Left, {kTM, kTK});
      auto r = pl::make_tile<In>(pl::Right, {kTK, kTN});
      auto acc = pl::make_tile<Acc>(pl::Acc, {kTM, kTN});
      auto m0 = pl::get_block_idx() * kTM;
      pl::load(am, a.slice(m0, pl::min(kTM, M - m0), 0, K));
      pl::load(bm, b.slice(0, K, 0, N));
      pl::move(l, am);
      pl::move(r, bm);
      pl::matmul(acc, l, r);
      pl::move(vec, acc, {.acc_to_vec_mode = mode});
      pl::set_cross_core(pl::Pipe::FIX, kReady);
    });
    pl::section_vector([&] {
      auto m0 = pl::get_block_idx() * kTM;
      auto p = traced_part(mode, pl::min(kTM, M - m0), N, pl::get_subblock_idx());
      if (wait_for_flag) pl::wait_cross_core(pl::Pipe::MTE3, kReady);
      pl::set_validshape(vec, p.rows, p.cols);
      pl::if_(p.rows * p.cols > 0, [&] { pl::store(c.slice(m0 + p.r0, p.rows, p.c0, p.cols), vec); });  // an empty part may sit unaligned
    });
  });
}

template <class In, class Out>
void check_acc_to_vec(Mode mode, int64_t M, int64_t N, int64_t K, uint64_t seed) {
  const std::string mode_name = ir::acc_to_vec_name(mode);
  CAPTURE(mode_name);
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  const auto k = make_acc_to_vec<In, Out>(mode);
  auto a = mm_input<In>({M, K}, seed), b = mm_input<In>({K, N}, seed + 1);
  auto c = pto::Tensor<Out>::full({M, N}, Out(777.0f));  // not a possible product: unwritten elements fail
  const int bd = static_cast<int>((M + kTM - 1) / kTM);
  const pto::LaunchProfile p = k[{.block_dim = bd}].run_sync(a, b, c);
  check_product(c, reference(a, b, false), K);
  CHECK(p.mode == "mix");
  INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
  CHECK(p.races.empty());
  // The AIC's FIX pipe carries the move; the AIVs never read GM.
  const auto fix = static_cast<size_t>(ir::Pipe::FIX), mte2 = static_cast<size_t>(ir::Pipe::MTE2);
  for (int blk = 0; blk < bd; ++blk) {
    CHECK(p.cores[3 * blk].pipes[fix].busy > 0);
    CHECK(p.cores[3 * blk + 1].pipes[mte2].instructions == 0);
    CHECK(p.cores[3 * blk + 2].pipes[mte2].instructions == 0);
  }
}

template <class In, class Out>
void check_acc_to_vec_all_modes(uint64_t seed) {
  for (Mode mode : {Mode::SingleModeVec0, Mode::SingleModeVec1, Mode::DualModeSplitM, Mode::DualModeSplitN}) {
    check_acc_to_vec<In, Out>(mode, 40, 64, 64, seed);     // aligned: one full tile
    check_acc_to_vec<In, Out>(mode, 77, 45, 50, seed + 2);  // tails: 40 + 37 rows (an odd split), 45 columns, K = 50
    check_acc_to_vec<In, Out>(mode, 1, 13, 7, seed + 4);    // one row, 13 columns: the split gives AIV 1 nothing
  }
}

}  // namespace

TEST_CASE("Acc -> Vec in every AccToVecMode: float accumulators to float, half and bfloat16 Vec tiles") {
  check_acc_to_vec_all_modes<float, float>(100);
  check_acc_to_vec_all_modes<half, half>(110);
  check_acc_to_vec_all_modes<bfloat16, bfloat16>(120);
  check_acc_to_vec_all_modes<half, float>(130);
}

TEST_CASE("Acc -> Vec of an int32 accumulator (int8 inputs) is exact in every mode") {
  check_acc_to_vec_all_modes<int8_t, int32_t>(140);
}

TEST_CASE("Acc -> Vec splits at PyPTO Pro's edges: 37 rows as 19 + 18; 16 columns all to AIV 0; 33 columns as 32 + 1") {
  // The emulator's split must equal the kernel's traced_part, or stored parts miss or overlap.
  check_acc_to_vec<float, float>(Mode::DualModeSplitM, 37, 8, 16, 160);
  check_acc_to_vec<float, float>(Mode::DualModeSplitN, 4, 16, 16, 162);
  check_acc_to_vec<float, float>(Mode::DualModeSplitN, 4, 33, 16, 164);
}

TEST_CASE("the race checker follows an Acc -> Vec move into the AIV's UB: reading before the flag is a RAW race") {
  const auto k = make_acc_to_vec<float, float>(Mode::DualModeSplitM, /*wait_for_flag=*/false);
  auto a = mm_input<float>({40, 64}, 150), b = mm_input<float>({64, 64}, 151);
  auto c = pto::Tensor<float>::zeros({40, 64});
  const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(a, b, c);
  REQUIRE(!p.races.empty());
  bool found = false;
  for (const auto& r : p.races) {
    const std::string m = r.message();
    INFO(m);
    found |= r.kind == "RAW" && m.find("of AIV 0") != std::string::npos && m.find("[FIX on the AIC]") != std::string::npos &&
             m.find("[MTE3 on AIV 0]") != std::string::npos;
  }
  CHECK(found);
}

namespace {

/// C = 2A x B where the AIVs load and double A and move it into the AIC's L1: by rows (AIV s
/// gives rows [s * ceil(m / 2), ...)) or by columns (AIV s gives columns [32 s, 32 s + 32)).
template <class In>
auto make_vec_to_mat(bool split_columns) {
  const std::string name = "vec_to_mat_" + type_name<In>() + (split_columns ? "_cols" : "_rows");
  return pl::jit({.name = name, .auto_mutex = true, .chip = "a5", .timing = true, .race_check = true},
                 [split_columns](pl::Tensor<In> a, pl::Tensor<In> b, pl::Tensor<pl::accumulator_t<In>> c) {
    const int64_t M = a.dim(0), K = a.dim(1), N = b.dim(1);
    pl::require(K <= kTK && N <= kTN, "one K step and one column of tiles");
    using Acc = pl::accumulator_t<In>;
    auto am = pl::make_tile<In>(pl::Mat, {kTM, kTK});
    pl::section_vector([&] {
      auto m0 = pl::get_block_idx() * kTM;
      auto mlen = pl::min(kTM, M - m0);
      auto sub = pl::get_subblock_idx();
      if (split_columns) {
        auto va = pl::make_tile<In>(pl::Vec, {kTM, kTK / 2});
        auto k0 = sub * (kTK / 2);
        pl::if_(k0 < K, [&] {  // K <= 32: AIV 1 has no columns to give
          pl::load(va, a.slice(m0, mlen, k0, pl::min(kTK / 2, K - k0)));
          if constexpr (is_float_v<In>) va = va * 2.0f;
          pl::move(am, va, {.offset = {0, k0}});
        });
      } else {
        auto va = pl::make_tile<In>(pl::Vec, {(kTM + 1) / 2, kTK});
        auto h = (mlen + 1) / 2;
        auto first = sub * h;
        pl::load(va, a.slice(m0 + first, pl::max(0, pl::min(h, mlen - first)), 0, K));
        if constexpr (is_float_v<In>) va = va * 2.0f;
        pl::move(am, va, {.offset = {first, 0}});
      }
      pl::set_cross_core(pl::Pipe::MTE3, kReady);
    });
    pl::section_cube([&] {
      auto bm = pl::make_tile<In>(pl::Mat, {kTK, kTN});
      auto l = pl::make_tile<In>(pl::Left, {kTM, kTK});
      auto r = pl::make_tile<In>(pl::Right, {kTK, kTN});
      auto acc = pl::make_tile<Acc>(pl::Acc, {kTM, kTN});
      auto m0 = pl::get_block_idx() * kTM;
      auto mlen = pl::min(kTM, M - m0);
      pl::load(bm, b.slice(0, K, 0, N));
      pl::move(r, bm);
      pl::wait_cross_core(pl::Pipe::MTE1, kReady);  // one flag from each AIV
      pl::set_validshape(am, mlen, K);
      pl::move(l, am);
      pl::matmul(acc, l, r);
      pl::store(c.slice(m0, mlen, 0, N), acc);
    });
  });
}

template <class In>
void check_vec_to_mat(bool split_columns, int64_t M, int64_t N, int64_t K, uint64_t seed) {
  CAPTURE(split_columns);
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  using Acc = pl::accumulator_t<In>;
  const auto k = make_vec_to_mat<In>(split_columns);
  auto a = mm_input<In>({M, K}, seed), b = mm_input<In>({K, N}, seed + 1);
  auto a2 = copy_of(a);  // what the AIVs hand the cube: 2A for floats (exact), A for int8
  if constexpr (is_float_v<In>) {
    for (int64_t i = 0; i < a2.numel(); ++i) a2[i] = In(2.0f * static_cast<float>(a[i]));
  }
  auto c = pto::Tensor<Acc>::full({M, N}, Acc(777));
  const int bd = static_cast<int>((M + kTM - 1) / kTM);
  const pto::LaunchProfile p = k[{.block_dim = bd}].run_sync(a, b, c);
  check_product(c, reference(a2, b, false), K);
  INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
  CHECK(p.races.empty());
  const auto mte3 = static_cast<size_t>(ir::Pipe::MTE3);
  CHECK(p.cores[1].pipes[mte3].busy > 0);  // AIV 0's MTE3 carries its move
}

}  // namespace

TEST_CASE("Vec -> Mat: the AIVs fill the AIC's L1 tile by rows or by columns (offsets), for every cube input dtype") {
  for (bool cols : {false, true}) {
    check_vec_to_mat<float>(cols, 40, 64, 64, 200);
    check_vec_to_mat<float>(cols, 77, 45, 50, 202);  // tails; by columns AIV 1 gives 18 of K = 50
    check_vec_to_mat<half>(cols, 77, 45, 50, 204);
    check_vec_to_mat<bfloat16>(cols, 40, 64, 64, 206);
    check_vec_to_mat<int8_t>(cols, 77, 45, 50, 208);
    check_vec_to_mat<half>(cols, 3, 5, 20, 210);  // by columns AIV 1 has nothing to give (K = 20 < 32)
  }
}

}  // namespace pto::correctness
