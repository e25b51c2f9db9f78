// Explicit tile placement (PyPTO Pro's addrs=) against plain C++: a [rows, 1] DN column and its
// [1, rows] row view placed at the same bytes (a row max stored as a row), a double-buffered group
// at given addresses with unplaced tiles going around it; the race checker treating aliases as
// one memory; a partial overlap reported as a warning.
#include "common.hpp"

namespace pto::correctness {

namespace {
/// Row maxima of x [16, 64] into a [16, 1] column placed at 0x10000, stored through the [1, 16]
/// row view placed at the same address; `flag_before_store`: V -> MTE3 synchronised.
auto column_row_body(bool flag_before_store) {
  return [flag_before_store](pl::Tensor<float> x, pl::Tensor<float> y) {
    using pl::Pipe;
    auto t = pl::make_tile<float>(pl::Vec, {16, 64});
    auto col = pl::make_tile<float>(pl::Vec, {16, 1}, {.layout = pl::DN, .addrs = {0x10000}});  // PyPTO Pro's DN column
    auto row = pl::make_tile<float>(pl::Vec, {1, 16}, pl::Addrs{0x10000});
    pl::load(t, x.slice(0, 16, 0, 64));
    pl::set_flag(Pipe::MTE2, Pipe::V, 0);
    pl::wait_flag(Pipe::MTE2, Pipe::V, 0);
    pl::row_max(col, t);
    if (flag_before_store) {
      pl::set_flag(Pipe::V, Pipe::MTE3, 0);
      pl::wait_flag(Pipe::V, Pipe::MTE3, 0);
    }
    pl::store(y.slice(0, 1, 0, 16), row);  // a placed tile starts with its whole shape valid
  };
}
}  // namespace

TEST_CASE("a [16, 1] column and its [1, 16] row view at one address: row maxima written as a column are stored as a row") {
  const auto k = pl::jit({.name = "alias_column_row"}, column_row_body(true));
  auto x = pto::Tensor<float>::random({16, 64}, 8, -9, 9);
  auto y = pto::Tensor<float>::zeros({1, 16});
  const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(x, y);
  check_all(y, [&](int64_t r) {
    float m = x.at(r, 0);
    for (int64_t c = 1; c < 64; ++c) m = std::max(m, x.at(r, c));
    return m;
  });
  CHECK(p.races.empty());
  const auto ck = k[{.block_dim = 1}].compile(x, y);
  CHECK(ck->ir.groups[1].offset == 0x10000);
  CHECK(ck->ir.groups[2].offset == 0x10000);
}

TEST_CASE("a double-buffered group at given addresses; unplaced tiles go around it; the results are the unplaced kernel's") {
  constexpr int64_t kRows = 8, kCols = 64, kBlocks = 6;
  auto body = [](bool placed) {
    return [placed](pl::Tensor<float> x, pl::Tensor<float> y) {
      auto a = pl::make_tile<float>(pl::Vec, {kRows, kCols});  // unplaced: must avoid the placed bytes
      auto xs = placed ? pl::make_tile_group<float>(pl::Vec, {kRows, kCols}, {0, 1}, pl::Addrs{0x0, 0x8000})
                       : pl::make_tile_group<float>(pl::Vec, {kRows, kCols}, {0, 1});
      for (auto b : pl::range(pl::get_block_idx(), kBlocks, pl::get_block_num())) {
        pl::load(xs.current(), x.slice(b * kRows, kRows, 0, kCols));
        a = xs.current() * 3 - 1;
        pl::store(y.slice(b * kRows, kRows, 0, kCols), a);
        xs.next();
      }
    };
  };
  const auto placed = pl::jit({.name = "placed_group", .auto_mutex = true}, body(true));
  const auto plain = pl::jit({.name = "unplaced_group", .auto_mutex = true}, body(false));
  auto x = pto::Tensor<float>::random({kBlocks * kRows, kCols}, 2);
  auto y1 = pto::Tensor<float>::zeros({kBlocks * kRows, kCols}), y2 = pto::Tensor<float>::zeros({kBlocks * kRows, kCols});
  const pto::LaunchProfile p1 = placed[{.block_dim = 2}].run_sync(x, y1);
  const pto::LaunchProfile p2 = plain[{.block_dim = 2}].run_sync(x, y2);
  check_all(y1, [&](int64_t i) { return x[i] * 3 - 1; });
  CHECK(bitwise_equal(y1, y2));
  CHECK(p1.races.empty());
  CHECK(p1.device_us == p2.device_us);
  const auto ck = placed[{.block_dim = 2}].compile(x, y1);
  const auto& g = ck->ir.groups;
  CHECK(g[1].offset == 0);
  CHECK(g[1].slot_bytes == 0x8000);
  const int64_t a_lo = g[0].offset, a_hi = a_lo + g[0].slot_bytes;
  CHECK((a_hi <= 0 || a_lo >= kRows * kCols * 4));        // clear of slot 0 at [0, 2048)
  CHECK((a_hi <= 0x8000 || a_lo >= 0x8000 + kRows * kCols * 4));  // and of slot 1
}

TEST_CASE("the race checker sees aliased tiles as one memory (and auto_mutex's locks cover both); a partial overlap of placed "
          "tiles is a warning") {
  // V writes the column, MTE3 stores its row alias: with no flag between them, a race on the one memory.
  const auto body = column_row_body(false);
  const auto racy = pl::jit({.name = "alias_race", .auto_mutex = false}, body);
  auto x = pto::Tensor<float>::random({16, 64}, 8);
  auto y = pto::Tensor<float>::zeros({1, 16});
  const pto::LaunchProfile p = racy[{.block_dim = 1}].run_sync(x, y);
  REQUIRE(p.races.size() == 1);
  CHECK(p.races.front().kind == "RAW");
  CHECK(p.races.front().resource.find("tile t1 slot 0") != std::string::npos);
  CHECK(p.races.front().second.find("store") != std::string::npos);
  // auto_mutex locks a tile slot's memory around each access: aliases share the lock, so no race.
  const auto locked = pl::jit({.name = "alias_auto_mutex", .auto_mutex = true}, body);
  CHECK(locked[{.block_dim = 1}].run_sync(x, y).races.empty());
  // Launches reuse the cores' race state: nothing of one launch reaches the next.
  const pto::LaunchProfile again = racy[{.block_dim = 1}].run_sync(x, y);
  REQUIRE(again.races.size() == 1);
  CHECK(again.races.front().count == p.races.front().count);
  CHECK(locked[{.block_dim = 1}].run_sync(x, y).races.empty());

  const auto overlap = pl::jit({.name = "partial_overlap"}, [](pl::Tensor<float> x) {
    auto a = pl::make_tile<float>(pl::Vec, {16, 64}, pl::Addrs{0x0});    // bytes [0, 4096)
    auto b = pl::make_tile<float>(pl::Vec, {8, 64}, pl::Addrs{0x800});   // bytes [2048, 4096)
    pl::load(a, x.slice(0, 16, 0, 64));
    (void)b;
  });
  const auto ck = overlap[{.block_dim = 1}].compile(pto::Tensor<float>::zeros({16, 64}));
  REQUIRE(ck->ir.warnings.size() == 1);
  CHECK(ck->ir.warnings[0].find("tiles t0 and t1 overlap at bytes [2048, 4096) of Vec without starting at the same address") !=
        std::string::npos);
}

}  // namespace pto::correctness
