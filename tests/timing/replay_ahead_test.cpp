// Replaying ahead (pto::set_replay_ahead): a launch's replay begun from predicted traces while its
// last blocks run is used only when the traces come out as predicted (timing::same_input), and is
// then the replay of the launch to the bit; a replay can be called off (timing::replay_unless).
#include <doctest/doctest.h>

#include <array>
#include <atomic>

#include <pto/pto.hpp>
#include <pto/runtime/timing/Replay.hpp>
#include <pto/runtime/timing/ReplayUnless.hpp>
#include <tbb/task_arena.h>

#include "common/A2Cost.hpp"
#include "common/FlashAttentionProfile.hpp"
#include "common/SampleProfiles.hpp"

namespace {

using pto::CoreModel;
using pto::ir::Pipe;
namespace tm = pto::timing;

using pto::test::a2_cost;

/// One core's stream of `tiles` tiles: loads of x and y (tensors 0, 1), an add, a store to z
/// (tensor 2), single-buffered, tile i at elements [first + i * tile, + tile).
void stream(CoreModel& m, int tiles, int64_t tile, int64_t first) {
  const double bytes = static_cast<double>(tile) * 4;
  for (int i = 0; i < tiles; ++i) {
    const int64_t lo = first + i * tile;
    if (i > 0) m.wait_flag(Pipe::MTE3, Pipe::MTE2, 0, 6);
    m.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, {0, 4, lo, lo + tile, 0, false}, 0);
    m.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, {1, 4, lo, lo + tile, 0, false}, 1);
    m.set_flag(Pipe::MTE2, Pipe::V, 0, 2);
    m.wait_flag(Pipe::MTE2, Pipe::V, 0, 2);
    m.run(Pipe::V, 40 + static_cast<double>(tile) / 64, 3, {}, 20);
    m.set_flag(Pipe::V, Pipe::MTE3, 0, 4);
    m.wait_flag(Pipe::V, Pipe::MTE3, 0, 4);
    m.transfer(Pipe::MTE3, pto::PathId::VecToGm, bytes, {2, 4, lo, lo + tile, 0, true}, 5);
    m.set_flag(Pipe::MTE3, Pipe::MTE2, 0, 6);
  }
}

constexpr int kCores = 6, kTiles = 64;
constexpr int64_t kTile = 4096, kPerCore = kTiles * kTile;

/// Cores 0..5, core c's tiles from c * kPerCore on: recorded in full, or (copies) core 0 in full
/// and the rest as copies (CoreModel::record_shifted) of it or, from `second` on, of core `second`
/// recorded in full (as a second host thread records its blocks). `last_tiles`: core 5's tile
/// count when recorded in full.
struct Cores {
  std::vector<CoreModel> models;
  std::vector<const tm::CoreTrace*> traces;
  explicit Cores(bool copies, int last_tiles = kTiles, int second = kCores) {
    models.reserve(kCores);
    for (int c = 0; c < kCores; ++c) {
      CoreModel& m = models.emplace_back(nullptr, a2_cost(), c, false, 0, nullptr, 1, c);
      if (copies && c > 0 && c != second) {
        const int original = c > second ? second : 0;
        const int64_t d = (c - original) * kPerCore;
        const std::array<int64_t, 3> shift{d, d, d};
        REQUIRE(m.record_shifted(models[static_cast<size_t>(original)], shift));
      } else {
        stream(m, c == kCores - 1 ? last_tiles : kTiles, kTile, c * kPerCore);
      }
      traces.push_back(&m.trace());
    }
  }
  tm::ReplayInput input() const {
    return {.chip = &pto::ChipProfile::get("a2"), .cores = traces, .gm_footprint = 3 * kCores * kPerCore * 4, .record_spans = true};
  }
};

}  // namespace

TEST_CASE("replay_ahead: cores recorded as copies are the same input as the cores recorded in full, and only then") {
  const Cores full(false), copies(true), shorter(false, kTiles - 1);
  CHECK(tm::same_input(copies.input(), full.input()));
  CHECK(tm::same_input(full.input(), copies.input()));
  CHECK(tm::same_input(copies.input(), copies.input()));
  CHECK_FALSE(tm::same_input(full.input(), shorter.input()));   // the last core a tile short
  CHECK_FALSE(tm::same_input(copies.input(), shorter.input()));

  // Two recorded cores with their copies, against one: the second's copies are settled by their
  // shifts (core 3 is core 0's copy moved 3 cores, so core 4, core 3 moved 1, is core 0 moved 4).
  Cores two(true, kTiles, 3);
  REQUIRE(two.traces[3]->copy_of < 0);
  REQUIRE(two.traces[5]->copy_of == 3);
  CHECK(tm::same_input(two.input(), copies.input()));
  CHECK(tm::same_input(copies.input(), two.input()));
  CHECK(tm::same_input(two.input(), full.input()));
  for (int off : {4, 5}) {  // a copy of the second moved one element too far in z
    CAPTURE(off);
    std::vector<tm::CoreTrace> edited(two.traces.size());
    std::vector<const tm::CoreTrace*> traces = two.traces;
    edited[static_cast<size_t>(off)] = *two.traces[static_cast<size_t>(off)];
    edited[static_cast<size_t>(off)].shift[2] += 1;
    traces[static_cast<size_t>(off)] = &edited[static_cast<size_t>(off)];
    tm::ReplayInput wrong = two.input();
    wrong.cores = traces;
    CHECK_FALSE(tm::same_input(wrong, copies.input()));
    CHECK_FALSE(tm::same_input(copies.input(), wrong));
  }

  // A copy moved one element too far, in one tensor.
  Cores moved(true);
  std::vector<tm::CoreTrace> edited(moved.traces.size());
  std::vector<const tm::CoreTrace*> traces = moved.traces;
  edited[3] = *moved.traces[3];
  edited[3].shift[2] += 1;
  traces[3] = &edited[3];
  tm::ReplayInput off_by_one = moved.input();
  off_by_one.cores = traces;
  CHECK_FALSE(tm::same_input(off_by_one, full.input()));

  // The same traces under other options, starts or tensor addresses.
  tm::ReplayInput other = copies.input();
  other.record_spans = false;
  CHECK_FALSE(tm::same_input(other, full.input()));
  other = copies.input();
  other.fold_identical_cores = false;
  CHECK_FALSE(tm::same_input(other, full.input()));
  const std::array<double, kCores> start{0, 0, 0, 0, 0, 4};
  other = copies.input();
  other.core_start = start;
  CHECK_FALSE(tm::same_input(other, full.input()));
  const std::array<uint64_t, 3> base{0, 1 << 21, 2 << 21};
  other = copies.input();
  other.tensor_base = base;
  CHECK_FALSE(tm::same_input(other, full.input()));
}

TEST_CASE("replay_ahead: a launch's traces predicted from the blocks one host thread ran, with or without block 0") {
  const Cores full(false), copies(true);
  const std::array<int64_t, 3> elems{kCores * kPerCore, kCores * kPerCore, kCores * kPerCore};
  auto known_of = [](const Cores& cores, int first, int last) {
    std::vector<const tm::CoreTrace*> known(kCores, nullptr);
    for (int c = first; c <= last; ++c) known[static_cast<size_t>(c)] = cores.traces[static_cast<size_t>(c)];
    return known;
  };
  auto input_of = [&](const tm::PredictedTraces& p) {
    tm::ReplayInput in = full.input();
    in.cores = p.traces;
    return in;
  };
  const tm::ReplayResult whole = tm::replay(full.input());

  // The thread that ran block 0: cores 0-2 (1 and 2 copies of 0) predict 3-5 as copies of 0.
  tm::PredictedTraces first;
  REQUIRE(tm::predict_copies(known_of(copies, 0, 2), 1, elems, first));
  CHECK(first.traces[5]->copy_of == 0);
  CHECK(first.traces[5]->shift == std::vector<int64_t>{5 * kPerCore, 5 * kPerCore, 5 * kPerCore});
  CHECK(tm::same_input(full.input(), input_of(first)));

  // The other thread: cores 3-5 (3 recorded in full, 4 and 5 copies of it). Core 0 is core 3
  // written out, moved back; 1 and 2 copies of it. The actual launch (two originals, 0 and 3) is
  // the same input, and the prediction replays as the launch does.
  const Cores two(true, kTiles, 3);
  tm::PredictedTraces second;
  REQUIRE(tm::predict_copies(known_of(two, 3, 5), 1, elems, second));
  REQUIRE(second.traces[0]->copy_of < 0);
  CHECK(second.traces[0]->ops.size() == full.traces[0]->ops.size());
  CHECK(second.traces[2]->copy_of == 0);
  CHECK(tm::same_input(two.input(), input_of(second)));
  CHECK(tm::same_input(full.input(), input_of(second)));
  const tm::ReplayResult predicted = tm::replay(input_of(second));
  CHECK(predicted.hbm_bytes == whole.hbm_bytes);
  for (size_t c = 0; c < whole.cores.size(); ++c) CHECK(predicted.cores[c].end_cycles == whole.cores[c].end_cycles);

  // Not predicted: tensors a tile too short for the last block, block 0 moved back past a
  // tensor's start, a copy not one step on per block, no block but the first known, all known.
  tm::PredictedTraces none;
  const std::array<int64_t, 3> short_z{kCores * kPerCore, kCores * kPerCore, kCores * kPerCore - kTile};
  CHECK_FALSE(tm::predict_copies(known_of(copies, 0, 2), 1, short_z, none));
  CHECK_FALSE(tm::predict_copies(known_of(two, 3, 5), 1, short_z, none));
  tm::CoreTrace later = *two.traces[4];
  later.shift[1] += 1;
  std::vector<const tm::CoreTrace*> uneven = known_of(two, 3, 5);
  uneven[4] = &later;
  CHECK_FALSE(tm::predict_copies(uneven, 1, elems, none));
  tm::CoreTrace ahead_of_start = *two.traces[4];
  for (int64_t& d : ahead_of_start.shift) d = 2 * kPerCore;  // two blocks a step: block 0 would start before 0
  uneven[4] = &ahead_of_start;
  uneven[5] = nullptr;
  CHECK_FALSE(tm::predict_copies(uneven, 1, elems, none));
  CHECK_FALSE(tm::predict_copies(known_of(two, 3, 3), 1, elems, none));
  CHECK_FALSE(tm::predict_copies(known_of(copies, 0, kCores - 1), 1, elems, none));
}

TEST_CASE("replay_ahead: a replay that may be called off gives the replay's result, or nothing once called off") {
  const Cores copies(true), full(false);
  const tm::ReplayResult whole = tm::replay(full.input());
  std::atomic<bool> stop{false};
  const std::optional<tm::ReplayResult> run = tm::replay_unless(copies.input(), stop);
  REQUIRE(run.has_value());
  CHECK(run->folded);
  CHECK(run->hbm_bytes == whole.hbm_bytes);
  REQUIRE(run->cores.size() == whole.cores.size());
  for (size_t c = 0; c < whole.cores.size(); ++c) {
    CHECK(run->cores[c].end_cycles == whole.cores[c].end_cycles);
    CHECK(run->cores[c].op_start == whole.cores[c].op_start);
  }
  stop = true;  // the event loop looks every few hundred events: 64 tiles are well past that
  CHECK_FALSE(tm::replay_unless(copies.input(), stop).has_value());
  CHECK_FALSE(tm::replay_unless(full.input(), stop).has_value());
}

TEST_CASE("replay_ahead: launches replayed ahead profile as launches replayed after their last block") {
  // 8 MiB a tensor: the blocks run interleaved in runs of 4, the first run on the launching
  // thread, the second on a worker that starts later; 8 blocks of 128 whole tiles are copies of
  // block 0, so the launching thread replays ahead while the worker runs.
  constexpr int64_t n = 8 * 128 * 2048;
  pto::set_replay_cache(false);
  pto::set_replay_ahead(false);
  const pto::LaunchProfile after = pto::test::vector_add_profile({.buffers = 2, .tile = 2048}, n, 8);
  const pto::LaunchProfile tail_after = pto::test::vector_add_profile({.buffers = 2, .tile = 2048}, n - 1000, 8);
  // 1024 tiles on 48 blocks: blocks 0-15 have 22, the rest 21. Predicted from the first thread's
  // blocks of 22, the last blocks would run past the tensors' ends: not predicted.
  const pto::LaunchProfile uneven_after = pto::test::vector_add_profile({.buffers = 2, .tile = 4096}, 1 << 22, 48);
  const uint64_t used_off = pto::runtime_stats().replays_ahead;
  pto::set_replay_ahead(true);
  const uint64_t before = pto::runtime_stats().replays_ahead;
  CHECK(before == used_off);
  constexpr int kLaunches = 12;
  for (int i = 0; i < kLaunches; ++i) {
    CAPTURE(i);
    pto::test::check_same_profile(pto::test::vector_add_profile({.buffers = 2, .tile = 2048}, n, 8), after);
    // The last tile short (block 7's): not as predicted, replayed after its last block.
    pto::test::check_same_profile(pto::test::vector_add_profile({.buffers = 2, .tile = 2048}, n - 1000, 8), tail_after);
    pto::test::check_same_profile(pto::test::vector_add_profile({.buffers = 2, .tile = 4096}, 1 << 22, 48), uneven_after);
  }
  const uint64_t used = pto::runtime_stats().replays_ahead - before;
  CHECK(used <= static_cast<uint64_t>(kLaunches));  // never the launches with a short last tile or uneven blocks
  MESSAGE("replays ahead used: " << used << " of " << kLaunches << " launches (host threads: " << tbb::this_task_arena::max_concurrency() << ")");

  // Mix blocks: each of a block's three cores a copy of block 0's core in its slot, their
  // cross-core flags moved to their own block.
  pto::set_replay_ahead(false);
  const pto::LaunchProfile mix_after = pto::test::flash_attention_profile(4);
  pto::set_replay_ahead(true);
  const uint64_t mix_before = pto::runtime_stats().replays_ahead;
  for (int i = 0; i < kLaunches; ++i) {
    CAPTURE(i);
    pto::test::check_same_profile(pto::test::flash_attention_profile(4), mix_after);
  }
  MESSAGE("flash attention, replays ahead used: " << pto::runtime_stats().replays_ahead - mix_before << " of " << kLaunches << " launches");
  pto::set_replay_cache(true);
}
