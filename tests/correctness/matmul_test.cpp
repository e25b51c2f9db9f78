// Cube matmul (load GM -> Mat, move Mat -> Left/Right, matmul into Acc, store Acc -> GM) for every
// input/output dtype pair against a plain C++ reference (each C element summed in double from
// the exact products): aligned and tail shapes, K accumulation over several steps, B given
// transposed (N x K, moved with transpose), one and several cores. A mix kernel (the cube writes
// C to a GM workspace and signals, the vector cores double it) is checked for results, the
// core indices of its vector section, no races and determinism over host thread counts.
// Also: numpy broadcasting of a {1, cols} tile in a vector tile expression.
#include "common.hpp"
#include "matmul_reference.hpp"

#include "03_matmul/matmul.hpp"

namespace pto::correctness {
namespace {

/// Output tile and K step of the matmul kernels, and whether B comes as N x K.
struct MmCfg {
  int64_t tm = 40, tn = 32, tk = 32;
  bool transpose_b = false;
  int64_t k0 = 0;  // K slice extracted from the L1 panels into L0 (0: the whole K step)
};

/// An input dtype and the dtype C is stored in.
template <class In, class Out>
struct DPair {
  using T = In;
  using O = Out;
};

template <class T>
using acc_t = pl::accumulator_t<T>;

/// Sample 03's C tile loop (double-buffered L1/L0 groups ordered by auto_mutex, strided output
/// tiles, K steps accumulating in Acc, tails everywhere), optionally with B given transposed.
template <class T, class O>
void matmul_body(const pl::Tensor<T>& a, const pl::Tensor<T>& b, const MmCfg& cfg, const pl::Int& first, const pl::Int& step,
                 const std::function<void(const pl::Tile<acc_t<T>>&, const pl::Int&, const pl::Int&, const pl::Int&, const pl::Int&)>& store_tile) {
  pto::samples::matmul::matmul_tiles<T>(a, b, {.tm = cfg.tm, .tn = cfg.tn, .tk = cfg.tk, .buffers = 2, .transpose_b = cfg.transpose_b, .k0 = cfg.k0},
                                        first, step, store_tile);
}

template <class T, class O>
auto make_matmul(MmCfg cfg) {
  const std::string name = "mm_" + type_name<T>() + "_to_" + type_name<O>() + (cfg.transpose_b ? "_bt" : "") + (cfg.k0 ? "_k0" : "");
  return pl::jit({.name = name, .auto_mutex = true}, [cfg](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<O> c) {
    pl::require(c.dim(0) == a.dim(0) && c.dim(1) == (cfg.transpose_b ? b.dim(0) : b.dim(1)), "C must be M x N");
    matmul_body<T, O>(a, b, cfg, pl::get_block_idx(), pl::get_block_num(),
                      [&](const pl::Tile<acc_t<T>>& acc, const pl::Int& m0, const pl::Int& mlen, const pl::Int& n0, const pl::Int& nlen) {
                        pl::store(c.slice(m0, mlen, n0, nlen), acc);
                      });
  });
}

struct MmShape {
  int64_t M, N, K;
};

/// Runs C = A x B (B as N x K when transposed) on `block_dim` AICs and checks C, the profile's
/// mode, its MAC count (M * N * K) and that the race checker found nothing.
template <class T, class O, class Kernel>
void run_and_check(const Kernel& k, MmShape s, bool transpose_b, int block_dim, uint64_t seed) {
  CAPTURE(s.M);
  CAPTURE(s.N);
  CAPTURE(s.K);
  CAPTURE(block_dim);
  CAPTURE(transpose_b);
  auto a = mm_input<T>({s.M, s.K}, seed);
  auto b = transpose_b ? mm_input<T>({s.N, s.K}, seed + 1) : mm_input<T>({s.K, s.N}, seed + 1);
  auto c = pto::Tensor<O>::full({s.M, s.N}, O(777.0f));  // not a possible product: unwritten elements fail
  const auto a0 = copy_of(a), b0 = copy_of(b);
  const pto::LaunchProfile p = k[{.block_dim = block_dim}].run_sync(a, b, c);
  check_product(c, reference(a, b, transpose_b), s.K);
  CHECK(bitwise_equal(a, a0));
  CHECK(bitwise_equal(b, b0));
  CHECK(p.mode == "cube");
  CHECK(p.block_dim == block_dim);
  CHECK(p.cores.size() == static_cast<size_t>(block_dim));
  CHECK(p.macs == static_cast<double>(s.M * s.N * s.K));
  CHECK(p.mac_util > 0);
  CHECK(p.mac_util <= 1.0);
  CHECK(p.device_us > p.launch_overhead_us);
  INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
  CHECK(p.races.empty());
}

#define PTO_MM_PAIRS                                                                                                    \
  DPair<float, float>, DPair<half, float>, DPair<half, half>, DPair<bfloat16, bfloat16>, DPair<bfloat16, float>, \
      DPair<int8_t, int32_t>

}  // namespace

TEST_CASE_TEMPLATE("matmul: aligned shapes, K accumulated over 3 steps, on 1 and 3 AICs", P, PTO_MM_PAIRS) {
  using T = typename P::T;
  using O = typename P::O;
  CAPTURE(type_name<T>());
  CAPTURE(type_name<O>());
  const auto k = make_matmul<T, O>({.tm = 40, .tn = 32, .tk = 32});
  // 80 x 64 is 2 x 2 output tiles; K = 96 is 3 full K steps.
  for (int bd : {1, 3}) run_and_check<T, O>(k, {80, 64, 96}, false, bd, 10);
}

TEST_CASE_TEMPLATE("matmul: tails in M, N and K (77 x 45 x 83), a single partial tile (5 x 7 x 9), more AICs than tiles", P,
                   PTO_MM_PAIRS) {
  using T = typename P::T;
  using O = typename P::O;
  CAPTURE(type_name<T>());
  CAPTURE(type_name<O>());
  const auto k = make_matmul<T, O>({.tm = 40, .tn = 32, .tk = 32});
  run_and_check<T, O>(k, {77, 45, 83}, false, 1, 20);   // last K step 19 wide, last tiles 37 x 13
  run_and_check<T, O>(k, {77, 45, 83}, false, 3, 21);
  run_and_check<T, O>(k, {5, 7, 9}, false, 24, 22);     // one tile, K below one step; 23 AICs idle
}

TEST_CASE_TEMPLATE("matmul with B given as N x K, moved into Right with transpose (aligned and tail shapes)", P, PTO_MM_PAIRS) {
  using T = typename P::T;
  using O = typename P::O;
  CAPTURE(type_name<T>());
  CAPTURE(type_name<O>());
  const auto k = make_matmul<T, O>({.tm = 40, .tn = 32, .tk = 32, .transpose_b = true});
  run_and_check<T, O>(k, {80, 64, 96}, true, 2, 30);
  run_and_check<T, O>(k, {77, 45, 83}, true, 3, 31);
}

TEST_CASE_TEMPLATE("matmul walking 64-deep L1 panels into L0 in K slices of 16 with pl::extract (B plain and transposed; "
                   "a K tail that ends inside a slice)", P, PTO_MM_PAIRS) {
  using T = typename P::T;
  using O = typename P::O;
  CAPTURE(type_name<T>());
  CAPTURE(type_name<O>());
  for (bool bt : {false, true}) {
    CAPTURE(bt);
    const auto k = make_matmul<T, O>({.tm = 40, .tn = 32, .tk = 64, .transpose_b = bt, .k0 = 16});
    run_and_check<T, O>(k, {80, 64, 128}, bt, 2, 35);  // 2 panels of 4 slices each
    run_and_check<T, O>(k, {77, 45, 83}, bt, 3, 36);   // panels of 64 and 19: slices 16, 3
  }
}

TEST_CASE("pl::extract copies the window at (row, col), as large as the destination holds and cut to the source's valid extent") {
  // A 32 x 48 Mat tile loaded with only 20 x 40 valid; windows into a 16 x 16 Left tile, then
  // stored through the cube as window x identity.
  const auto k = pl::jit({.name = "extract_windows", .auto_mutex = true},
                         [](pl::Tensor<float> a, pl::Tensor<float> eye, pl::Tensor<float> c, pl::Int r0, pl::Int c0) {
    auto am = pl::make_tile<float>(pl::Mat, {32, 48});
    auto em = pl::make_tile<float>(pl::Mat, {16, 16});
    auto l = pl::make_tile<float>(pl::Left, {16, 16});
    auto r = pl::make_tile<float>(pl::Right, {16, 16});
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    pl::load(am, a.slice(0, 20, 0, 40));
    pl::load(em, eye.slice(0, pl::min(16, 40 - c0), 0, 16));  // K = the window's columns
    pl::extract(l, am, r0, c0);
    pl::move(r, em);
    pl::matmul(acc, l, r);
    pl::store(c.slice(0, pl::min(16, 20 - r0), 0, 16), acc);  // the window's rows
  });
  auto a = mm_input<float>({20, 40}, 50);
  auto eye = pto::Tensor<float>::zeros({16, 16});
  for (int64_t i = 0; i < 16; ++i) eye[i * 16 + i] = 1.0f;
  for (auto [r0, c0] : {std::pair<int64_t, int64_t>{0, 0}, {3, 8}, {8, 30}, {19, 39}}) {
    CAPTURE(r0);
    CAPTURE(c0);
    const int64_t rows = std::min<int64_t>(16, 20 - r0), cols = std::min<int64_t>(16, 40 - c0);
    auto c = pto::Tensor<float>::full({16, 16}, 777.0f);
    k[{.block_dim = 1}].run_sync(a, eye, c, r0, c0);
    // The window's rows x cols land at the top left; times the identity's first `cols` rows, the
    // product is the window padded by zero columns up to 16.
    for (int64_t i = 0; i < 16; ++i) {
      for (int64_t j = 0; j < 16; ++j) {
        CAPTURE(i);
        CAPTURE(j);
        if (i < rows) {
          CHECK(c[i * 16 + j] == (j < cols ? a[(r0 + i) * 40 + c0 + j] : 0.0f));
        } else {
          CHECK(c[i * 16 + j] == 777.0f);  // rows past the window are not stored
        }
      }
    }
  }
}

TEST_CASE("matmul: matmul_acc (accumulate=true) adds to the Acc tile, matmul overwrites it (f32, one tile, explicit steps)") {
  // C = A1 x B1 + A2 x B2 computed as: acc = A1 x B1 (overwrite, after a stale product of
  // A2 x B2 was left in the accumulator), acc += A2 x B2.
  const auto k = pl::jit({.name = "mm_two_terms", .auto_mutex = true},
                         [](pl::Tensor<float> a1, pl::Tensor<float> b1, pl::Tensor<float> a2, pl::Tensor<float> b2, pl::Tensor<float> c) {
    auto am = pl::make_tile<float>(pl::Mat, {16, 16});
    auto bm = pl::make_tile<float>(pl::Mat, {16, 16});
    auto l = pl::make_tile<float>(pl::Left, {16, 16});
    auto r = pl::make_tile<float>(pl::Right, {16, 16});
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    auto term = [&](const pl::Tensor<float>& a, const pl::Tensor<float>& b, bool accumulate) {
      pl::load(am, a.slice(0, 16, 0, 16));
      pl::load(bm, b.slice(0, 16, 0, 16));
      pl::move(l, am);
      pl::move(r, bm);
      if (accumulate) {
        pl::matmul_acc(acc, l, r);  // PyPTO Pro's spelling of {.accumulate = true}
      } else {
        pl::matmul(acc, l, r);
      }
    };
    term(a2, b2, false);  // stale contents
    term(a1, b1, false);  // overwritten
    term(a2, b2, true);
    pl::store(c.slice(0, 16, 0, 16), acc);
  });
  auto a1 = mm_input<float>({16, 16}, 41), b1 = mm_input<float>({16, 16}, 42);
  auto a2 = mm_input<float>({16, 16}, 43), b2 = mm_input<float>({16, 16}, 44);
  auto c = pto::Tensor<float>::zeros({16, 16});
  const auto p = k[{.block_dim = 1}].run_sync(a1, b1, a2, b2, c);
  auto r1 = reference(a1, b1, false), r2 = reference(a2, b2, false);
  std::vector<double> want(r1.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = r1[i] + r2[i];
  check_product(c, want, 32);
  CHECK(p.macs == 3.0 * 16 * 16 * 16);
  CHECK(p.races.empty());
}

TEST_CASE_TEMPLATE("storing a float Acc as half/bfloat16 rounds the float result once (bitwise), overflowing half to inf", T, half,
                   bfloat16) {
  CAPTURE(type_name<T>());
  const auto to_float = make_matmul<T, float>({.tm = 40, .tn = 32, .tk = 32});
  const auto to_t = make_matmul<T, T>({.tm = 40, .tn = 32, .tk = 32});
  for (double scale : {1.0, 100.0}) {  // 100: |C| up to 83 * 100 * 100, beyond half's 65504
    CAPTURE(scale);
    auto a = pto::Tensor<T>::random({77, 83}, 80, -scale, scale), b = pto::Tensor<T>::random({83, 45}, 81, -scale, scale);
    if (scale > 1) {
      // Row 0 of A and column 0 of B all 100: C[0, 0] = 83e4.
      for (int64_t k = 0; k < 83; ++k) a[k] = T(static_cast<float>(scale)), b[k * 45] = T(static_cast<float>(scale));
    }
    auto cf = pto::Tensor<float>::zeros({77, 45});
    auto ct = pto::Tensor<T>::zeros({77, 45});
    to_float[{.block_dim = 3}].run_sync(a, b, cf);
    to_t[{.block_dim = 3}].run_sync(a, b, ct);
    check_all(ct, [&](int64_t i) { return T(cf[i]); });  // the same float accumulation, rounded once to T
    check_product(cf, reference(a, b, false), 83);
    if (scale > 1) {
      CHECK(cf[0] == 83e4f);  // 83 x 100 x 100, exact in float
      if constexpr (std::is_same_v<T, half>) CHECK(std::isinf(static_cast<float>(ct[0])));
      if constexpr (std::is_same_v<T, bfloat16>) CHECK(static_cast<float>(ct[0]) == static_cast<float>(bfloat16(83e4f)));
    }
  }
}

// ------------------------------------------------------------------------------------ mix kernel

namespace {

constexpr int kCTileReady = 0;  // cross-core event: a workspace tile is complete

/// Mix kernel: the AIC of each block computes its C tiles into the workspace `ws` and signals;
/// the two AIVs wait, load their half of the tile's rows and store 2 * C into `y`. Each AIV also
/// writes its get_block_idx, get_block_num, get_subblock_idx and get_subblock_num into row
/// get_block_idx() * get_subblock_num() + get_subblock_idx() of `ids` (8 copies each): the PyPTO Pro
/// way of numbering every AIV of a mix launch.
auto make_mix_kernel() {
  const MmCfg cfg{.tm = 32, .tn = 32, .tk = 32};
  return pl::jit({.name = "mm_mix_twice", .auto_mutex = true},
                 [cfg](pl::Tensor<half> a, pl::Tensor<half> b, pl::Tensor<float> ws, pl::Tensor<float> y, pl::Tensor<float> zero8,
                       pl::Tensor<float> ids) {
    const int64_t M = a.dim(0), N = b.dim(1);
    const int64_t n_tiles = (N + cfg.tn - 1) / cfg.tn, tiles = (M + cfg.tm - 1) / cfg.tm * n_tiles;
    pl::section_cube([&] {
      matmul_body<half, float>(a, b, cfg, pl::get_block_idx(), pl::get_block_num(),
                               [&](const pl::Tile<float>& acc, const pl::Int& m0, const pl::Int& mlen, const pl::Int& n0, const pl::Int& nlen) {
                                 pl::store(ws.slice(m0, mlen, n0, nlen), acc);
                                 pl::set_cross_core(pl::Pipe::FIX, kCTileReady);
                               });
    });
    pl::section_vector([&] {
      auto id = pl::make_tile<float>(pl::Vec, {1, 8});
      const pl::Int values[4] = {pl::get_block_idx(), pl::get_block_num(), pl::get_subblock_idx(), pl::get_subblock_num()};
      for (int v = 0; v < 4; ++v) {
        pl::load(id, zero8.slice(0, 1, 0, 8));
        id = id + values[v];
        pl::store(ids.slice(pl::get_block_idx() * pl::get_subblock_num() + pl::get_subblock_idx(), 1, v * 8, 8), id);
      }
      const int64_t half_rows = (cfg.tm + 1) / 2;
      auto c = pl::make_tile_group<float>(pl::Vec, {half_rows, cfg.tn}, {0, 1});
      auto out = pl::make_tile_group<float>(pl::Vec, {half_rows, cfg.tn}, {2, 3});
      auto block = pl::get_block_idx();  // the same on the AIC and both AIVs of a block
      auto blocks = pl::get_block_num();
      for (auto t : pl::range(block, tiles, blocks)) {
        auto m0 = t / n_tiles * cfg.tm, n0 = t % n_tiles * cfg.tn;
        auto mlen = pl::min(cfg.tm, M - m0), nlen = pl::min(cfg.tn, N - n0);
        auto hr = (mlen + 1) / 2;
        auto first = pl::get_subblock_idx() * hr;
        auto count = pl::max(0, pl::min(hr, mlen - first));
        pl::wait_cross_core(pl::Pipe::MTE2, kCTileReady);
        pl::load(c.current(), ws.slice(m0 + first, count, n0, nlen));
        out.current() = c.current() * 2.0f;
        pl::store(y.slice(m0 + first, count, n0, nlen), out.current());
        c.next();
        out.next();
      }
    });
  });
}

struct MixRun {
  pto::Tensor<float> ws, y, ids;
  pto::LaunchProfile profile;
};

MixRun run_mix(const pto::Tensor<half>& a, const pto::Tensor<half>& b, int block_dim) {
  static const auto k = make_mix_kernel();
  const int64_t M = a.dim(0), N = b.dim(1);
  MixRun r{pto::Tensor<float>::full({M, N}, -5.0f), pto::Tensor<float>::full({M, N}, -7.0f),
           pto::Tensor<float>::full({2 * block_dim, 32}, -1.0f), {}};
  auto zero8 = pto::Tensor<float>::zeros({1, 8});
  r.profile = k[{.block_dim = block_dim}].run_sync(a, b, r.ws, r.y, zero8, r.ids);
  return r;
}

/// Runs the mix kernel and checks the workspace against the reference, y == 2 * ws exactly, the
/// profile and the vector-section core indices.
void check_mix(int64_t M, int64_t N, int64_t K, int bd, uint64_t seed) {
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  CAPTURE(bd);
  auto a = mm_input<half>({M, K}, seed), b = mm_input<half>({K, N}, seed + 1);
  MixRun r = run_mix(a, b, bd);
  check_product(r.ws, reference(a, b, false), K);
  int64_t bad = 0;
  for (int64_t i = 0; i < M * N; ++i) bad += std::bit_cast<uint32_t>(r.y[i]) != std::bit_cast<uint32_t>(r.ws[i] * 2.0f);
  CHECK(bad == 0);
  const auto& p = r.profile;
  CHECK(p.mode == "mix");
  CHECK(p.block_dim == bd);
  CHECK(p.cores.size() == static_cast<size_t>(3 * bd));  // per block its AIC, AIV 0, AIV 1
  CHECK(p.macs == static_cast<double>(M * N * K));
  INFO("races: " << p.races.size() << ", first: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
  CHECK(p.races.empty());
  // Vector-section core indices, as in PyPTO Pro: get_block_idx = the block, get_block_num = block_dim.
  for (int64_t v = 0; v < 2 * bd; ++v) {
    CAPTURE(v);
    for (int64_t j = 0; j < 8; ++j) {
      CHECK(r.ids[v * 32 + j] == static_cast<float>(v / 2));
      CHECK(r.ids[v * 32 + 8 + j] == static_cast<float>(bd));
      CHECK(r.ids[v * 32 + 16 + j] == static_cast<float>(v % 2));
      CHECK(r.ids[v * 32 + 24 + j] == 2.0f);
    }
  }
}

}  // namespace

TEST_CASE("mix kernel: the cube writes C to a workspace and signals; the vector cores store 2 * C; no races") {
  // 100 x 72 x 80: 4 x 3 = 12 output tiles of 32 x 32 (tails in M, N and K), 3 K steps; on 3
  // and 5 blocks. On 1 block with a single column of tiles (N = 24): 4 tiles, one per row block.
  check_mix(100, 72, 80, 3, 50);
  check_mix(100, 72, 80, 5, 52);
  check_mix(100, 24, 80, 1, 54);
  check_mix(7, 9, 5, 2, 56);  // one partial tile; block 1 has none; AIV 1 of block 0 gets 3 of 7 rows
}

// One AIC stores several C tiles side by side (same row block) ahead of its AIVs: the regions
// interleave in memory, so the race checker must compare them as rectangles, not as the 1-D
// intervals they span (once a false RAW race).
TEST_CASE("mix kernel on one block with 3 tiles per row block: no race") {
  check_mix(100, 72, 80, 1, 58);
}

TEST_CASE("mix kernel: results, device_us and per-core times are the same with 1 and 2 host threads") {
  const int64_t M = 100, N = 72, K = 80;
  auto a = mm_input<half>({M, K}, 60), b = mm_input<half>({K, N}, 61);
  struct Restore {
    ~Restore() { pto::set_host_threads(0); }
  } restore;
  pto::set_host_threads(1);
  MixRun one = run_mix(a, b, 4);
  pto::set_host_threads(2);
  MixRun two = run_mix(a, b, 4);
  pto::set_host_threads(0);
  MixRun dflt = run_mix(a, b, 4);
  CHECK(bitwise_equal(one.ws, two.ws));
  CHECK(bitwise_equal(one.y, two.y));
  CHECK(bitwise_equal(one.y, dflt.y));
  CHECK(one.profile.device_us == two.profile.device_us);
  CHECK(one.profile.device_us == dflt.profile.device_us);
  CHECK(one.profile.core_us == two.profile.core_us);
  CHECK(one.profile.races.empty());
  CHECK(two.profile.races.empty());
  check_product(one.ws, reference(a, b, false), K);
}

TEST_CASE("matmul cores interleaved on a host thread compute the same C, bit for bit, and the same cycles") {
  // A, B and C together past the host's last-level cache (A of K = 512 columns, a tile of rows
  // more than the cache holds): 24 blocks run in turns of 4 neighbouring cores a host thread
  // (set_core_interleaving), which walk neighbouring C tiles; on two host threads the one out of
  // blocks takes over half of the other's last run (set_interleave_help). Only the host's order
  // of work may change.
  const int64_t K = 512, N = 16;
  const int64_t M = pto::host_cache_bytes() / (K * 4) + 128;
  auto a = mm_input<float>({M, K}, 70), b = mm_input<float>({K, N}, 71);
  const auto k = make_matmul<float, float>({.tm = 128, .tn = 16, .tk = 64});
  struct Restore {
    ~Restore() {
      pto::set_host_threads(0);
      pto::set_core_interleaving(true);
      pto::set_interleave_help(true);
    }
  } restore;
  auto run = [&](bool interleave, int threads, bool help) {
    pto::set_core_interleaving(interleave);
    pto::set_interleave_help(help);
    pto::set_host_threads(threads);
    auto c = pto::Tensor<float>::full({M, N}, 777.0f);
    const auto before = pto::runtime_stats().interleaved;
    const pto::LaunchProfile p = k[{.block_dim = 24}].run_sync(a, b, c);
    return std::make_tuple(c, p, pto::runtime_stats().interleaved - before);
  };
  const auto ref = reference(a, b, false);
  for (int threads : {1, 2}) {
    for (bool help : {true, false}) {
      CAPTURE(threads);
      CAPTURE(help);
      auto [c_on, p_on, n_on] = run(true, threads, help);
      auto [c_off, p_off, n_off] = run(false, threads, help);
      CHECK(n_on == 1);
      CHECK(n_off == 0);
      check_product(c_on, ref, K);
      CHECK(bitwise_equal(c_on, c_off));
      CHECK(p_on.device_us == p_off.device_us);
      CHECK(p_on.core_us == p_off.core_us);
      CHECK(p_on.races.empty());
    }
  }
  // A cube launch whose data stay in the host's cache runs its cores one after another.
  auto small_a = mm_input<float>({512, K}, 72);
  auto small_c = pto::Tensor<float>::zeros({512, N});
  const auto before = pto::runtime_stats().interleaved;
  k[{.block_dim = 24}](small_a, b, small_c);
  pto::synchronize();
  CHECK(pto::runtime_stats().interleaved == before);
  check_product(small_c, reference(small_a, b, false), K);
}

// ----------------------------------------------------------------------- {1, cols} broadcasting

TEST_CASE("a {1, cols} tile broadcasts down the columns of a {rows, cols} expression, beside a {rows, 1} row_max") {
  const auto k = pl::jit({.name = "col_bcast"}, [](pl::Tensor<float> x, pl::Tensor<float> row, pl::Tensor<float> z) {
    const int64_t rows = x.dim(0), cols = x.dim(1);
    auto xs = pl::make_tile<float>(pl::Vec, {8, 64});
    auto rs = pl::make_tile<float>(pl::Vec, {1, 64});
    auto cs = pl::make_tile<float>(pl::Vec, {8, 1});
    auto zs = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(rs, row.slice(0, 1, 0, cols));
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, 8), pl::get_block_num())) {
      auto r0 = t * 8;
      auto nr = pl::min(8, rows - r0);
      pl::load(xs, x.slice(r0, nr, 0, cols));
      pl::row_max(cs, xs);
      zs = rs * xs + cs;  // the {1, cols} operand first: the full operand still sets the extent
      pl::store(z.slice(r0, nr, 0, cols), zs);
    }
  });
  const int64_t rows = 21, cols = 50;
  auto x = test_data<float>({rows, cols}, 70, -4, 4, false);
  auto row = test_data<float>({1, cols}, 71, -4, 4, false);
  auto z = pto::Tensor<float>::full({rows, cols}, -99.0f);
  k[{.block_dim = 2}](x, row, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) {
    const int64_t r = i / cols, c = i % cols;
    float mx = x[r * cols];
    for (int64_t j = 1; j < cols; ++j) mx = std::max(mx, x[r * cols + j]);
    return row[c] * x[i] + mx;
  });  // float multiply, then add: both rounded once, as the reference
}

// A {1, 1} tile broadcasts like numpy's (1, 1) array, to every element (once treated as {rows, 1}).
TEST_CASE("a {1, 1} tile broadcasts to every element of a {rows, cols} expression") {
  const auto k = pl::jit({.name = "bcast_1x1"}, [](pl::Tensor<float> x, pl::Tensor<float> s, pl::Tensor<float> z) {
    auto xs = pl::make_tile<float>(pl::Vec, {8, 8});
    auto ss = pl::make_tile<float>(pl::Vec, {1, 8});
    auto one = pl::make_tile<float>(pl::Vec, {1, 1});
    pl::load(xs, x.slice(0, 8, 0, 8));
    pl::load(ss, s.slice(0, 1, 0, 8));
    pl::row_max(one, ss);
    xs = xs + one;
    pl::store(z.slice(0, 8, 0, 8), xs);
  });
  auto x = test_data<float>({8, 8}, 90, -4, 4, false), s = test_data<float>({1, 8}, 91, -4, 4, false);
  auto z = pto::Tensor<float>::zeros({8, 8});
  REQUIRE_NOTHROW(k[{.block_dim = 1}].run_sync(x, s, z));
  float mx = s[0];
  for (int64_t j = 1; j < 8; ++j) mx = std::max(mx, s[j]);
  check_all(z, [&](int64_t i) { return x[i] + mx; });
}

TEST_CASE("a {1, 1} tile broadcasts down a {rows, 1} column too, on either side: {8, 1} + {1, 1} and {1, 1} * {8, 1} run over "
          "8 rows (now stored as a column)") {
  const auto k = pl::jit({.name = "bcast_1x1_column"}, [](pl::Tensor<float> x, pl::Tensor<float> s, pl::Tensor<float> z,
                                                         pl::Tensor<float> w) {
    auto col = pl::make_tile<float>(pl::Vec, {8, 1});
    auto one = pl::make_tile<float>(pl::Vec, {1, 1});
    auto o = pl::make_tile<float>(pl::Vec, {8, 1});
    auto p = pl::make_tile<float>(pl::Vec, {8, 1});
    pl::load(col, x, {0, 0});
    pl::load(one, s, {0, 0});
    o = col + one;
    p = one * col;
    pl::store(z, o, {0, 0});
    pl::store(w, p, {0, 0});
  });
  auto x = test_data<float>({8, 1}, 92, -4, 4, false), s = pto::Tensor<float>::full({1, 1}, 1.5f);
  auto z = pto::Tensor<float>::zeros({8, 1}), w = pto::Tensor<float>::zeros({8, 1});
  REQUIRE_NOTHROW(k[{.block_dim = 1}].run_sync(x, s, z, w));
  check_all(z, [&](int64_t i) { return x[i] + 1.5f; });
  check_all(w, [&](int64_t i) { return 1.5f * x[i]; });
}

}  // namespace pto::correctness
