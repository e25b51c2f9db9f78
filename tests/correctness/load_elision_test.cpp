// Load elision (pto/backend/LoadElision.hpp): which loads the generated code may skip because the
// expressions after them read the GM region itself, and that results stay those of plain C++
// whether a load is elided or not — 1-D tiles with tails on many cores, in place, 2-D windows of a
// wider tensor read twice across a row reduction, dynamic extents; and the loads that must still
// copy (a store between the load and its reader, a tile a store or a broadcast reads, a placed
// group). The suite also runs on the interpreter, which always copies.
#include "common.hpp"

#include "pto/backend/LoadElision.hpp"
#include "../../samples/03_matmul/matmul.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kTile = 512;

/// z = x + y, double-buffered like sample 01.
template <class T, class Param = pl::Tensor<T>>
auto add_kernel(const std::string& name) {
  return pl::jit({.name = name}, [](Param x, Param y, Param z) {
    const pl::Int n = x.extent(0);
    auto xs = pl::make_tile_group<T>(pl::Vec, {kTile}, {0, 1});
    auto ys = pl::make_tile_group<T>(pl::Vec, {kTile}, {0, 1});
    auto zs = pl::make_tile_group<T>(pl::Vec, {kTile}, {0, 1});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      const pl::Int len = pl::min(kTile, n - t * kTile);
      pl::load(xs.current(), x.slice(t * kTile, len));
      pl::load(ys.current(), y.slice(t * kTile, len));
      zs.current() = xs.current() + ys.current();
      pl::store(z.slice(t * kTile, len), zs.current());
      xs.next();
      ys.next();
      zs.next();
    }
  });
}

template <class K, class... Args>
pto::backend::LoadElision elision_of(const K& k, int block_dim, const Args&... args) {
  return pto::backend::find_load_elision(k[{.block_dim = block_dim}].compile(args...)->ir);
}

/// c against sample 03's reference (exact products summed in double), within its tolerance.
template <class T, class C>
void check_gemm(const pto::Tensor<T>& a, const pto::Tensor<T>& b, const pto::Tensor<C>& c) {
  namespace mm = pto::samples::matmul;
  auto want = pto::Tensor<C>::zeros(c.shape());
  mm::reference(a, b, want);
  const double tol = mm::tolerance<T>(want, a.shape()[1]);
  int64_t bad = 0;
  for (int64_t i = 0; i < c.numel(); ++i) {
    bad += std::abs(static_cast<double>(static_cast<float>(c[i])) - static_cast<double>(static_cast<float>(want[i]))) > tol;
  }
  CHECK(bad == 0);
}

/// What the analysis finds in sample 03's kernel for `p` on M x N x K (seeds from `seed`), each
/// count checked; then the launch on `block_dim` cores against the reference.
struct GemmElision {
  size_t loads, moves, forwarded;
};
template <class T>
void check_gemm_elision(const pto::samples::matmul::Params& p, int64_t M, int64_t N, int64_t K, uint64_t seed, int block_dim,
                        GemmElision want) {
  namespace mm = pto::samples::matmul;
  const auto k = mm::make_kernel<T>(p);
  auto a = pto::Tensor<T>::random({M, K}, seed, -3, 3), b = pto::Tensor<T>::random({K, N}, seed + 1, -3, 3);
  auto c = pto::Tensor<mm::out_t<T>>::zeros({M, N});
  const auto e = elision_of(k, block_dim, a, b, c);
  CHECK(e.loads.size() == want.loads);
  CHECK(e.moves.size() == want.moves);
  CHECK(e.forwarded.size() == want.forwarded);  // the moves into Left and Right
  k[{.block_dim = block_dim}](a, b, c);
  pto::synchronize();
  check_gemm(a, b, c);
}

}  // namespace

TEST_CASE_TEMPLATE("elided loads: z = x + y over 1-D tiles with a tail, on many cores, and in place", T, float, half, int32_t) {
  const auto k = add_kernel<T>("elide_add_" + type_name<T>());
  constexpr int64_t n = 7 * kTile + 77;
  auto x = pto::Tensor<T>::random({n}, 11, -50, 50);
  auto y = pto::Tensor<T>::random({n}, 12, -50, 50);
  auto z = pto::Tensor<T>::full({n}, T(3));
  const auto e = elision_of(k, 3, x, y, z);
  CHECK(e.loads.size() == 2);
  CHECK(e.reads.size() == 2);
  k[{.block_dim = 3}](x, y, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) { return narrow<T>(widen(x[i]) + widen(y[i])); });
  // In place: each core reads its tile of x before it stores the same tile.
  const auto x0 = pto::test::copy_of(x);
  k[{.block_dim = 3}](x, y, x);
  pto::synchronize();
  check_all(x, [&](int64_t i) { return narrow<T>(widen(x0[i]) + widen(y[i])); });
}

TEST_CASE("elided loads with a dynamic length: the extent and the tail are runtime values") {
  const auto k = add_kernel<float, pl::Tensor<float, pl::DYNAMIC>>("elide_add_dyn");
  for (int64_t n : {int64_t{1}, int64_t{333}, 3 * kTile + 5}) {
    CAPTURE(n);
    auto x = pto::Tensor<float>::random({n}, 1), y = pto::Tensor<float>::random({n}, 2);
    auto z = pto::Tensor<float>::zeros({n});
    CHECK(elision_of(k, 4, x, y, z).loads.size() == 2);
    k[{.block_dim = 4}](x, y, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return x[i] + y[i]; });
  }
}

TEST_CASE("elided loads: 2-D windows of a wider tensor, read twice across a row reduction") {
  // Tiles of 8 x 64 from a 37 x 200 tensor: the rows are 200 elements apart in GM and 64 in the
  // tile, with tails in both dimensions.
  constexpr int64_t R = 37, C = 200, TR = 8, TC = 64;
  const auto k = pl::jit({.name = "elide_rowmax"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {TR, TC});
    auto red = pl::make_tile<float>(pl::Vec, {TR, 1});
    auto out = pl::make_tile<float>(pl::Vec, {TR, TC});
    const int64_t col_tiles = (C + TC - 1) / TC, tiles = (R + TR - 1) / TR * col_tiles;
    for (auto i : pl::range(pl::get_block_idx(), tiles, pl::get_block_num())) {
      auto r0 = i / col_tiles * TR, c0 = i % col_tiles * TC;
      auto nr = pl::min(TR, R - r0), nc = pl::min(TC, C - c0);
      pl::load(t, x.slice(r0, nr, c0, nc));
      pl::row_max(red, t);
      out = t * 2 - red;
      pl::store(z.slice(r0, nr, c0, nc), out);
    }
  });
  auto x = pto::Tensor<float>::random({R, C}, 5, -100, 100);
  auto z = pto::Tensor<float>::zeros({R, C});
  const auto e = elision_of(k, 5, x, z);
  CHECK(e.loads.size() == 1);
  CHECK(e.reads.size() == 2);  // the reduction's and the expression's
  k[{.block_dim = 5}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t f) {
    const int64_t r = f / C, c = f % C, c0 = c / TC * TC, nc = std::min(TC, C - c0);
    float m = x[r * C + c0];
    for (int64_t j = 1; j < nc; ++j) m = std::max(m, static_cast<float>(x[r * C + c0 + j]));
    return static_cast<float>(x[f]) * 2 - m;
  });
}

TEST_CASE("a load is copied when a store lies between it and its reader") {
  // x's tile is loaded, then x's region is overwritten with y, then the tile is read: it must
  // hold x as it was loaded.
  const auto k = pl::jit({.name = "elide_store_between"}, [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {kTile});
    auto u = pl::make_tile<float>(pl::Vec, {kTile});
    auto out = pl::make_tile<float>(pl::Vec, {kTile});
    for (auto i : pl::range(pl::get_block_idx(), x.numel() / kTile, pl::get_block_num())) {
      pl::load(t, x.slice(i * kTile, kTile));
      pl::load(u, y.slice(i * kTile, kTile));
      pl::store(x.slice(i * kTile, kTile), u);
      out = t + 1;
      pl::store(z.slice(i * kTile, kTile), out);
    }
  });
  auto x = pto::Tensor<float>::random({4 * kTile}, 7), y = pto::Tensor<float>::random({4 * kTile}, 8);
  auto z = pto::Tensor<float>::zeros({4 * kTile});
  const auto x0 = pto::test::copy_of(x);
  CHECK(elision_of(k, 2, x, y, z).loads.empty());  // u is read by a store, t after one
  k[{.block_dim = 2}](x, y, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) { return x0[i] + 1; });
  check_all(x, [&](int64_t i) { return y[i]; });
}

TEST_CASE("a load is copied when a store, a broadcast or a placed tile reads it; the others are still elided") {
  constexpr int64_t R = 16, C = 64;
  const auto k = pl::jit({.name = "elide_mixed"}, [](pl::Tensor<float> x, pl::Tensor<float> c, pl::Tensor<float> p,
                                                     pl::Tensor<float> z, pl::Tensor<float> w) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});               // elided: read only by the expression
    auto col = pl::make_tile<float>(pl::Vec, {R, 1});             // a {rows, 1} broadcast: copied
    auto placed = pl::make_tile<float>(pl::Vec, {R, C}, pl::Addrs{0x20000});  // placed: copied
    auto kept = pl::make_tile<float>(pl::Vec, {R, C});            // also stored as it is: copied
    auto out = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    pl::load(col, c.slice(0, R, 0, 1));
    pl::load(placed, p.slice(0, R, 0, C));
    pl::load(kept, p.slice(0, R, 0, C));
    out = t + col + placed + kept;
    pl::store(z.slice(0, R, 0, C), out);
    pl::store(w.slice(0, R, 0, C), kept);
  });
  auto x = pto::Tensor<float>::random({R, C}, 1, -4, 4), c = pto::Tensor<float>::random({R, 1}, 2, -4, 4);
  auto p = pto::Tensor<float>::random({R, C}, 3, -4, 4);
  auto z = pto::Tensor<float>::zeros({R, C}), w = pto::Tensor<float>::zeros({R, C});
  const auto e = elision_of(k, 1, x, c, p, z, w);
  REQUIRE(e.loads.size() == 1);
  CHECK((*e.loads.begin())->src.tensor == 0);
  CHECK(e.reads.size() == 1);
  k[{.block_dim = 1}](x, c, p, z, w);
  pto::synchronize();
  check_all(z, [&](int64_t f) { return ((x[f] + c[f / C]) + p[f]) + p[f]; });
  check_all(w, [&](int64_t f) { return p[f]; });
}

TEST_CASE("elided Mat loads: a window (pl::extract) and a transposed move read the GM panels; the matmul reads the window in place") {
  // C (16 x 16) = A[r0:, c0:] (a 16 x 32 window of a 24 x 80 panel of A, 100 columns apart in GM)
  // x B^T, B given as 16 x 32 (N x K) rows of a 16 x 90 tensor. Integer values: every sum is exact.
  constexpr int64_t M = 16, N = 16, K = 32;
  const auto k = pl::jit({.name = "elide_mat"}, [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> c, pl::Int r0, pl::Int c0) {
    auto am = pl::make_tile<float>(pl::Mat, {24, 80});
    auto bm = pl::make_tile<float>(pl::Mat, {N, K});
    auto l = pl::make_tile<float>(pl::Left, {M, K});
    auto r = pl::make_tile<float>(pl::Right, {K, N});
    auto acc = pl::make_tile<float>(pl::Acc, {M, N});
    pl::load(am, a.slice(0, 24, 0, 80));
    pl::load(bm, b.slice(0, N, 0, K));
    pl::extract(l, am, r0, c0);
    pl::move(r, bm, {.transpose = true});
    pl::matmul(acc, l, r);
    pl::store(c.slice(0, M, 0, N), acc);
  });
  auto a = pto::Tensor<float>::random({30, 100}, 21, -4, 4), b = pto::Tensor<float>::random({N, 90}, 22, -4, 4);
  for (auto& v : a.span()) v = std::round(v);
  for (auto& v : b.span()) v = std::round(v);
  auto c = pto::Tensor<float>::zeros({M, N});
  const auto e = elision_of(k, 1, a, b, c, int64_t{0}, int64_t{0});
  CHECK(e.loads.size() == 2);
  CHECK(e.moves.size() == 2);
  CHECK(e.forwarded.size() == 1);  // the window: the matmul reads A from GM; the transpose still copies
  CHECK(e.operands.size() == 1);
  for (auto [r0, c0] : {std::pair<int64_t, int64_t>{0, 0}, {8, 48}, {5, 17}}) {
    CAPTURE(r0);
    CAPTURE(c0);
    k[{.block_dim = 1}].run_sync(a, b, c, r0, c0);
    check_all(c, [&](int64_t f) {
      const int64_t i = f / N, j = f % N;
      float sum = 0;
      for (int64_t q = 0; q < K; ++q) sum += a[(r0 + i) * 100 + c0 + q] * b[j * 90 + q];
      return sum;
    });
  }
}

TEST_CASE_TEMPLATE("sample 03's GEMM: its panels are elided and the matmuls read A and B from GM, with tails, on many cores", T, float,
                   half, int8_t) {
  // Tails in M, N and K. Loads: A and B, at k0 = 0 and in the K loop; all four moves (two into
  // Left, two into Right) forwarded.
  check_gemm_elision<T>({.tm = 64, .tn = 64, .tk = 32}, 150, 70, 100, 31, 3, {.loads = 4, .moves = 4, .forwarded = 4});
}

TEST_CASE("one tile expression used by two instructions, one far from its load: the load copies") {
  // `e` is one expression node in both assignments. The first follows the load; the second comes
  // after a store that overwrote x's region, and (in the loop) after the loop: it must read the
  // tile as loaded, x as it was.
  const auto k = pl::jit({.name = "elide_shared_expr"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {kTile});
    auto out = pl::make_tile<float>(pl::Vec, {kTile});
    pl::load(t, x.slice(0, kTile));
    const auto e = t + 1.0f;
    out = e;
    pl::store(x.slice(0, kTile), out);  // x := x0 + 1
    out = e;
    pl::store(z.slice(0, kTile), out);  // z := x0 + 1, not x0 + 2
  });
  auto x = pto::Tensor<float>::random({kTile}, 41);
  const auto x0 = pto::test::copy_of(x);
  auto z = pto::Tensor<float>::zeros({kTile});
  const auto e = elision_of(k, 1, x, z);
  CHECK(e.loads.empty());  // the second use follows a store: the tile must hold x as loaded
  k[{.block_dim = 1}].run_sync(x, z);
  check_all(x, [&](int64_t i) { return x0[i] + 1; });
  check_all(z, [&](int64_t i) { return x0[i] + 1; });

  const auto k2 = pl::jit({.name = "elide_shared_expr_loop"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {kTile});
    auto out = pl::make_tile<float>(pl::Vec, {kTile});
    auto e = t * 2.0f;
    for (auto i : pl::range(0, x.numel() / kTile)) {
      pl::load(t, x.slice(i * kTile, kTile));
      out = e;
      pl::store(z.slice(i * kTile, kTile), out);
    }
    out = e;  // after the loop: the last tile loaded
    pl::store(z.slice(0, kTile), out);
  });
  auto x2 = pto::Tensor<float>::random({3 * kTile}, 42), z2 = pto::Tensor<float>::zeros({3 * kTile});
  k2[{.block_dim = 1}].run_sync(x2, z2);
  check_all(z2, [&](int64_t i) { return (i < kTile ? x2[2 * kTile + i] : x2[i]) * 2; });
}

TEST_CASE_TEMPLATE("sample 03 with the published tiling: L1 panels walked into L0 by a loop of extracts are still read from GM", T, float,
                   half) {
  // k0 < tk: each 64-deep panel goes into L0 in 16-deep slices, the first before the slice loop
  // and the rest inside it (pl::range), with the L0 slot counters assigned between them.
  // Moves: two extracts before each slice loop, two in it, for both K steps; all eight forwarded.
  check_gemm_elision<T>({.tm = 64, .tn = 64, .tk = 64, .k0 = 16}, 100, 90, 150, 33, 2, {.loads = 4, .moves = 8, .forwarded = 8});
}

TEST_CASE("a loop between a load and its reader that assigns the load's slot counter ends the window") {
  // The tile group's slot moves inside the loop: the read after it is of another slot, which the
  // load did not fill; it must read that slot's own (earlier loaded) contents.
  const auto k = pl::jit({.name = "elide_loop_slot"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto ts = pl::make_tile_group<float>(pl::Vec, {kTile}, {0, 1});
    auto out = pl::make_tile<float>(pl::Vec, {kTile});
    pl::load(ts.current(), x.slice(0, kTile));       // slot 0 <- x[0:kTile]
    ts.next();
    pl::load(ts.current(), x.slice(kTile, kTile));   // slot 1 <- x[kTile:2 kTile]
    for (auto i : pl::range(0, 1)) {
      (void)i;
      ts.next();                                     // back to slot 0
    }
    out = ts.current() + 1;                          // slot 0: x[0:kTile] + 1
    pl::store(z.slice(0, kTile), out);
  });
  auto x = pto::Tensor<float>::random({2 * kTile}, 51), z = pto::Tensor<float>::zeros({kTile});
  k[{.block_dim = 1}].run_sync(x, z);
  check_all(z, [&](int64_t i) { return x[i] + 1; });
}

}  // namespace pto::correctness
