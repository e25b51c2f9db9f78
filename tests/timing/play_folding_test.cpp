// set_play_folding: a timed core whose written-down model calls are another core's with each
// tensor's GM regions one shift apart records a copy of that core's model instead of playing its
// calls. The profile, the race reports and the simulated numbers are the ones playing every core
// gives (the JIT's code and the interpreter, one and two host threads).
#include <doctest/doctest.h>

#include <functional>

#include "../../samples/03_matmul/matmul.hpp"
#include "common/FlashAttentionProfile.hpp"
#include "common/SampleProfiles.hpp"
#include "pto/runtime/Emulator.hpp"

namespace {

namespace pl = pto::lang;
using pto::samples::SyncMode;

/// What check_both_ways saw: how many cores the folded launch copied, and its profile.
struct Folded {
  uint64_t copied;
  pto::LaunchProfile profile;
};

/// `run()` with play folding on, then off (the replay cache off: every launch modelled); the
/// two profiles must be the same.
Folded check_both_ways(const std::function<pto::LaunchProfile()>& run) {
  pto::set_replay_cache(false);
  const uint64_t before = pto::runtime_stats().copied_cores;
  const pto::LaunchProfile folded = run();
  const uint64_t copied = pto::runtime_stats().copied_cores - before;
  pto::set_play_folding(false);
  const pto::LaunchProfile played = run();
  pto::set_play_folding(true);
  pto::set_replay_cache(true);
  CHECK(pto::runtime_stats().copied_cores == before + copied);  // off: nothing copied
  pto::test::check_same_profile(folded, played);
  REQUIRE(folded.races.size() == played.races.size());
  for (size_t i = 0; i < folded.races.size(); ++i) CHECK(folded.races[i].message() == played.races[i].message());
  CHECK(folded.flops == played.flops);
  return {copied, folded};
}

/// Block b of 4 reads rows [0, rows) of columns [b * step, b * step + width) of x (4 x 80) and
/// writes them to the same place in y: regions of 80-wide rows, one block's `step` columns from
/// the next.
pto::LaunchProfile columns_profile(int64_t rows, int64_t width, int64_t step) {
  const auto kernel = pl::jit({.name = "play_fold_columns", .auto_mutex = true}, [rows, width, step](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {rows, width});
    auto col = pl::get_block_idx() * step;
    pl::load(t, x.slice(0, rows, col, width));
    pl::store(y.slice(0, rows, col, width), t);
  });
  auto x = pto::Tensor<float>::random({4, 80}, 7), y = pto::Tensor<float>::zeros({4, 80});
  return kernel[{.block_dim = 4}].run_sync(x, y);
}

/// Block b of 4 adds row b of x (4 x 64) and the one row of w, into row b of y: x's and y's
/// regions a row apart from one block to the next, w's the same for every block.
pto::LaunchProfile shared_row_profile() {
  const auto kernel = pl::jit({.name = "play_fold_shared_row", .auto_mutex = true}, [](pl::Tensor<float> x, pl::Tensor<float> w, pl::Tensor<float> y) {
    auto a = pl::make_tile<float>(pl::Vec, {1, 64});
    auto b = pl::make_tile<float>(pl::Vec, {1, 64});
    auto row = pl::get_block_idx();
    pl::load(a, x.slice(row, 1, 0, 64));
    pl::load(b, w.slice(0, 1, 0, 64));
    a = a + b;
    pl::store(y.slice(row, 1, 0, 64), a);
  });
  auto x = pto::Tensor<float>::random({4, 64}, 3), w = pto::Tensor<float>::random({1, 64}, 4), y = pto::Tensor<float>::zeros({4, 64});
  return kernel[{.block_dim = 4}].run_sync(x, w, y);
}

/// A matmul of 256 x 128 by 128 x 256 in 64 x 64 tiles of C (16 tiles) on 6 blocks: block b
/// computes tiles b, b + 6 and b + 12 (the last two blocks two tiles).
pto::LaunchProfile matmul_profile() {
  namespace mm = pto::samples::matmul;
  const auto kernel = mm::make_kernel<float>({.tm = 64, .tn = 64, .tk = 64});
  auto a = pto::Tensor<float>::random({256, 128}, 5), b = pto::Tensor<float>::random({128, 256}, 6);
  auto c = pto::Tensor<float>::zeros({256, 256});
  return kernel[{.block_dim = 6}].run_sync(a, b, c);
}

}  // namespace

TEST_CASE("play folding: vector kernels, synced and racing, profile the same with copied cores") {
  pto::test::for_each_backend_threads_sync([](SyncMode sync) {
    // 8 blocks of 8 tiles and a 9th with a shorter last tile: a copy of no other block.
    const uint64_t copied =
        check_both_ways([&] { return pto::test::vector_add_profile({.buffers = 2, .tile = 1024, .sync = sync}, 73000, 9); }).copied;
    // Racing blocks (no sync): each core's twin reports races, so every core is played.
    CHECK((copied > 0) == (sync != SyncMode::none));
    check_both_ways([&] { return pto::test::softmax_profile({.buffers = 2, .rows_per_tile = 4, .sync = sync}, 200, 96, 7); });
  });
}

TEST_CASE("play folding: regions of rows are copied only where their rectangles keep their overlaps") {
  pto::ScopedOptionOverrides report({.on_race = pto::OnRace::report});
  pto::set_host_threads(1);  // the 4 blocks interleaved on one thread: blocks 1-3 may copy block 0
  // One row each, 16 columns apart: every region within one row, so the cores are copies.
  CHECK(check_both_ways([] { return columns_profile(1, 16, 16); }).copied == 3);
  // Two rows each, 16 columns apart: each rectangle of two rows moves by 16 columns, so their
  // overlaps, compared as rectangles, are block 0's.
  CHECK(check_both_ways([] { return columns_profile(2, 16, 16); }).copied == 3);
  // Two rows each, overlapping the next block's columns: races between blocks, reported the same.
  CHECK_FALSE(check_both_ways([] { return columns_profile(2, 24, 16); }).profile.races.empty());
  pto::set_host_threads(0);
}

TEST_CASE("play folding: each tensor's regions may move by their own shift") {
  pto::set_host_threads(1);
  // x and y a row further on each block, w where it was: blocks 1-3 copy block 0.
  CHECK(check_both_ways(shared_row_profile).copied == 3);
  // A's panels stay while B's and C's move a tile to the right (blocks 1 and 3 copy blocks 0 and 2),
  // and the two-tile blocks are a kind of their own (block 5 copies block 4): three cores played
  // in full, each kept to compare the next cores with.
  CHECK(check_both_ways(matmul_profile).copied == 3);
  pto::set_host_threads(0);
}

TEST_CASE("play folding: a mix block copies its twin block's three models, their cross-core deps moved to its own cores") {
  for (bool interpret : {false, true}) {
    CAPTURE(interpret);
    pto::ScopedOptionOverrides backend({.interpret = interpret});
    pto::set_host_threads(1);
    // Flash attention on 4 blocks of one query block each: every block reads all of K and V, and
    // its Q, O and workspace rows lie one block further on than the block before's. Blocks 1-3
    // copy block 0: 9 cores.
    CHECK(check_both_ways([] { return pto::test::flash_attention_profile(4); }).copied == 9);
    // 3 blocks for 4 query blocks: block 0 has two, a kind of its own; block 2 copies block 1.
    CHECK(check_both_ways([] { return pto::test::flash_attention_profile(3); }).copied == 3);
    pto::set_host_threads(0);
  }
}
