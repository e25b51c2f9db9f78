// PyPTO Pro idioms that must mean here what they mean in PyPTO Pro, each run as PyPTO Pro code
// writes it and checked against plain C++.
#include "common.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kTile = 256;

/// A mix kernel whose vector section adds x + y in tiles shared among every AIV of the launch,
/// numbered the PyPTO Pro way (hicann/pypto vector-add tutorial):
///   range(get_block_idx() * get_subblock_num() + get_subblock_idx(), n_tiles, get_block_num() * get_subblock_num())
/// The cube section is empty work: it only makes the kernel a mix kernel. Each AIV also records
/// what get_block_idx / get_block_num / get_subblock_idx return, in its row of `ids`.
auto make_mix_vector_add(const std::string& chip) {
  return pl::jit({.name = "pypto_mix_vadd_" + chip, .auto_mutex = true, .chip = chip, .mode = pto::ir::KernelMode::Mix},
                 [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z, pl::Tensor<float> zero8, pl::Tensor<float> ids) {
    const int64_t n = x.numel();
    pl::section_cube([&] {});
    pl::section_vector([&] {
      auto xs = pl::make_tile<float>(pl::Vec, {kTile});
      auto ys = pl::make_tile<float>(pl::Vec, {kTile});
      auto zs = pl::make_tile<float>(pl::Vec, {kTile});
      auto first = pl::get_block_idx() * pl::get_subblock_num() + pl::get_subblock_idx();
      auto stride = pl::get_block_num() * pl::get_subblock_num();
      for (auto t : pl::range(first, pl::ceil_div(n, kTile), stride)) {
        auto off = t * kTile;
        auto len = pl::min(kTile, n - off);
        pl::load(xs, x.slice(off, len));
        pl::load(ys, y.slice(off, len));
        zs = xs + ys;
        pl::store(z.slice(off, len), zs);
      }
      auto id = pl::make_tile<float>(pl::Vec, {1, 8});
      const pl::Int values[3] = {pl::get_block_idx(), pl::get_block_num(), pl::get_subblock_idx()};
      for (int v = 0; v < 3; ++v) {
        pl::load(id, zero8.slice(0, 1, 0, 8));
        id = id + values[v];
        pl::store(ids.slice(first, 1, v * 8, 8), id);
      }
    });
  });
}

}  // namespace

TEST_CASE("get_block_idx/get_block_num in a mix vector section are the block and block_dim, as in PyPTO Pro: "
          "the PyPTO Pro tile loop writes every element") {
  for (const std::string chip : {"a2", "a5"}) {
    for (int block_dim : {1, 3, 8}) {
      CAPTURE(chip);
      CAPTURE(block_dim);
      const int64_t n = 40000;  // 157 tiles, the last one a tail
      auto x = Tensor<float>::random({n}, 7), y = Tensor<float>::random({n}, 8);
      auto z = Tensor<float>::full({n}, -12345.0f);
      auto zero8 = Tensor<float>::zeros({1, 8});
      auto ids = Tensor<float>::full({2 * block_dim, 24}, -1.0f);
      auto k = make_mix_vector_add(chip);
      k[{.block_dim = block_dim}](x, y, z, zero8, ids);
      pto::synchronize();
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) wrong += z[i] != x[i] + y[i];
      CHECK(wrong == 0);
      for (int64_t v = 0; v < 2 * block_dim; ++v) {
        CAPTURE(v);
        CHECK(ids[v * 24 + 0] == static_cast<float>(v / 2));   // get_block_idx: the block
        CHECK(ids[v * 24 + 8] == static_cast<float>(block_dim));  // get_block_num: block_dim
        CHECK(ids[v * 24 + 16] == static_cast<float>(v % 2));  // get_subblock_idx
      }
    }
  }
}

TEST_CASE("auto_mutex is on by default, as in PyPTO Pro: a double-buffered kernel written without the option is race-free") {
  // The PyPTO Pro shape of a double-buffered elementwise kernel: tile groups of depth 2 and
  // `t = g.next()` per step, no flags, no JitOptions.
  const auto k = pl::jit({.name = "pypto_double_buffer"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    const int64_t n = x.numel();
    auto xs = pl::make_tile_group<float>(pl::Vec, {kTile}, {0, 1});
    auto zs = pl::make_tile_group<float>(pl::Vec, {kTile}, {0, 1});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      auto off = t * kTile;
      auto len = pl::min(kTile, n - off);
      auto xt = xs.next();
      auto zt = zs.next();
      pl::load(xt, x.slice(off, len));
      zt = xt * 3.0f + 1.0f;
      pl::store(z.slice(off, len), zt);
    }
  });
  const int64_t n = 10000;
  auto x = Tensor<float>::random({n}, 3);
  auto z = Tensor<float>::zeros({n});
  const LaunchProfile p = k[{.block_dim = 4}].run_sync(x, z);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += z[i] != x[i] * 3.0f + 1.0f;
  CHECK(wrong == 0);
  INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
  CHECK(p.races.empty());
}

TEST_CASE("a tile group's cursor starts on its last slot and next() returns the next tile, as in PyPTO Pro") {
  // Depth 3. Before any next(), current() is slot 2; step i loads tile i of x into g.next(),
  // which is slot i % 3. After the loop, slot s (by index) holds the last tile loaded into it.
  const auto k = pl::jit({.name = "pypto_cursor"}, [](pl::Tensor<float> x, pl::Tensor<float> out) {
    auto g = pl::make_tile_group<float>(pl::Vec, {1, 8}, {0, 1, 2});
    pl::load(g.current(), x.slice(0, 1, 0, 8));  // slot 2 := row 0
    for (auto i : pl::range(1, 5)) pl::load(g.next(), x.slice(i, 1, 0, 8));  // rows 1..4 into slots 0, 1, 2, 0
    for (int s = 0; s < 3; ++s) pl::store(out.slice(s, 1, 0, 8), g[s]);
    pl::store(out.slice(3, 1, 0, 8), g.current());  // the cursor: slot 0 (4 steps from slot 2)
  });
  auto x = Tensor<float>::random({5, 8}, 4);
  auto out = Tensor<float>::zeros({4, 8});
  k[{.block_dim = 1}].run_sync(x, out);
  const int64_t want_row[4] = {4, 2, 3, 4};  // slot 0: row 4 (after row 1), slot 1: row 2, slot 2: row 3 (after row 0)
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      CAPTURE(r);
      CHECK(out[r * 8 + c] == x[want_row[r] * 8 + c]);
    }
  }
}

}  // namespace pto::correctness

namespace pto::correctness {
namespace {

/// hicann/pypto python/tests/st/pypto_pro/frontend/tile_vector/test_layernorm.py, ported line by
/// line (written anew in C++): row-wise LayerNorm with tile ops and tile groups, row tiles strided
/// over the cores, the tail row tile narrowed with set_validshape. Differences: shapes are static
/// per specialisation here (PyPTO Pro: pl.DYNAMIC), and the per-row scalars are divided in their
/// [rows, 1] tile directly (PyPTO Pro aliases it with a [1, rows] row-major view, which needs
/// explicit tile addresses).
auto make_layernorm() {
  return pl::jit({.name = "pypto_layernorm", .chip = "a5"},
                 [](pl::Tensor<float> x, pl::Tensor<float> gamma, pl::Tensor<float> beta, pl::Tensor<float> y) {
    constexpr int64_t kTileRows = 16, kMaxN = 512;
    constexpr float kEps = 1e-5f;
    auto in_group = pl::make_tile_group<float>(pl::Vec, {kTileRows, kMaxN}, {0, 1});
    auto out_group = pl::make_tile_group<float>(pl::Vec, {kTileRows, kMaxN}, {2, 3});
    auto tmp_group = pl::make_tile_group<float>(pl::Vec, {kTileRows, kMaxN}, {4});
    auto xc_group = pl::make_tile_group<float>(pl::Vec, {kTileRows, kMaxN}, {5});
    auto ws_group = pl::make_tile_group<float>(pl::Vec, {kTileRows, kMaxN}, {6});
    auto red0_group = pl::make_tile_group<float>(pl::Vec, {kTileRows, 1}, {7});
    auto red1_group = pl::make_tile_group<float>(pl::Vec, {kTileRows, 1}, {9});
    auto gamma_group = pl::make_tile_group<float>(pl::Vec, {1, kMaxN}, {11});
    auto beta_group = pl::make_tile_group<float>(pl::Vec, {1, kMaxN}, {12});
    auto negbeta_group = pl::make_tile_group<float>(pl::Vec, {1, kMaxN}, {13});
    pl::section_vector([&] {
      const int64_t rows = x.dim(0), cols = x.dim(1);
      auto num_cores = pl::get_block_num();
      auto core_id = pl::get_block_idx();
      const int64_t num_tiles = (rows + kTileRows - 1) / kTileRows;

      auto gamma_slot = gamma_group.next();
      pl::set_validshape(gamma_slot, 1, cols);
      pl::load(gamma_slot, gamma, {0, 0});
      auto beta_slot = beta_group.next();
      pl::set_validshape(beta_slot, 1, cols);
      pl::load(beta_slot, beta, {0, 0});
      auto negbeta_slot = negbeta_group.next();
      pl::set_validshape(negbeta_slot, 1, cols);
      pl::mul(negbeta_slot, beta_slot, -1.0f);

      for (auto tile_id : pl::range(core_id, num_tiles, num_cores)) {
        auto row_off = tile_id * kTileRows;
        auto valid_rows = pl::min(kTileRows, rows - row_off);

        auto in_slot = in_group.next();
        pl::set_validshape(in_slot, valid_rows, cols);
        pl::load(in_slot, x, {row_off, 0});

        auto out_slot = out_group.next();
        auto tmp_slot = tmp_group.next();
        auto xc_slot = xc_group.next();
        auto ws_slot = ws_group.next();
        auto red0_slot = red0_group.next();
        auto red1_slot = red1_group.next();
        pl::set_validshape(out_slot, valid_rows, cols);
        pl::set_validshape(tmp_slot, valid_rows, cols);
        pl::set_validshape(xc_slot, valid_rows, cols);
        pl::set_validshape(ws_slot, valid_rows, cols);
        pl::set_validshape(red0_slot, valid_rows, 1);
        pl::set_validshape(red1_slot, valid_rows, 1);

        pl::row_sum(red0_slot, in_slot, tmp_slot);           // red0 = sum(x)
        pl::div(red0_slot, red0_slot, static_cast<float>(cols));  // red0 = mean

        pl::row_expand_sub(xc_slot, in_slot, red0_slot);     // xc = x - mean

        pl::mul(tmp_slot, xc_slot, xc_slot);                 // tmp = xc^2
        pl::row_sum(red1_slot, tmp_slot, ws_slot);           // red1 = sum(xc^2)
        pl::div(red1_slot, red1_slot, static_cast<float>(cols));  // red1 = var
        pl::add(red1_slot, red1_slot, kEps);                 // var + eps
        pl::rsqrt(red1_slot, red1_slot);                     // 1 / sqrt(var + eps)

        pl::row_expand_mul(xc_slot, xc_slot, red1_slot);     // xc / std
        pl::col_expand_mul(xc_slot, xc_slot, gamma_slot);    // * gamma
        pl::col_expand_sub(out_slot, xc_slot, negbeta_slot); // - (-beta) == + beta

        pl::store(y, out_slot, {row_off, 0});
      }
    });
  });
}

}  // namespace

TEST_CASE("PyPTO Pro's layernorm tile-vector test, ported line by line, matches a double-precision LayerNorm (rtol/atol 1e-3 as "
          "the original; we hold it to 1e-4)") {
  const auto k = make_layernorm();
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1000, 200}, {77, 300}, {100, 512}, {2049, 100}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto x = Tensor<float>::random({rows, cols}, 30, -4.0, 4.0);
    auto gamma = Tensor<float>::random({1, cols}, 31, 0.5, 1.5), beta = Tensor<float>::random({1, cols}, 32, -0.5, 0.5);
    auto y = Tensor<float>::full({rows, cols}, -99.0f);
    const int64_t num_tiles = (rows + 15) / 16;
    const auto p = k[{.block_dim = static_cast<int>(std::min<int64_t>(32, num_tiles))}].run_sync(x, gamma, beta, y);
    CHECK(p.races.empty());
    int64_t wrong = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c) mean += x[r * cols + c];
      mean /= static_cast<double>(cols);
      for (int64_t c = 0; c < cols; ++c) var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
      var /= static_cast<double>(cols);
      for (int64_t c = 0; c < cols; ++c) {
        const double want = (x[r * cols + c] - mean) / std::sqrt(var + 1e-5) * gamma[c] + beta[c];
        wrong += std::fabs(y[r * cols + c] - want) > 1e-4 * (1 + std::fabs(want));
      }
    }
    CHECK(wrong == 0);
  }
}

}  // namespace pto::correctness

namespace pto::correctness {
namespace {

/// hicann/pypto docs/zh/pypto_pro/tutorials/quick_start/CV_fused_operator_quick_start.md, the
/// Tile API version (Matmul + Softmax), ported line by line (written anew in C++): the AIC computes
/// S = A x B in 64-column blocks into a GM workspace and signals the AIVs once; each AIV takes 32
/// rows of S and runs the three passes (row max over the N blocks, the sum of exp, the
/// normalisation). Differences: shapes are static per specialisation (PyPTO Pro: pl.DYNAMIC), and
/// the per-row maxima and sums are combined in their [rows, 1] tiles directly (PyPTO Pro aliases
/// each with a [1, rows] row-major view at the same UB address, which needs explicit addresses).
auto make_cv_fused_matmul_softmax() {
  return pl::jit({.name = "pypto_cv_fused_matmul_softmax", .auto_mutex = true},
                 [](pl::Tensor<half> a, pl::Tensor<half> b, pl::Tensor<float> out, pl::Tensor<float> workspace) {
    constexpr int64_t kTileM = 64, kTileN = 64, kVecRows = 32, kK = 128;
    const int64_t M = a.dim(0), N = b.dim(1);
    const int64_t n_tiles = (N + kTileN - 1) / kTileN;
    const int64_t valid_m = std::min(kTileM, M);

    // Cube tiles: S = A x B.
    auto a_l1 = pl::make_tile_group<half>(pl::Mat, {kTileM, kK}, {0});
    auto b_l1 = pl::make_tile_group<half>(pl::Mat, {kK, kTileN}, {1});
    auto a_l0a = pl::make_tile_group<half>(pl::Left, {kTileM, kK}, {2});
    auto b_l0b = pl::make_tile_group<half>(pl::Right, {kK, kTileN}, {3});
    auto qk_l0c = pl::make_tile_group<float>(pl::Acc, {kTileM, kTileN}, {4});

    // Vector tiles: each AIV handles up to 32 rows of S, three passes along the N blocks.
    auto qk_vec = pl::make_tile_group<float>(pl::Vec, {kVecRows, kTileN}, {5});
    auto tmp_vec = pl::make_tile_group<float>(pl::Vec, {kVecRows, kTileN}, {6});
    auto exp_vec = pl::make_tile_group<float>(pl::Vec, {kVecRows, kTileN}, {7});
    auto red_vec = pl::make_tile_group<float>(pl::Vec, {kVecRows, 1}, {8});
    auto global_max = pl::make_tile_group<float>(pl::Vec, {kVecRows, 1}, {10});
    auto global_sum = pl::make_tile_group<float>(pl::Vec, {kVecRows, 1}, {12});

    pl::section_cube([&] {
      auto cur_a_l1 = a_l1.current();
      auto cur_b_l1 = b_l1.current();
      auto cur_a_l0a = a_l0a.current();
      auto cur_b_l0b = b_l0b.current();
      auto cur_qk_l0c = qk_l0c.current();
      for (auto nj : pl::range(0, n_tiles, 1)) {
        auto n_off = nj * kTileN;
        auto valid_n = pl::min(kTileN, N - n_off);
        pl::set_validshape(cur_qk_l0c, valid_m, valid_n);
        pl::set_validshape(cur_a_l1, valid_m, kK);
        pl::set_validshape(cur_b_l1, kK, valid_n);
        pl::load(cur_a_l1, a, {0, 0});
        pl::load(cur_b_l1, b, {0, n_off});
        pl::set_validshape(cur_a_l0a, valid_m, kK);
        pl::set_validshape(cur_b_l0b, kK, valid_n);
        pl::move(cur_a_l0a, cur_a_l1);
        pl::move(cur_b_l0b, cur_b_l1);
        pl::matmul(cur_qk_l0c, cur_a_l0a, cur_b_l0b);
        pl::store(workspace, cur_qk_l0c, {0, n_off});
      }
      pl::set_cross_core(pl::Pipe::FIX, 0);
    });

    pl::section_vector([&] {
      auto sub_id = pl::get_subblock_idx();
      pl::wait_cross_core(pl::Pipe::MTE2, 0);
      auto m_off = sub_id * kVecRows;
      pl::if_(m_off < M, [&] {
        auto valid_rows = pl::min(kVecRows, M - m_off);
        auto cur_qk = qk_vec.current();
        auto cur_tmp = tmp_vec.current();
        auto cur_exp = exp_vec.current();
        auto cur_red = red_vec.current();
        auto cur_global_max = global_max.current();
        auto cur_global_sum = global_sum.current();
        pl::set_validshape(cur_red, valid_rows, 1);
        pl::set_validshape(cur_global_max, valid_rows, 1);
        pl::set_validshape(cur_global_sum, valid_rows, 1);

        // Pass 1: the row maxima of every N block, combined.
        for (auto nj : pl::range(0, n_tiles, 1)) {
          auto n_off = nj * kTileN;
          auto valid_n = pl::min(kTileN, N - n_off);
          pl::set_validshape(cur_qk, valid_rows, valid_n);
          pl::set_validshape(cur_tmp, valid_rows, valid_n);
          pl::load(cur_qk, workspace, {m_off, n_off});
          pl::maximum(cur_red, cur_qk, cur_tmp, 0);
          pl::if_(nj == 0, [&] { pl::mul(cur_global_max, cur_red, 1.0f); },
                  [&] { pl::maximum(cur_global_max, cur_global_max, cur_red); });
        }

        // Pass 2: the sums of exp(S - max) of every N block, accumulated.
        for (auto nj : pl::range(0, n_tiles, 1)) {
          auto n_off = nj * kTileN;
          auto valid_n = pl::min(kTileN, N - n_off);
          pl::set_validshape(cur_qk, valid_rows, valid_n);
          pl::set_validshape(cur_tmp, valid_rows, valid_n);
          pl::set_validshape(cur_exp, valid_rows, valid_n);
          pl::load(cur_qk, workspace, {m_off, n_off});
          pl::expand_sub(cur_exp, cur_qk, cur_global_max, 0);
          pl::exp(cur_exp, cur_exp);
          pl::sum(cur_red, cur_exp, cur_tmp, 0);
          pl::if_(nj == 0, [&] { pl::mul(cur_global_sum, cur_red, 1.0f); },
                  [&] { pl::add(cur_global_sum, cur_global_sum, cur_red); });
        }

        // Pass 3: normalise block by block and store.
        for (auto nj : pl::range(0, n_tiles, 1)) {
          auto n_off = nj * kTileN;
          auto valid_n = pl::min(kTileN, N - n_off);
          pl::set_validshape(cur_qk, valid_rows, valid_n);
          pl::set_validshape(cur_exp, valid_rows, valid_n);
          pl::load(cur_qk, workspace, {m_off, n_off});
          pl::expand_sub(cur_exp, cur_qk, cur_global_max, 0);
          pl::exp(cur_exp, cur_exp);
          pl::expand_div(cur_exp, cur_exp, cur_global_sum, 0);
          pl::store(out, cur_exp, {m_off, n_off});
        }
      });
    });
  });
}

}  // namespace

TEST_CASE("PyPTO Pro's CV-fused quick start (Matmul + Softmax, Tile API), ported line by line: the workspace is A x B and "
          "out is its row softmax (the tutorial checks 1e-2; we hold it to float roundings)") {
  const auto k = make_cv_fused_matmul_softmax();
  for (auto [M, N] : {std::pair<int64_t, int64_t>{48, 1024}, {1, 64}, {33, 100}, {64, 4096}}) {
    CAPTURE(M);
    CAPTURE(N);
    // The tutorial scales standard normal inputs by 0.1; uniform [-0.3, 0.3] has about that spread.
    auto a = Tensor<half>::random({M, 128}, 40, -0.3, 0.3), b = Tensor<half>::random({128, N}, 41, -0.3, 0.3);
    auto out = Tensor<float>::full({M, N}, -5.0f), workspace = Tensor<float>::zeros({M, N});
    const auto p = k[{.block_dim = 1}].run_sync(a, b, out, workspace);
    INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
    CHECK(p.races.empty());
    int64_t wrong_s = 0, wrong_out = 0;
    for (int64_t i = 0; i < M; ++i) {
      std::vector<double> s(static_cast<size_t>(N));
      double row_max = -1e300;
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0, mag = 0;
        for (int64_t q = 0; q < 128; ++q) {
          const double t = static_cast<double>(static_cast<float>(a[i * 128 + q])) * static_cast<double>(static_cast<float>(b[q * N + j]));
          acc += t;
          mag += std::fabs(t);
        }
        s[static_cast<size_t>(j)] = acc;
        row_max = std::max(row_max, acc);
        wrong_s += std::fabs(workspace[i * N + j] - acc) > 128 * 0x1p-24 * (mag + 1e-30);
      }
      double denom = 0;
      for (double v : s) denom += std::exp(v - row_max);
      for (int64_t j = 0; j < N; ++j) {
        const double want = std::exp(s[static_cast<size_t>(j)] - row_max) / denom;
        wrong_out += std::fabs(out[i * N + j] - want) > 1e-5 * want + 1e-9;
      }
    }
    CHECK(wrong_s == 0);
    CHECK(wrong_out == 0);
  }
}

}  // namespace pto::correctness
