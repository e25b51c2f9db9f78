// Replay folding (ReplayInput::fold_identical_cores, pto::set_replay_folding): cores that start
// together with the same trace are replayed as one, in groups of such copies, and the result is the
// core-by-core replay's to the bit; cores the L2 sets apart, or that wait on one another, are
// replayed core by core.
#include <doctest/doctest.h>

#include <array>
#include <functional>

#include <pto/pto.hpp>
#include <pto/runtime/timing/Replay.hpp>

#include "common/A2Cost.hpp"
#include "common/SampleProfiles.hpp"
#include "pto/runtime/Emulator.hpp"

namespace {

using pto::CoreModel;
using pto::ir::Pipe;
namespace tm = pto::timing;

using pto::test::a2_cost;

/// A double-buffered stream on one core: per tile, loads of x and y (tensors 0 and 1, elements
/// [lo, lo + tile) f32), an add on the vector pipe, a store to z (tensor 2), with the flags that
/// order them; every fourth tile a barrier. `lo(i)`: tile i's first element. The middle tile's add
/// takes `mid_extra` cycles more.
template <class Lo>
void stream(CoreModel& m, int tiles, int64_t tile, const Lo& lo, double mid_extra = 0) {
  const double bytes = static_cast<double>(tile) * 4;
  for (int i = 0; i < tiles; ++i) {
    const int64_t e = i % 2, first = lo(i);
    if (i >= 2) m.wait_flag(Pipe::MTE3, Pipe::MTE2, e, 6);
    m.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, {0, 4, first, first + tile, 0, false}, 0);
    m.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, {1, 4, first, first + tile, 0, false}, 1);
    m.set_flag(Pipe::MTE2, Pipe::V, e, 2);
    m.wait_flag(Pipe::MTE2, Pipe::V, e, 2);
    m.run(Pipe::V, 40 + static_cast<double>(tile) / 64 + (i == tiles / 2 ? mid_extra : 0), 3, {}, 20);
    m.set_flag(Pipe::V, Pipe::MTE3, e, 4);
    m.wait_flag(Pipe::V, Pipe::MTE3, e, 4);
    m.transfer(Pipe::MTE3, pto::PathId::VecToGm, bytes, {2, 4, first, first + tile, 0, true}, 5);
    m.set_flag(Pipe::MTE3, Pipe::MTE2, e, 6);
    if (i % 4 == 3) m.barrier(Pipe::ALL);
  }
}

struct Launch {
  std::vector<CoreModel> cores;
  std::vector<const tm::CoreTrace*> traces;
  explicit Launch(size_t n) { cores.reserve(n); }
  CoreModel& add() {
    const int c = static_cast<int>(cores.size());
    return cores.emplace_back(nullptr, a2_cost(), c, false, 0, nullptr, 1, c);
  }
  std::span<const tm::CoreTrace* const> all() {
    traces.clear();
    for (const auto& m : cores) traces.push_back(&m.trace());
    return traces;
  }
};

/// Every number of two replays, compared exactly.
void check_same(const tm::ReplayResult& a, const tm::ReplayResult& b) {
  CHECK(a.hbm_bytes == b.hbm_bytes);
  CHECK(a.l2_read_hit_bytes == b.l2_read_hit_bytes);
  CHECK(a.l2_read_miss_bytes == b.l2_read_miss_bytes);
  CHECK(a.gm_write_bytes == b.gm_write_bytes);
  REQUIRE(a.cores.size() == b.cores.size());
  for (size_t c = 0; c < a.cores.size(); ++c) {
    CAPTURE(c);
    const tm::CoreReplay &x = a.cores[c], &y = b.cores[c];
    CHECK(x.end_cycles == y.end_cycles);
    for (size_t p = 0; p < x.pipes.size(); ++p) {
      CHECK(x.pipes[p].busy == y.pipes[p].busy);
      CHECK(x.pipes[p].wait == y.pipes[p].wait);
      CHECK(x.pipes[p].on_chip == y.pipes[p].on_chip);
      CHECK(x.pipes[p].convert == y.pipes[p].convert);
      CHECK(x.pipes[p].instructions == y.pipes[p].instructions);
    }
    CHECK(x.op_start == y.op_start);
    CHECK(x.op_end == y.op_end);
    REQUIRE(x.spans.size() == y.spans.size());
    for (size_t i = 0; i < x.spans.size(); ++i) {
      CHECK(x.spans[i].instr == y.spans[i].instr);
      CHECK(x.spans[i].start == y.spans[i].start);
      CHECK(x.spans[i].end == y.spans[i].end);
    }
    REQUIRE(x.flows.size() == y.flows.size());
    for (size_t i = 0; i < x.flows.size(); ++i) {
      CHECK(x.flows[i].set_time == y.flows[i].set_time);
      CHECK(x.flows[i].wait_time == y.flows[i].wait_time);
    }
  }
}

/// The launch replayed with folding and without: the same result; whether the first folded.
bool folds_to_the_same(std::span<const tm::CoreTrace* const> traces, const pto::ChipProfile& chip, uint64_t footprint,
                       std::span<const double> start = {}) {
  tm::ReplayInput in{.chip = &chip, .cores = traces, .core_start = start, .gm_footprint = footprint, .record_spans = true};
  const tm::ReplayResult folded = tm::replay(in);
  in.fold_identical_cores = false;
  const tm::ReplayResult core_by_core = tm::replay(in);
  CHECK_FALSE(core_by_core.folded);
  check_same(folded, core_by_core);
  return folded.folded;
}

/// a2 with a small L2 (evictions within a few tiles).
pto::ChipProfile small_l2() {
  pto::ChipProfile chip = pto::ChipProfile::get("a2");
  chip.l2_bytes = 256 << 10;
  chip.l2_ways = 16;
  return chip;
}

}  // namespace

TEST_CASE("replay_folding: cores that are copies on their own GM rows replay as one, to the bit") {
  const pto::ChipProfile& a2 = pto::ChipProfile::get("a2");
  const pto::ChipProfile small = small_l2();
  for (int n : {2, 8, 48}) {
    for (int64_t tile : {int64_t{1000}, int64_t{8192}}) {  // 1000: rows off the L2's lines (partial lines, shared edges)
      CAPTURE(n);
      CAPTURE(tile);
      const int tiles = 9;
      Launch launch(static_cast<size_t>(n));
      for (int c = 0; c < n; ++c) stream(launch.add(), tiles, tile, [&](int i) { return (int64_t{c} * tiles + i) * tile; });
      const uint64_t footprint = static_cast<uint64_t>(n) * tiles * static_cast<uint64_t>(tile) * 4 + (1 << 20);
      // The bitmap L2 (the footprint fits), and sets with evictions. With rows off the lines,
      // neighbouring cores share an edge line: the L2 hits one core's and not another's.
      CHECK(folds_to_the_same(launch.all(), a2, footprint) == (tile == 8192));
      CHECK(folds_to_the_same(launch.all(), small, 0) == (tile == 8192));
    }
  }
}

TEST_CASE("replay_folding: cores the L2 sets apart, late or at once, are replayed core by core") {
  const pto::ChipProfile& a2 = pto::ChipProfile::get("a2");
  const int n = 8, tiles = 12;
  const int64_t tile = 4096;
  SUBCASE("every core reads the same rows: the second core hits what the first fetched") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) stream(launch.add(), tiles, tile, [&](int i) { return int64_t{i} * tile; });
    CHECK_FALSE(folds_to_the_same(launch.all(), a2, uint64_t{64} << 20));
  }
  SUBCASE("disjoint until the last tile, which every core reads from one place") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) {
      stream(launch.add(), tiles, tile, [&](int i) { return i + 1 < tiles ? (int64_t{c} * tiles + i) * tile : int64_t{n} * tiles * tile; });
    }
    CHECK_FALSE(folds_to_the_same(launch.all(), a2, uint64_t{64} << 20));
  }
}

TEST_CASE("replay_folding: cores that start apart or whose traces differ fold in groups of copies") {
  const pto::ChipProfile& a2 = pto::ChipProfile::get("a2");
  const int n = 6, tiles = 5;
  const int64_t tile = 2048;
  auto own_rows = [&](int c) { return [=](int i) { return (int64_t{c} * tiles + i) * tile; }; };
  const uint64_t footprint = uint64_t{8} << 20;
  SUBCASE("the same traces, one core starting later") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) stream(launch.add(), tiles, tile, own_rows(c));
    std::vector<double> start(n, 0);
    CHECK(folds_to_the_same(launch.all(), a2, footprint, start));
    start[3] = 16;
    CHECK(folds_to_the_same(launch.all(), a2, footprint, start));  // cores 0-2 and 4-5, core 3 alone
    for (int c = 0; c < n; ++c) start[static_cast<size_t>(c)] = 16.0 * c;
    CHECK_FALSE(folds_to_the_same(launch.all(), a2, footprint, start));  // every core alone
  }
  SUBCASE("the last core has one tile fewer (a remainder)") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) stream(launch.add(), c + 1 < n ? tiles : tiles - 1, tile, own_rows(c));
    CHECK(folds_to_the_same(launch.all(), a2, footprint));
  }
  SUBCASE("even and odd cores run different streams, interleaved in core order") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) {
      stream(launch.add(), c % 2 == 0 ? tiles : tiles + 2, c % 2 == 0 ? tile : tile / 2, [=](int i) { return (int64_t{c} * 16 + i) * tile; });
    }
    CHECK(folds_to_the_same(launch.all(), a2, footprint));
  }
  SUBCASE("one core's vector op costs a cycle more; every core's own tile count") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) stream(launch.add(), tiles, tile, own_rows(c));
    launch.cores[2].run(Pipe::V, 1);
    CHECK(folds_to_the_same(launch.all(), a2, footprint));
    Launch each(n);
    for (int c = 0; c < n; ++c) stream(each.add(), tiles + c, tile, own_rows(c));
    CHECK_FALSE(folds_to_the_same(each.all(), a2, footprint));
  }
  SUBCASE("pairs of copies that differ only mid-trace: too many whole compares in vain, nothing folds") {
    const int m = 8;
    Launch pairs(m), two(m);
    for (int c = 0; c < m; ++c) {
      stream(pairs.add(), tiles, tile, own_rows(c), c / 2);  // four groups, each found after whole compares with the others
      stream(two.add(), tiles, tile, own_rows(c), c / 4);    // two groups: few compares in vain
    }
    CHECK_FALSE(folds_to_the_same(pairs.all(), a2, footprint));
    CHECK(folds_to_the_same(two.all(), a2, footprint));
  }
  SUBCASE("a core waits on another core's flag: nothing folds") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) stream(launch.add(), tiles, tile, own_rows(c));
    const CoreModel::CrossFlag flag = launch.cores[0].cross_set(Pipe::MTE3);
    launch.cores[1].cross_wait(Pipe::MTE2, std::span(&flag, 1));
    CHECK_FALSE(folds_to_the_same(launch.all(), a2, footprint));
  }
  SUBCASE("the L2 sets apart the cores of one group and not of the other") {
    Launch launch(n);
    for (int c = 0; c < n; ++c) {
      if (c % 2 == 0) {
        stream(launch.add(), tiles, tile, own_rows(c));
      } else {
        stream(launch.add(), tiles + 1, tile, [&](int i) { return int64_t{n} * tiles * tile + i * tile; });  // the same rows
      }
    }
    CHECK_FALSE(folds_to_the_same(launch.all(), a2, footprint));
  }
}

TEST_CASE("replay_folding: cores recorded as copies (record_shifted) replay as the same cores recorded in full") {
  const pto::ChipProfile& a2 = pto::ChipProfile::get("a2");
  const pto::ChipProfile small = small_l2();
  const int n = 8, tiles = 9;
  for (int64_t tile : {int64_t{1000}, int64_t{8192}}) {  // 1000: neighbouring cores share an edge line
    CAPTURE(tile);
    auto own_rows = [&](int c) { return [=](int i) { return (int64_t{c} * tiles + i) * tile; }; };
    Launch played(n), copied(n);
    for (int c = 0; c < n; ++c) stream(played.add(), tiles, tile, own_rows(c));
    // Cores 0 and 4 recorded; 1-3 copies of 0, 5 of 4, 6 of 5 (a copy of a copy: the shifts add
    // up), 7 of 0. Each copy's regions lie (c - twin) * tiles * tile elements further on in x, y, z.
    const std::array<int, n> twin{-1, 0, 0, 0, -1, 4, 5, 0};
    for (int c = 0; c < n; ++c) copied.add();
    for (int c = 0; c < n; ++c) {
      CoreModel& m = copied.cores[static_cast<size_t>(c)];
      if (twin[static_cast<size_t>(c)] < 0) {
        stream(m, tiles, tile, own_rows(c));
        continue;
      }
      const int64_t d = int64_t{c - twin[static_cast<size_t>(c)]} * tiles * tile;
      const std::array<int64_t, 3> shift{d, d, d};
      REQUIRE(m.record_shifted(copied.cores[static_cast<size_t>(twin[static_cast<size_t>(c)])], shift));
      CHECK(m.trace().ops.empty());
      CHECK(m.trace().copy_of == (c < 4 || c == 7 ? 0 : 4));
    }
    const uint64_t footprint = static_cast<uint64_t>(n) * tiles * static_cast<uint64_t>(tile) * 4 + (1 << 20);
    auto check_replays_alike = [&](const pto::ChipProfile& chip, uint64_t fp, std::span<const double> start, bool fold) {
      tm::ReplayInput in{.chip = &chip, .cores = copied.all(), .core_start = start, .gm_footprint = fp, .record_spans = true,
                         .fold_identical_cores = fold};
      const tm::ReplayResult from_copies = tm::replay(in);
      in.cores = played.all();
      in.fold_identical_cores = false;
      check_same(from_copies, tm::replay(in));
      return from_copies.folded;
    };
    std::vector<double> start(n, 0);
    // Folded (whole lines: the L2 answers every copy alike) or, when the L2 sets the copies
    // apart, folding is off, or a copy starts apart from its original, core by core from the
    // copies made whole.
    CHECK(check_replays_alike(a2, footprint, start, true) == (tile == 8192));
    CHECK(check_replays_alike(small, 0, start, true) == (tile == 8192));
    CHECK_FALSE(check_replays_alike(a2, footprint, start, false));
    start[5] = 16;
    CHECK_FALSE(check_replays_alike(a2, footprint, start, true));
  }
}

TEST_CASE("replay_folding: sample launches profile the same folded and core by core") {
  using pto::samples::SyncMode;
  pto::set_replay_cache(false);
  auto both = [](const std::function<pto::LaunchProfile()>& run, bool folds) {
    const uint64_t before = pto::runtime_stats().folded_replays;
    const pto::LaunchProfile folded = run();
    CHECK(pto::runtime_stats().folded_replays == before + (folds ? 1 : 0));
    pto::set_replay_folding(false);
    const pto::LaunchProfile core_by_core = run();
    pto::set_replay_folding(true);
    CHECK(pto::runtime_stats().folded_replays == before + (folds ? 1 : 0));
    pto::test::check_same_profile(folded, core_by_core);
    CHECK(folded.l2_hit_bytes == core_by_core.l2_hit_bytes);
  };
  for (SyncMode sync : {SyncMode::automatic, SyncMode::manual}) {
    for (int buffers : {1, 2}) {
      CAPTURE(static_cast<int>(sync));
      CAPTURE(buffers);
      // 8 blocks of 4 whole tiles each fold as one; 30000 elements on 5 blocks, in groups.
      both([&] { return pto::test::vector_add_profile({.buffers = buffers, .tile = 2048, .sync = sync}, 8 * 4 * 2048, 8); }, true);
      both([&] { return pto::test::vector_add_profile({.buffers = buffers, .tile = 2048, .sync = sync}, 30000, 5); }, true);
      both([&] { return pto::test::softmax_profile({.buffers = buffers, .rows_per_tile = 4, .sync = sync}, 64, 256, 4); }, true);
    }
  }
  pto::set_replay_cache(true);
}
