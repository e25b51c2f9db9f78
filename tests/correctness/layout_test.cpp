// Tile layouts (PyPTO Pro's ND/DN/NZ/ZN/ZZ/NN) against plain C++: each memory's default per chip,
// the conversion each data path performs, whole-block capacities of fractal tiles, B given
// transposed loaded through a column-major view into a ZN tile (DN -> ZN) and moved straight into
// L0B, a DN Vec tile moving a transposed view at the contiguous rate, and the conversion cycles the
// timing model charges and reports.
#include <fmt/format.h>

#include "matmul_reference.hpp"
#include "../../samples/03_matmul/matmul.hpp"
#include "pto/ir/Printer.hpp"

namespace pto::correctness {

namespace {

using ir::Conversion;
using ir::Layout;

/// One [M, K] x [K, N] product in one step: A and B through L1 into L0, C stored from L0C.
/// `b_given_transposed`: the argument is B^T [N, K], read through a [K, N] column-major view into a
/// ZN L1 tile that moves into L0B without a transpose.
auto one_step_matmul(int64_t M, int64_t N, int64_t K, bool b_given_transposed, const std::string& chip) {
  return pl::jit({.name = b_given_transposed ? "layout_mm_bt_" + chip : "layout_mm_" + chip, .chip = chip},
                 [=](pl::Tensor<half> a, pl::Tensor<half> b, pl::Tensor<float> c) {
                   auto a_l1 = pl::make_tile<half>(pl::Mat, {M, K});
                   auto b_l1 = b_given_transposed ? pl::make_tile<half>(pl::Mat, {K, N}, pl::ZN) : pl::make_tile<half>(pl::Mat, {K, N});
                   auto a_l0 = pl::make_tile<half>(pl::Left, {M, K});
                   auto b_l0 = pl::make_tile<half>(pl::Right, {K, N});
                   auto acc = pl::make_tile<float>(pl::Acc, {M, N});
                   using pl::Pipe;
                   pl::load(a_l1, a.slice(0, M, 0, K));
                   pl::load(b_l1, b_given_transposed ? b.permute({1, 0}).slice(0, K, 0, N) : b.slice(0, K, 0, N));
                   pl::set_flag(Pipe::MTE2, Pipe::MTE1, 0);
                   pl::wait_flag(Pipe::MTE2, Pipe::MTE1, 0);
                   pl::move(a_l0, a_l1);
                   pl::move(b_l0, b_l1);
                   pl::set_flag(Pipe::MTE1, Pipe::M, 0);
                   pl::wait_flag(Pipe::MTE1, Pipe::M, 0);
                   pl::matmul(acc, a_l0, b_l0);
                   pl::set_flag(Pipe::M, Pipe::FIX, 0);
                   pl::wait_flag(Pipe::M, Pipe::FIX, 0);
                   pl::store(c.slice(0, M, 0, N), acc);
                 });
}

/// The conversion of the first instruction named `op` after `skip` others of that name.
Conversion conversion_of(const ir::Kernel& k, const std::string& op, int skip = 0) {
  for (const auto& i : k.instrs) {
    if (i.op == op && skip-- == 0) return i.convert;
  }
  FAIL("no instruction " << op);
  return Conversion::None;
}

double pipe_total(const pto::LaunchProfile& p, ir::Pipe pipe, double PipeTotals::*field) {
  double sum = 0;
  for (const auto& c : p.cores) sum += c.pipes[static_cast<size_t>(pipe)].*field;
  return sum;
}

}  // namespace

TEST_CASE("each memory's default layout per chip, and the conversion each data path performs") {
  constexpr int64_t M = 32, N = 48, K = 64;
  auto a = mm_input<half>({M, K}, 1), b = mm_input<half>({K, N}, 2);
  for (const std::string chip : {"a2", "a5"}) {
    CAPTURE(chip);
    const auto k = one_step_matmul(M, N, K, false, chip);
    auto c = pto::Tensor<float>::zeros({M, N});
    const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(a, b, c);
    check_product(c, reference(a, b, false), K);
    CHECK(p.races.empty());
    const auto ck = k[{.block_dim = 1}].compile(a, b, c);
    const auto& g = ck->ir.groups;
    CHECK(g[0].layout == Layout::NZ);  // Mat
    CHECK(g[1].layout == Layout::NZ);
    CHECK(g[2].layout == (chip == "a2" ? Layout::ZZ : Layout::NZ));  // Left: ZZ on a2, NZ on a5
    CHECK(g[3].layout == Layout::ZN);  // Right
    CHECK(g[4].layout == Layout::NZ);  // Acc
    CHECK(conversion_of(ck->ir, "load", 0) == Conversion::Nd2Nz);
    CHECK(conversion_of(ck->ir, "load", 1) == Conversion::Nd2Nz);
    CHECK(conversion_of(ck->ir, "move", 0) == Conversion::None);       // NZ -> ZZ / NZ: rows inside both
    CHECK(conversion_of(ck->ir, "move", 1) == Conversion::Transpose);  // NZ -> ZN: each block transposed
    CHECK(conversion_of(ck->ir, "store", 0) == Conversion::Nz2Nd);
    CHECK(ir::to_string(ck->ir).find("in Mat NZ") != std::string::npos);
    // The conversions' cycles are charged and reported: ND -> NZ on MTE2, NZ -> ND on FIX; the
    // half block transpose runs at the path's rate (efficiency 1 in both profiles).
    CHECK(pipe_total(p, ir::Pipe::MTE2, &PipeTotals::convert) > 0);
    CHECK(pipe_total(p, ir::Pipe::FIX, &PipeTotals::convert) > 0);
    CHECK(pipe_total(p, ir::Pipe::MTE1, &PipeTotals::convert) == 0);
    CHECK(pipe_total(p, ir::Pipe::MTE2, &PipeTotals::convert) < pipe_total(p, ir::Pipe::MTE2, &PipeTotals::busy));
  }
}

TEST_CASE("B given transposed: a column-major view loads into a ZN tile (DN -> ZN) and moves into L0B without a block transpose") {
  for (const auto& [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{32, 48, 64}, {16, 16, 32}}) {
    CAPTURE(M);
    auto a = mm_input<half>({M, K}, 3), bt = mm_input<half>({N, K}, 4);
    const auto k = one_step_matmul(M, N, K, true, "a2");
    auto c = pto::Tensor<float>::zeros({M, N});
    const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(a, bt, c);
    check_product(c, reference(a, bt, true), K);
    const auto ck = k[{.block_dim = 1}].compile(a, bt, c);
    CHECK(ck->ir.groups[1].layout == Layout::ZN);
    CHECK(conversion_of(ck->ir, "load", 1) == Conversion::Nd2Nz);  // DN -> ZN, charged as ND -> NZ
    CHECK(conversion_of(ck->ir, "move", 1) == Conversion::None);   // ZN -> ZN
    // Whole columns move: the GM bytes are the matrices' own, not a strided view's per-element cost.
    CHECK(p.gm_bytes == doctest::Approx(static_cast<double>((M * K + N * K) * 2 + M * N * 4)));
  }
}

TEST_CASE("B given transposed with one column (K = 1): its column-major view is row-major too, and loads into the ZN tile") {
  // The [K, N] view of an [N, 1] B has both strides 1: DN and ND alike. Sample 03 with
  // b_column_view declares ZN L1 tiles for B; the load was rejected as "ND into ZN" (found by the
  // fuzzer: f16 54x113x1). K = 1 with a K slice of 16 (pl::extract), and K = 3 for comparison.
  for (const int64_t K : {int64_t{1}, int64_t{3}}) {
    CAPTURE(K);
    constexpr int64_t M = 54, N = 113;
    auto a = mm_input<half>({M, K}, 5), bt = mm_input<half>({N, K}, 6);
    const auto k = pto::samples::matmul::make_kernel<half>({.tm = 32, .tn = 32, .tk = 32, .k0 = 16, .b_column_view = true});
    auto c = pto::Tensor<half>::zeros({M, N});
    k[{.block_dim = 2}](a, bt, c);
    pto::synchronize();
    check_product(c, reference(a, bt, true), K);
  }
}

TEST_CASE("fractal tiles take whole 512 B blocks (1024 B for a 4-byte accumulator); ND tiles their elements") {
  const auto k = pl::jit({.name = "layout_capacity"}, [](pl::Tensor<half> x) {
    (void)x;
    (void)pl::make_tile<half>(pl::Mat, {40, 50});                 // NZ: 16 x 16 blocks -> 48 x 64
    (void)pl::make_tile<half>(pl::Mat, {40, 50}, pl::ND);         // 40 x 50
    (void)pl::make_tile<float>(pl::Mat, {40, 50}, pl::ZN);        // ZN, 4 bytes: 8 x 16 blocks -> 40 x 64
    (void)pl::make_tile<float>(pl::Mat, {40, 50});                // NZ, 4 bytes: 16 x 8 blocks -> 48 x 56
    (void)pl::make_tile<float>(pl::Acc, {40, 50});                // NZ, 16 x 16 of 4 bytes -> 48 x 64
    (void)pl::make_tile<int8_t>(pl::Mat, {20, 40}, {.layout = pl::NZ});  // 16 x 32 blocks -> 32 x 64
  });
  auto x = pto::Tensor<half>::zeros({16});
  const auto ck = k[{.block_dim = 1}].compile(x);
  const auto& g = ck->ir.groups;
  CHECK(g[0].bytes() == 48 * 64 * 2);
  CHECK(g[1].bytes() == 40 * 50 * 2);
  CHECK(g[2].bytes() == 40 * 64 * 4);
  CHECK(g[3].bytes() == 48 * 56 * 4);
  CHECK(g[4].bytes() == 48 * 64 * 4);
  CHECK(g[5].bytes() == 32 * 64 * 1);
  for (const auto& t : g) CHECK(t.slot_bytes >= t.bytes());
}

TEST_CASE("a DN Vec tile moves a transposed view column by column at the contiguous rate; an ND tile element by element") {
  constexpr int64_t kTile = 16;
  // y = 2 x through transposed views of both: [N, M] column-major windows of the [M, N] tensors.
  auto body = [](pl::Layout layout) {
    return [layout](pl::Tensor<float> x, pl::Tensor<float> y) {
      const auto xt = x.permute({1, 0}), yt = y.permute({1, 0});
      auto t = pl::make_tile<float>(pl::Vec, {kTile, kTile}, layout);
      const int64_t rt = (xt.dim(0) + kTile - 1) / kTile, ct = (xt.dim(1) + kTile - 1) / kTile;
      for (auto i : pl::range(pl::get_block_idx(), rt * ct, pl::get_block_num())) {
        const pl::Int r = i / ct * kTile, c = i % ct * kTile;
        const pl::Int h = pl::min(kTile, xt.dim(0) - r), w = pl::min(kTile, xt.dim(1) - c);
        pl::load(t, xt.slice(r, h, c, w));
        t = t * 2;
        pl::store(yt.slice(r, h, c, w), t);
      }
    };
  };
  const auto dn = pl::jit({.name = "layout_dn_vec", .auto_mutex = true}, body(pl::DN));
  const auto nd = pl::jit({.name = "layout_nd_vec", .auto_mutex = true}, body(pl::ND));
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{32, 48}, {21, 35}}) {
    CAPTURE(m);
    auto x = pto::Tensor<float>::random({m, n}, 6, -50, 50);
    auto y1 = pto::Tensor<float>::zeros({m, n}), y2 = pto::Tensor<float>::zeros({m, n});
    const pto::LaunchProfile p1 = dn[{.block_dim = 2}].run_sync(x, y1);
    const pto::LaunchProfile p2 = nd[{.block_dim = 2}].run_sync(x, y2);
    check_all(y1, [&](int64_t i) { return x[i] * 2; });
    CHECK(bitwise_equal(y1, y2));
    CHECK(p1.races.empty());
    CHECK(p1.gm_bytes == doctest::Approx(static_cast<double>(2 * m * n * 4)));      // whole columns
    CHECK(p2.gm_bytes == doctest::Approx(static_cast<double>(2 * m * n * 32)));     // 32 B per strided element
    CHECK(p1.device_us < p2.device_us);
  }
}

TEST_CASE("ND -> NZ costs more when the GM rows are not a multiple of 256 B; an ND Mat tile loads without conversion") {
  // Loads of [64, cols] half panels into L1: 128 columns are 256 B rows, 112 are 224 B.
  auto body = [](pl::Layout layout, int64_t cols) {
    return [layout, cols](pl::Tensor<half> x) {
      auto t = pl::make_tile_group<half>(pl::Mat, {64, cols}, {0, 1}, layout);
      for (auto i : pl::range(0, x.dim(0) / 64)) pl::load(t.next(), x.slice(i * 64, 64, 0, cols));
    };
  };
  double share[3] = {};
  int n = 0;
  for (const auto& [layout, cols] : {std::pair{pl::NZ, int64_t{128}}, {pl::NZ, int64_t{112}}, {pl::ND, int64_t{112}}}) {
    const auto k = pl::jit({.name = fmt::format("layout_nd2nz_{}_{}", ir::layout_name(layout), cols), .auto_mutex = true}, body(layout, cols));
    auto x = pto::Tensor<half>::random({512, cols}, 7);
    const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(x);
    share[n++] = pipe_total(p, ir::Pipe::MTE2, &PipeTotals::convert) / pipe_total(p, ir::Pipe::MTE2, &PipeTotals::busy);
  }
  CHECK(share[0] > 0);
  CHECK(share[1] > 2 * share[0]);  // a2: 0.5 of the rate unaligned against 0.9 aligned
  CHECK(share[2] == 0);
}

}  // namespace pto::correctness
