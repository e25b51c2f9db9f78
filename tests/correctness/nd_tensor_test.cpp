// N-D tensors and strided views against plain C++: 4-D and 5-D tensors cut into 2-D matrices by
// fixing leading dimensions (x[b][h], select, load by N offsets), with tails; a kernel-side
// permute (a transposed matrix read column by column); pl::make_tensor views of a flat buffer;
// host views (permute, narrow, select) as arguments, the output's other elements untouched; dynamic dimensions of an N-D tensor; and the
// race checker seeing two views of one buffer as one memory.
#include "common.hpp"

namespace pto::correctness {
namespace {

uint64_t specialisations() {
  const auto s = pto::runtime_stats();
  return s.compiles + s.disk_loads;
}

}  // namespace

TEST_CASE_TEMPLATE("a 4-D [B, H, S, D] tensor: each (b, h) matrix in row tiles with a tail, by x[b][h] and by load offsets", T, float,
                   half) {
  constexpr int64_t B = 2, H = 3, S = 37, D = 64, kRows = 8;
  const auto k = pl::jit({.name = "nd_bhsd_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> y, pl::Tensor<T> z) {
    auto t = pl::make_tile<T>(pl::Vec, {kRows, D});
    const int64_t row_tiles = (x.dim(2) + kRows - 1) / kRows;
    for (auto i : pl::range(pl::get_block_idx(), x.dim(0) * x.dim(1) * row_tiles, pl::get_block_num())) {
      const pl::Int b = i / (x.dim(1) * row_tiles), h = i / row_tiles % x.dim(1), r = i % row_tiles * kRows;
      const pl::Int rows = pl::min(kRows, x.dim(2) - r);
      pl::load(t, x[b][h].slice(r, rows, 0, D));
      t = t * 2 + 1;
      pl::store(y[b][h].slice(r, rows, 0, D), t);
      pl::set_validshape(t, rows, D);
      pl::store(z, t, {b, h, r, 0});  // the PyPTO Pro form: one offset per dimension, the tile's valid shape
    }
  });
  auto x = pto::Tensor<T>::random({B, H, S, D}, 3, -4, 4);
  auto y = pto::Tensor<T>::zeros({B, H, S, D});
  auto z = pto::Tensor<T>::zeros({B, H, S, D});
  k[{.block_dim = 5}](x, y, z);
  pto::synchronize();
  check_all(y, [&](int64_t i) { return narrow<T>(widen(x[i]) * 2 + 1); });
  check_all(z, [&](int64_t i) { return narrow<T>(widen(x[i]) * 2 + 1); });
}

TEST_CASE("a 5-D tensor with a dynamic leading dimension: select fixes any dimension, one kernel for every extent") {
  constexpr int64_t C = 3, P = 2, R = 4, W = 32;
  // y[n, c, p] = x[n, c, p] + c: each [R, W] matrix, the middle dimensions fixed by select.
  const auto k = pl::jit({.name = "nd_five"}, [](pl::Tensor<float, pl::DYNAMIC, C, P, R, W> x, pl::Tensor<float, pl::DYNAMIC, C, P, R, W> y) {
    auto t = pl::make_tile<float>(pl::Vec, {R, W});
    for (auto i : pl::range(pl::get_block_idx(), x.extent(0) * (C * P), pl::get_block_num())) {
      const pl::Int n = i / (C * P), c = i / P % C, p = i % P;
      pl::load(t, x.select(0, n).select(0, c).select(0, p).slice(0, R, 0, W));
      t = t + pl::to_float(c);
      pl::store(y[n].select(1, p).select(0, c).slice(0, R, 0, W), t);  // the same matrix, dimensions fixed in another order
    }
  });
  const uint64_t before = specialisations();
  for (int64_t n : {1, 3}) {
    auto x = pto::Tensor<float>::random({n, C, P, R, W}, static_cast<uint64_t>(n));
    auto y = pto::Tensor<float>::zeros({n, C, P, R, W});
    k[{.block_dim = 4}](x, y);
    pto::synchronize();
    check_all(y, [&](int64_t i) { return x[i] + static_cast<float>(i / (P * R * W) % C); });
  }
  CHECK(specialisations() == before + 1);
}

TEST_CASE_TEMPLATE("a kernel-side permute: the transposed matrix's windows are read column by column, with tails", T, float, int32_t) {
  constexpr int64_t kTile = 16;
  // y = x^T for x [M, N], through x.permute({1, 0}) (an [N, M] view with strides (1, N)).
  const auto k = pl::jit({.name = "nd_transpose_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> y) {
    const auto xt = x.permute({1, 0});
    auto t = pl::make_tile<T>(pl::Vec, {kTile, kTile});
    const int64_t rt = (xt.dim(0) + kTile - 1) / kTile, ct = (xt.dim(1) + kTile - 1) / kTile;
    for (auto i : pl::range(pl::get_block_idx(), rt * ct, pl::get_block_num())) {
      const pl::Int r = i / ct * kTile, c = i % ct * kTile;
      const pl::Int h = pl::min(kTile, xt.dim(0) - r), w = pl::min(kTile, xt.dim(1) - c);
      pl::load(t, xt.slice(r, h, c, w));
      pl::store(y.slice(r, h, c, w), t);
    }
  });
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{16, 16}, {21, 35}, {1, 40}}) {
    CAPTURE(m);
    CAPTURE(n);
    auto x = pto::Tensor<T>::random({m, n}, 5, -50, 50);
    auto y = pto::Tensor<T>::full({n, m}, T(7));
    k[{.block_dim = 3}](x, y);
    pto::synchronize();
    check_all(y, [&](int64_t i) { return x.at(i % m, i / m); });
  }
}

TEST_CASE("host views as arguments: a permuted [S, B, D] as [B, S, D], a narrowed input, a narrowed output; the rest untouched") {
  constexpr int64_t S = 10, B = 3, D = 32;
  // y[b] = x[b] * 3 for 3-D tensors of any strides.
  const auto k = pl::jit({.name = "nd_host_views"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {16, D});
    for (auto b : pl::range(pl::get_block_idx(), x.dim(0), pl::get_block_num())) {
      pl::load(t, x[b].slice(0, x.dim(1), 0, D));
      t = t * 3;
      pl::store(y[b].slice(0, x.dim(1), 0, D), t);
    }
  });
  auto sbd = pto::Tensor<float>::random({S, B, D}, 9);
  const auto bsd = sbd.permute({1, 0, 2});  // [B, S, D], strides (D, B * D, 1): not contiguous
  REQUIRE_FALSE(bsd.is_contiguous());
  auto y = pto::Tensor<float>::zeros({B, S, D});
  k[{.block_dim = 2}](bsd, y);
  pto::synchronize();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t s = 0; s < S; ++s) {
      for (int64_t d = 0; d < D; ++d) CHECK(y.at(b, s, d) == sbd.at(s, b, d) * 3);
    }
  }
  // Rows 2..7 of a [B, S, D] input into rows 1..6 of a bigger output: everything else stays 5.
  auto big = pto::Tensor<float>::full({B, S, D}, 5.0f);
  const auto in = y.narrow(1, 2, 6);
  auto out = big.narrow(1, 1, 6);
  k[{.block_dim = 3}](in, out);
  pto::synchronize();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t s = 0; s < S; ++s) {
      for (int64_t d = 0; d < D; ++d) {
        CAPTURE(s);
        CHECK(big.at(b, s, d) == (s >= 1 && s < 7 ? y.at(b, s + 1, d) * 3 : 5.0f));
      }
    }
  }
  // A selected [S, D] matrix of the permuted view (still strided) through a 2-D kernel.
  const auto k2 = pl::jit({.name = "nd_select_view"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {16, D});
    pl::load(t, x.slice(0, x.dim(0), 0, D));
    t = t - 1;
    pl::store(y.slice(0, x.dim(0), 0, D), t);
  });
  auto m = pto::Tensor<float>::zeros({S, D});
  k2[{.block_dim = 1}](bsd.select(0, 1), m);
  pto::synchronize();
  for (int64_t s = 0; s < S; ++s) {
    for (int64_t d = 0; d < D; ++d) CHECK(m.at(s, d) == sbd.at(s, 1, d) - 1);
  }
}

TEST_CASE("pl::make_tensor: a flat buffer as a column-major matrix, and as row-major rows of a runtime count") {
  constexpr int64_t M = 12, N = 40, kTile = 16;
  // y = the column-major [M, N] matrix stored in x (element (r, c) at c * M + r), tile by tile.
  const auto k = pl::jit({.name = "nd_make_tensor"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    const auto cm = pl::make_tensor(x, {M, N}, {1, M});
    auto t = pl::make_tile<float>(pl::Vec, {kTile, kTile});
    for (auto j : pl::range(pl::get_block_idx(), (N + kTile - 1) / kTile, pl::get_block_num())) {
      const pl::Int c = j * kTile, w = pl::min(kTile, N - c);
      pl::load(t, cm.slice(0, M, c, w));
      pl::store(y.slice(0, M, c, w), t);
    }
  });
  auto x = pto::Tensor<float>::random({M * N}, 4);
  auto y = pto::Tensor<float>::zeros({M, N});
  k[{.block_dim = 2}](x, y);
  pto::synchronize();
  check_all(y, [&](int64_t i) { return x[(i % N) * M + i / N]; });
  // Runtime extents and offset: rows [1, 1 + rows) of a flat buffer read as rows of 32.
  const auto rows_of = pl::jit({.name = "nd_make_tensor_runtime"}, [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int rows) {
    const auto m = pl::make_tensor(x, {rows, 32}, {32, 1}, 32);
    auto t = pl::make_tile<float>(pl::Vec, {8, 32});
    pl::load(t, m.slice(0, rows, 0, 32));
    t = t + 1;
    pl::store(y.slice(0, rows, 0, 32), t);
  });
  auto flat = pto::Tensor<float>::random({8 * 32}, 6);
  auto out = pto::Tensor<float>::full({8, 32}, -1.0f);
  rows_of[{.block_dim = 1}](flat, out, int64_t{5});
  pto::synchronize();
  check_all(out, [&](int64_t i) { return i < 5 * 32 ? flat[i + 32] + 1 : -1.0f; });
}

TEST_CASE("two overlapping host views of one buffer are one memory to the race checker") {
  const auto k = pl::jit({.name = "nd_view_race", .on_race = pto::OnRace::report}, [](pl::Tensor<float> a, pl::Tensor<float> b) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    t = 1.0f;
    pl::if_(pl::get_block_idx() == 0, [&] { pl::store(a.slice(0, 8, 0, 64), t); }, [&] { pl::store(b.slice(0, 8, 0, 64), t); });
  });
  auto buf = pto::Tensor<float>::zeros({16, 64});
  const pto::LaunchProfile overlapping = k[{.block_dim = 2}].run_sync(buf.narrow(0, 0, 8), buf.narrow(0, 4, 8));  // rows 4..7 twice
  REQUIRE_FALSE(overlapping.races.empty());
  CHECK(overlapping.races.front().between_blocks);
  const pto::LaunchProfile apart = k[{.block_dim = 2}].run_sync(buf.narrow(0, 0, 8), buf.narrow(0, 8, 8));
  CHECK(apart.races.empty());
}

}  // namespace pto::correctness
