// pl::sync_all (PyPTO Pro's sync_all, pto-isa's SYNCALL): the blocks of a launch meet, so one
// block reads what another wrote before the meeting — cross-block exchanges and reductions,
// checked against plain C++ on every engine, with the race checker's view of them.
#include "common.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kRows = 8, kCols = 64;

/// Each block b writes 2 * x[b] into workspace row block b, meets the others, then copies the
/// workspace block of its neighbour (b + 1) mod n to out[b]. `meet`: with the sync_all.
auto make_exchange(bool meet) {
  return pl::jit({.name = meet ? "sync_all_exchange" : "exchange_without_sync_all"},
                 [meet](pl::Tensor<float> x, pl::Tensor<float> ws, pl::Tensor<float> out) {
    auto t = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto u = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto b = pl::get_block_idx(), n = pl::get_block_num();
    pl::load(t, x, {b * kRows, 0});
    t = t * 2.0f;
    pl::store(ws, t, {b * kRows, 0});
    if (meet) pl::sync_all();
    pl::load(u, ws, {(b + 1) % n * kRows, 0});
    pl::store(out, u, {b * kRows, 0});
  });
}

/// Two phases: every block stores its rows of x + 1, they meet, then block 0 adds the blocks'
/// rows up in block order; they meet again and every other block copies block 0's sum into its
/// rows of `out` (block 0 writes its own). Sums in a fixed order: exact against the reference.
auto make_cross_block_sum() {
  return pl::jit({.name = "sync_all_sum"}, [](pl::Tensor<float> x, pl::Tensor<float> ws, pl::Tensor<float> out) {
    auto t = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto acc = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto b = pl::get_block_idx();
    pl::load(t, x, {b * kRows, 0});
    t = t + 1.0f;
    pl::store(ws, t, {b * kRows, 0});
    pl::sync_all();
    pl::if_(b == 0, [&] {
      pl::load(acc, ws, {0, 0});
      for (auto j : pl::range(1, pl::get_block_num())) {
        pl::load(t, ws, {j * kRows, 0});
        acc = acc + t;
      }
      pl::store(out, acc, {0, 0});
    });
    pl::sync_all();
    pl::if_(b != 0, [&] {
      pl::load(acc, out, {0, 0});
      pl::store(out, acc, {b * kRows, 0});
    });
  });
}

}  // namespace

TEST_CASE("sync_all orders one block's GM writes before another block's reads: a neighbour exchange is exact and race-free") {
  for (int blocks : {1, 2, 5, 16}) {
    CAPTURE(blocks);
    auto x = Tensor<float>::random({blocks * kRows, kCols}, 31);
    auto ws = Tensor<float>::full({blocks * kRows, kCols}, -1.0f);
    auto out = Tensor<float>::full({blocks * kRows, kCols}, -2.0f);
    const auto p = make_exchange(true)[{.block_dim = blocks}].run_sync(x, ws, out);
    INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
    CHECK(p.races.empty());
    int64_t wrong = 0;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t from = (b + 1) % blocks;
      for (int64_t i = 0; i < kRows * kCols; ++i) wrong += out[b * kRows * kCols + i] != 2.0f * x[from * kRows * kCols + i];
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("without sync_all the same exchange races between blocks, and the report points at sync_all") {
  auto x = Tensor<float>::random({4 * kRows, kCols}, 32);
  auto ws = Tensor<float>::zeros({4 * kRows, kCols});
  auto out = Tensor<float>::zeros({4 * kRows, kCols});
  const auto p = make_exchange(false)[{.block_dim = 4}].run_sync(x, ws, out);
  REQUIRE_FALSE(p.races.empty());
  const std::string msg = p.races.front().message();
  CHECK(msg.find("between blocks") != std::string::npos);
  CHECK(msg.find("pl::sync_all") != std::string::npos);
}

TEST_CASE("a cross-block sum with two sync_alls: block 0 reduces every block's partial, every block gets the total") {
  for (int blocks : {3, 8}) {
    CAPTURE(blocks);
    auto x = test_data<float>({blocks * kRows, kCols}, 33, -8, 8, false);
    auto ws = Tensor<float>::zeros({blocks * kRows, kCols});
    auto out = Tensor<float>::full({blocks * kRows, kCols}, -3.0f);
    const auto p = make_cross_block_sum()[{.block_dim = blocks}].run_sync(x, ws, out);
    INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
    CHECK(p.races.empty());
    int64_t wrong = 0;
    for (int64_t i = 0; i < kRows * kCols; ++i) {
      float want = x[i] + 1.0f;
      for (int64_t j = 1; j < blocks; ++j) want += x[j * kRows * kCols + i] + 1.0f;
      for (int64_t b = 0; b < blocks; ++b) wrong += out[b * kRows * kCols + i] != want;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("sync_all in a mix kernel's vector section meets every AIV of the launch (the AICs go their own way)") {
  const auto k = pl::jit({.name = "sync_all_mix_aivs", .mode = pto::ir::KernelMode::Mix},
                         [](pl::Tensor<float> x, pl::Tensor<float> ws, pl::Tensor<float> out) {
    pl::section_cube([&] {});
    pl::section_vector([&] {
      auto t = pl::make_tile<float>(pl::Vec, {kRows, kCols});
      auto v = pl::get_block_idx() * pl::get_subblock_num() + pl::get_subblock_idx();  // this AIV among all
      auto n = pl::get_block_num() * pl::get_subblock_num();
      pl::load(t, x, {v * kRows, 0});
      t = t - 0.5f;
      pl::store(ws, t, {v * kRows, 0});
      pl::sync_all();
      pl::load(t, ws, {(v + n - 1) % n * kRows, 0});
      pl::store(out, t, {v * kRows, 0});
    });
  });
  for (int blocks : {1, 3}) {
    CAPTURE(blocks);
    const int aivs = 2 * blocks;
    auto x = Tensor<float>::random({aivs * kRows, kCols}, 34);
    auto ws = Tensor<float>::zeros({aivs * kRows, kCols});
    auto out = Tensor<float>::zeros({aivs * kRows, kCols});
    const auto p = k[{.block_dim = blocks}].run_sync(x, ws, out);
    INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
    CHECK(p.races.empty());
    int64_t wrong = 0;
    for (int64_t v = 0; v < aivs; ++v) {
      const int64_t from = (v + aivs - 1) % aivs;
      for (int64_t i = 0; i < kRows * kCols; ++i) wrong += out[v * kRows * kCols + i] != x[from * kRows * kCols + i] - 0.5f;
    }
    CHECK(wrong == 0);
  }
}

}  // namespace pto::correctness
