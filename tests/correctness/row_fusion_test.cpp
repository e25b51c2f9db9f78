// Row fusion (pto/backend/RowFusion.hpp): which runs of tile expressions are computed a block of
// rows at a time, and that results stay those of plain C++, and the same bytes with fusion off
// (JitOptions::fuse_rows): a layernorm-like chain over tiles with tails on many cores, instructions
// whose row counts differ at run time, and the runs that must not fuse (a written tile read down
// the columns, tiles placed on each other's bytes). A check failing inside a run is in
// tests/error. The suite also runs on the interpreter, which computes each instruction whole.
#include "common.hpp"

#include "pto/backend/RowFusion.hpp"
#include "pto/backend/StoreForwarding.hpp"
#include "../../samples/02_softmax/softmax.hpp"
#include "../../samples/08_layernorm/layernorm.hpp"

namespace pto::correctness {
namespace {

/// The instruction counts of the runs of `k`'s specialisation for `args` (a forwarded store that
/// ends a run counted), sorted.
template <class K, class... Args>
std::vector<size_t> fused_runs(const K& k, int block_dim, const Args&... args) {
  const auto& ir = k[{.block_dim = block_dim}].compile(args...)->ir;
  const auto fusion = pto::backend::find_row_fusion(ir, pto::backend::find_store_forwarding(ir));
  std::vector<size_t> sizes;
  for (const auto& [first, run] : fusion.runs) sizes.push_back(run.fused.size() + (run.store ? 1 : 0));
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

constexpr int64_t R = 8, C = 64;  // the tiles of the kernels below

}  // namespace

TEST_CASE_TEMPLATE("fused rows: a centring and scaling chain over 2-D tiles with tails in both dimensions, on many cores", T, float,
                   int32_t) {
  // 37 rows: tiles of 8 rows and a last one of 5 (a block of 4 and one row); 200 columns: tiles
  // of 64 and a last one of 8.
  constexpr int64_t rows = 37, cols = 200;
  const auto k = pl::jit({.name = "fuse_chain_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> z) {
    auto t = pl::make_tile<T>(pl::Vec, {R, C});
    auto s = pl::make_tile<T>(pl::Vec, {R, 1});
    auto m = pl::make_tile<T>(pl::Vec, {R, 1});
    auto d = pl::make_tile<T>(pl::Vec, {R, C});
    auto v = pl::make_tile<T>(pl::Vec, {R, 1});
    auto out = pl::make_tile<T>(pl::Vec, {R, C});
    const int64_t col_tiles = (cols + C - 1) / C, tiles = (rows + R - 1) / R * col_tiles;
    for (auto i : pl::range(pl::get_block_idx(), tiles, pl::get_block_num())) {
      auto r0 = i / col_tiles * R, c0 = i % col_tiles * C;
      auto nr = pl::min(R, rows - r0), nc = pl::min(C, cols - c0);
      pl::load(t, x.slice(r0, nr, c0, nc));
      pl::row_sum(s, t);
      m = s * 2;
      d = t * 8 - m;  // row r of m: a {rows, 1} read of the row the run wrote
      pl::row_max(v, d);
      out = d - v;
      pl::store(z.slice(r0, nr, c0, nc), out);
    }
  });
  auto x = pto::Tensor<T>::random({rows, cols}, 11, -8, 8);
  auto z = pto::Tensor<T>::full({rows, cols}, T(3));
  CHECK(fused_runs(k, 5, x, z) == std::vector<size_t>{5});  // row_sum, m, d, row_max, and the store that computes out
  k[{.block_dim = 5}](x, z);
  pto::synchronize();
  auto want = [&](int64_t f) {
    const int64_t r = f / cols, c = f % cols, c0 = c / C * C, nc = std::min(C, cols - c0);
    std::vector<double> d(static_cast<size_t>(nc));
    double s = 0;
    for (int64_t j = 0; j < nc; ++j) s += widen(x[r * cols + c0 + j]);
    double v = -1e300;
    for (int64_t j = 0; j < nc; ++j) v = std::max(v, d[static_cast<size_t>(j)] = widen(x[r * cols + c0 + j]) * 8 - s * 2);
    return d[static_cast<size_t>(c - c0)] - v;
  };
  if constexpr (std::is_same_v<T, float>) {
    for (int64_t f = 0; f < z.numel(); ++f) CHECK(std::abs(static_cast<double>(z[f]) - want(f)) <= 1e-4 * (1 + std::abs(want(f))));
  } else {
    check_all(z, [&](int64_t f) { return static_cast<int32_t>(want(f)); });  // small integers: exact
  }
  auto z_unfused = pto::Tensor<T>::full({rows, cols}, T(3));
  // The same IR has the same runs: what differs below is the option alone, so equal bytes mean
  // fusion changed none.
  CHECK(fused_runs(unfused(k), 5, x, z_unfused) == std::vector<size_t>{5});
  unfused(k)[{.block_dim = 5}](x, z_unfused);
  pto::synchronize();
  CHECK(bitwise_equal(z, z_unfused));
}

/// a = x + 1 and b = y * 2 on the first `n` and `m` rows of x and y (dynamic): one run of two
/// instructions whose row counts differ when n != m (blocks past one's rows hold rows of the
/// other only). Neither store follows its expression, so both expressions write their tiles.
auto two_heights_kernel() {
  return pl::jit({.name = "fuse_two_heights"}, [](pl::Tensor<float, pl::DYNAMIC, pl::STATIC> x, pl::Tensor<float, pl::DYNAMIC, pl::STATIC> y,
                                                  pl::Tensor<float> za, pl::Tensor<float> zb) {
    const pl::Int n = x.extent(0), m = y.extent(0);
    auto tx = pl::make_tile<float>(pl::Vec, {R, C});
    auto ty = pl::make_tile<float>(pl::Vec, {R, C});
    auto a = pl::make_tile<float>(pl::Vec, {R, C});
    auto b = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(tx, x.slice(0, n, 0, C));
    pl::load(ty, y.slice(0, m, 0, C));
    a = tx + 1;
    b = ty * 2;
    pl::store(za.slice(0, n, 0, C), a);
    pl::store(zb.slice(0, m, 0, C), b);
  });
}

TEST_CASE("fused instructions with different row counts at run time each compute their own rows of every block") {
  const auto k = two_heights_kernel();
  for (auto [n, m] : {std::pair<int64_t, int64_t>{7, 3}, {5, 5}, {8, 1}, {1, 8}}) {
    CAPTURE(n);
    CAPTURE(m);
    auto x = pto::Tensor<float>::random({n, C}, 12), y = pto::Tensor<float>::random({m, C}, 13);
    auto za = pto::Tensor<float>::full({R, C}, -1.f), zb = pto::Tensor<float>::full({R, C}, -1.f);
    CHECK(fused_runs(k, 1, x, y, za, zb) == std::vector<size_t>{2});
    k[{.block_dim = 1}](x, y, za, zb);
    pto::synchronize();
    check_all(za, [&](int64_t f) { return f < n * C ? static_cast<float>(x[f]) + 1 : -1.f; });
    check_all(zb, [&](int64_t f) { return f < m * C ? static_cast<float>(y[f]) * 2 : -1.f; });
  }
}

TEST_CASE("a tile the run writes and then reads down the columns ends the run") {
  // g = first row of x, doubled; out = t + g adds it to every row: row r of out reads row 0 of g.
  const auto k = pl::jit({.name = "fuse_col_broadcast"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto g = pl::make_tile<float>(pl::Vec, {1, C});
    auto h = pl::make_tile<float>(pl::Vec, {R, C});
    auto out = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    pl::load(g, x.slice(0, 1, 0, C));
    h = t * 3;
    g = g * 2;
    out = h + g;
    pl::store(z.slice(0, R, 0, C), out);
  });
  auto x = pto::Tensor<float>::random({R, C}, 14);
  auto z = pto::Tensor<float>::zeros({R, C});
  CHECK(fused_runs(k, 1, x, z) == std::vector<size_t>{2});  // h and g; not out, which reads g's row 0 for every row
  k[{.block_dim = 1}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t f) { return static_cast<float>(x[f]) * 3 + static_cast<float>(x[f % C]) * 2; });
}

TEST_CASE("tiles placed on each other's bytes (addrs=) are not fused") {
  // y is placed 4 rows into x: writing y's rows 0..3 writes x's rows 4..7. Instruction by
  // instruction, z = x * 2 has read all of x before y = w + 1 writes; a block of 4 rows at a time,
  // rows 4..7 of z would read what y wrote.
  const auto k = pl::jit({.name = "fuse_placed"}, [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> za, pl::Tensor<float> zy) {
    auto x = pl::make_tile<float>(pl::Vec, {R, C}, pl::Addrs{0});
    auto y = pl::make_tile<float>(pl::Vec, {R, C}, pl::Addrs{4 * C * 4});
    auto w = pl::make_tile<float>(pl::Vec, {R, C}, pl::Addrs{0x10000});
    auto z = pl::make_tile<float>(pl::Vec, {R, C}, pl::Addrs{0x20000});
    pl::load(x, a.slice(0, R, 0, C));
    pl::load(w, b.slice(0, R, 0, C));
    z = x * 2;
    y = w + 1;
    pl::store(za.slice(0, R, 0, C), z);
    pl::store(zy.slice(0, R, 0, C), y);
  });
  auto a = pto::Tensor<float>::random({R, C}, 15), b = pto::Tensor<float>::random({R, C}, 19);
  auto za = pto::Tensor<float>::zeros({R, C}), zy = pto::Tensor<float>::zeros({R, C});
  CHECK(fused_runs(k, 1, a, b, za, zy).empty());
  k[{.block_dim = 1}](a, b, za, zy);
  pto::synchronize();
  check_all(za, [&](int64_t f) { return static_cast<float>(a[f]) * 2; });
  check_all(zy, [&](int64_t f) { return static_cast<float>(b[f]) + 1; });
}

/// s = row_sum(x); u = x * 2; out = u - s, stored `shift` rows down in `z` (x itself when `in_place`):
/// one run ending with the store; the expression it stores reads UB only, so only the run's
/// own read of x in place (an elided load) can overlap the store's region.
auto store_ending_kernel(bool in_place) {
  return pl::jit({.name = in_place ? "fuse_store_in_place" : "fuse_store_apart"},
                 [in_place](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int shift) {
                   auto t = pl::make_tile<float>(pl::Vec, {R, C});
                   auto s = pl::make_tile<float>(pl::Vec, {R, 1});
                   auto u = pl::make_tile<float>(pl::Vec, {R, C});
                   auto out = pl::make_tile<float>(pl::Vec, {R, C});
                   pl::load(t, x.slice(0, R, 0, C));
                   pl::row_sum(s, t);
                   u = t * 2;
                   out = u - s;
                   pl::store((in_place ? x : z).slice(shift, R, 0, C), out);
                 });
}

TEST_CASE("a run that ends with a forwarded store writes GM block by block only apart from what the run reads in place") {
  // Stored one row down onto x itself, block 0's rows would overwrite x's row 4 before block 1
  // reads it: the store must wait for the run (into the tile, then copied).
  for (const bool in_place : {false, true}) {
    for (const int64_t shift : {int64_t{0}, int64_t{1}}) {
      CAPTURE(in_place);
      CAPTURE(shift);
      const auto k = store_ending_kernel(in_place);
      auto x = pto::Tensor<float>::random({R + 1, C}, 20, -4, 4);
      auto z = pto::Tensor<float>::full({R + 1, C}, 5.f);
      const auto x0 = copy_of(x);
      CHECK(fused_runs(k, 1, x, z, int64_t{0}) == std::vector<size_t>{3});
      k[{.block_dim = 1}](x, z, shift);
      pto::synchronize();
      auto want = [&](int64_t f) {
        const int64_t r = f / C - shift;
        if (r < 0 || r >= R) return in_place ? static_cast<float>(x0[f]) : 5.f;
        float sum = 0;  // the row sum in the order docs/semantics.md defines: lanes c % 8, then a tree
        float lanes[8] = {};
        for (int64_t c = 0; c < C; ++c) lanes[c % 8] += static_cast<float>(x0[r * C + c]);
        sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        return static_cast<float>(x0[r * C + f % C]) * 2 - sum;
      };
      check_all(in_place ? x : z, want);
    }
  }
}

TEST_CASE_TEMPLATE("samples 02 (softmax) and 08 (layernorm) give the same bytes with row fusion on and off", T, float, half) {
  namespace sm = pto::samples::softmax;
  namespace ln = pto::samples::layernorm;
  constexpr int64_t rows = 203, cols = 300;
  auto x = pto::Tensor<T>::random({rows, cols}, 16, -4, 4);
  {
    const auto k = sm::make_kernel<T>({});
    CHECK(fused_runs(k, 6, x, x).empty());  // exp is not fused; the row sum and the store of e / sum alone are not a run
    auto on = pto::Tensor<T>::zeros({rows, cols}), off = pto::Tensor<T>::zeros({rows, cols});
    k[{.block_dim = 6}](x, on);
    unfused(k)[{.block_dim = 6}](x, off);
    pto::synchronize();
    CHECK(bitwise_equal(on, off));
    auto want = pto::Tensor<T>::zeros({rows, cols});
    sm::reference(x, want);
    CHECK(pto::samples::max_abs_diff(on, want) <= sm::tolerance<T>());
  }
  if constexpr (std::is_same_v<T, float>) {  // a store that streams (8 MiB and more): its rows go out block by block
    const auto k = ln::make_kernel<T>({});
    constexpr int64_t big = 2304, wide = 1024;
    auto xb = pto::Tensor<T>::random({big, wide}, 21, -4, 4);
    auto gamma = pto::Tensor<T>::random({1, wide}, 22), beta = pto::Tensor<T>::random({1, wide}, 23);
    auto on = pto::Tensor<T>::zeros({big, wide}), off = pto::Tensor<T>::zeros({big, wide});
    k[{.block_dim = 8}](xb, gamma, beta, on, 1e-5f);
    unfused(k)[{.block_dim = 8}](xb, gamma, beta, off, 1e-5f);
    pto::synchronize();
    CHECK(bitwise_equal(on, off));
  }
  {
    const auto k = ln::make_kernel<T>({});
    auto gamma = pto::Tensor<T>::random({1, cols}, 17), beta = pto::Tensor<T>::random({1, cols}, 18);
    // gamma and beta cast to float once; row sum, mean, centring, row sum of squares, rstd and the
    // store of the result (and, from half, x cast to float first).
    CHECK(fused_runs(k, 6, x, gamma, beta, x, 1e-5f) == std::vector<size_t>{2, std::is_same_v<T, float> ? 6u : 7u});
    auto on = pto::Tensor<T>::zeros({rows, cols}), off = pto::Tensor<T>::zeros({rows, cols});
    k[{.block_dim = 6}](x, gamma, beta, on, 1e-5f);
    unfused(k)[{.block_dim = 6}](x, gamma, beta, off, 1e-5f);
    pto::synchronize();
    CHECK(bitwise_equal(on, off));
    auto want = pto::Tensor<T>::zeros({rows, cols});
    ln::reference(x, gamma, beta, 1e-5f, want);
    CHECK(pto::samples::max_abs_diff(on, want) <= ln::tolerance<T>());
  }
}

}  // namespace pto::correctness
