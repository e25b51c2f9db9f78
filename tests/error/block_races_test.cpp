// Races between the blocks of a launch (BlockRaces.hpp): GM written by one block and read or
// written by another, reported as races "between blocks" naming both blocks' instructions,
// pipes, cores and source lines. Blocks reading the same input, or writing disjoint parts of
// one output (rows or columns of a 2-D tensor), race with nobody.
#include "error_common.hpp"

namespace pto::error_test {
namespace {

/// The race of `kind` between blocks on `tensor`, or null.
const pto::RaceReport* find_race(const pto::LaunchProfile& p, const std::string& kind, const std::string& tensor) {
  for (const auto& r : p.races) {
    if (r.between_blocks && r.kind == kind && r.resource == "GM tensor " + tensor) return &r;
  }
  return nullptr;
}

/// The race of `kind` on `resource` (any core, within or between blocks), or null.
const pto::RaceReport* find_race_on(const pto::LaunchProfile& p, const std::string& kind, const std::string& resource) {
  for (const auto& r : p.races) {
    if (r.kind == kind && r.resource == resource) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("every block storing the same output tile (block index forgotten) is a WAW race between blocks") {
  int line = 0;
  const auto k = pl::jit({.name = "same_tile_everywhere", .auto_mutex = true}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    t = t + 1.0f;
    line = __LINE__; pl::store(z.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({256}, 1);
  auto z = pto::Tensor<float>::zeros({256});
  const pto::LaunchProfile p = k[{.block_dim = 4}].run_sync(x, z);
  const pto::RaceReport* r = find_race(p, "WAW", "arg1");
  REQUIRE(r != nullptr);
  CHECK(r->count == 6);  // every pair of the 4 blocks
  CHECK_HAS(r->message(), "WAW race on GM tensor arg1 between blocks (6x)", "[MTE3 on block 0, AIV 0]", "[MTE3 on block 1, AIV 1]",
            PTO_AT(line), "nothing orders the blocks of a launch but sync_all; give each block its own region");
  CHECK(p.races.size() == 1);  // x is only read
  // One block alone races with nobody.
  CHECK(k[{.block_dim = 1}].run_sync(x, z).races.empty());
  check_runtime_usable();
}

TEST_CASE("a block reading what the next block writes is a race between blocks (RAW or WAR by block order)") {
  int load_line = 0, store_line = 0;
  const auto k = pl::jit({.name = "neighbour_read", .auto_mutex = true}, [&](pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    auto b = pl::get_block_idx();
    load_line = __LINE__; pl::load(t, z.slice((b + 1) % pl::get_block_num() * 64, 64));  // the next block's part
    t = t * 2.0f;
    store_line = __LINE__; pl::store(z.slice(b * 64, 64), t);
  });
  auto z = pto::Tensor<float>::random({128}, 2);
  const pto::LaunchProfile p = k[{.block_dim = 2}].run_sync(z);
  // Block 0 reads block 1's part (WAR in block order), block 1 reads block 0's part (RAW).
  const pto::RaceReport* war = find_race(p, "WAR", "arg0");
  const pto::RaceReport* raw = find_race(p, "RAW", "arg0");
  REQUIRE(war != nullptr);
  REQUIRE(raw != nullptr);
  CHECK_HAS(war->message(), "load", "[MTE2 on block 0, AIV 0]", PTO_AT(load_line), "store", "[MTE3 on block 1, AIV 1]", PTO_AT(store_line));
  CHECK_HAS(raw->message(), "store", "[MTE3 on block 0, AIV 0]", PTO_AT(store_line), "load", "[MTE2 on block 1, AIV 1]", PTO_AT(load_line));
  check_runtime_usable();
}

TEST_CASE("a block storing its own part many times races with nobody; one store into a neighbour's part races with each of them") {
  // The flash-attention pattern: every block rewrites its own workspace rows over and over (the
  // checker sweeps past piles of one block's overlapping accesses without comparing them), and
  // block 0 also writes block 1's row once: a WAW with each of block 1's 50 stores.
  constexpr int kRepeats = 50;
  int own_line = 0, stray_line = 0;
  const auto k = pl::jit({.name = "own_rows_and_a_stray", .auto_mutex = true}, [&](pl::Tensor<float> x, pl::Tensor<float> ws) {
    auto t = pl::make_tile<float>(pl::Vec, {1, 64});
    auto b = pl::get_block_idx();
    pl::load(t, x.slice(b, 1, 0, 64));
    for (auto i : pl::range(0, kRepeats)) {
      (void)i;
      own_line = __LINE__; pl::store(ws.slice(b, 1, 0, 64), t);
    }
    pl::if_(b == 0, [&] { stray_line = __LINE__; pl::store(ws.slice(1, 1, 0, 64), t); });
  });
  auto x = pto::Tensor<float>::random({4, 64}, 7);
  auto ws = pto::Tensor<float>::zeros({4, 64});
  const pto::LaunchProfile p = k[{.block_dim = 4}].run_sync(x, ws);
  const pto::RaceReport* r = find_race(p, "WAW", "arg1");
  REQUIRE(r != nullptr);
  CHECK(r->count == kRepeats);
  CHECK_HAS(r->message(), "[MTE3 on block 0, AIV 0]", PTO_AT(stray_line), "[MTE3 on block 1, AIV 1]", PTO_AT(own_line));
  CHECK(p.races.size() == 1);
  check_runtime_usable();
}

TEST_CASE("one buffer passed as two parameters is one memory to the checker: the neighbour read still races") {
  // Block b reads rows of tile b + 1 through `x` and writes tile b through `z`; launched as
  // kernel(y, y) the two parameters are one buffer (issue #18's missed race).
  int load_line = 0, store_line = 0;
  const auto k = pl::jit({.name = "neighbour_read_aliased", .auto_mutex = true, .on_race = pto::OnRace::report},
                         [&](pl::Tensor<float> x, pl::Tensor<float> z) {
                           auto t = pl::make_tile<float>(pl::Vec, {8, 16});
                           auto b = pl::get_block_idx();
                           load_line = __LINE__; pl::load(t, x.slice((b + 1) % pl::get_block_num() * 8, 8, 0, 16));
                           t = t * 2.0f;
                           store_line = __LINE__; pl::store(z.slice(b * 8, 8, 0, 16), t);
                         });
  auto y = pto::Tensor<float>::random({64, 16}, 3);
  const pto::LaunchProfile aliased = k[{.block_dim = 8}].run_sync(y, y);
  const pto::RaceReport* war = find_race_on(aliased, "WAR", "GM tensor arg0 (one buffer passed as arg0 and arg1)");
  const pto::RaceReport* raw = find_race_on(aliased, "RAW", "GM tensor arg0 (one buffer passed as arg0 and arg1)");
  REQUIRE(war != nullptr);
  REQUIRE(raw != nullptr);
  CHECK(war->between_blocks);
  CHECK_HAS(war->message(), "load", PTO_AT(load_line), "store", PTO_AT(store_line), "between blocks");
  // Two buffers: nothing is shared, no race.
  auto x = pto::Tensor<float>::random({64, 16}, 4), z = pto::Tensor<float>::zeros({64, 16});
  CHECK(k[{.block_dim = 8}].run_sync(x, z).races.empty());
  check_runtime_usable();
}

TEST_CASE("a load and a store of one buffer passed as two parameters, unordered on one core, race") {
  // Within one core: a store to z and a later load from x of the same elements with no ordering
  // between MTE3 and MTE2 (auto_mutex orders tiles, not GM), x and z being one buffer.
  const auto k = pl::jit({.name = "store_then_reload", .auto_mutex = true, .on_race = pto::OnRace::report},
                         [](pl::Tensor<float> x, pl::Tensor<float> z) {
                           auto a = pl::make_tile<float>(pl::Vec, {64});
                           auto c = pl::make_tile<float>(pl::Vec, {64});
                           pl::load(a, x.slice(0, 64));
                           a = a + 1.0f;
                           pl::store(z.slice(0, 64), a);
                           pl::load(c, x.slice(0, 64));  // reads what the store writes: RAW through memory
                           c = c * 2.0f;
                           pl::store(z.slice(64, 64), c);
                         });
  auto y = pto::Tensor<float>::random({128}, 5);
  const pto::LaunchProfile aliased = k[{.block_dim = 1}].run_sync(y, y);
  CHECK(find_race_on(aliased, "RAW", "GM tensor arg0 (one buffer passed as arg0 and arg1)") != nullptr);
  auto x = pto::Tensor<float>::random({128}, 6), z = pto::Tensor<float>::zeros({128});
  CHECK(k[{.block_dim = 1}].run_sync(x, z).races.empty());
  check_runtime_usable();
}

TEST_CASE("blocks sharing an input and writing disjoint rows or columns of a 2-D output race with nobody") {
  for (bool by_columns : {false, true}) {
    CAPTURE(by_columns);
    const auto k = pl::jit({.name = "disjoint_parts", .auto_mutex = true}, [by_columns](pl::Tensor<float> x, pl::Tensor<float> z) {
      auto t = pl::make_tile<float>(pl::Vec, {8, 16});
      auto b = pl::get_block_idx();
      pl::load(t, x.slice(0, 8, 0, 16));  // every block reads the same input tile
      t = t + b;
      if (by_columns) {
        pl::store(z.slice(0, 8, b * 16, 16), t);  // side by side: interleaved in memory, disjoint as rectangles
      } else {
        pl::store(z.slice(b * 8, 8, 0, 16), t);
      }
    });
    auto x = pto::Tensor<float>::random({8, 16}, 3);
    auto z = by_columns ? pto::Tensor<float>::zeros({8, 64}) : pto::Tensor<float>::zeros({32, 16});
    const pto::LaunchProfile p = k[{.block_dim = 4}].run_sync(x, z);
    INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
    CHECK(p.races.empty());
  }
}

}  // namespace pto::error_test
