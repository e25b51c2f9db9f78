// The pipeline model on whole kernels: sync modes, double buffering, races, determinism.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <tuple>


#include "02_softmax/softmax.hpp"
#include "common/SampleProfiles.hpp"

namespace {

namespace pl = pto::lang;
namespace va = pto::samples::vector_add;
namespace sm = pto::samples::softmax;
using pto::samples::SyncMode;

using pto::test::vector_add_profile;

pto::LaunchProfile softmax_profile(sm::Params p, int64_t rows, int64_t cols, int block_dim) {
  const auto kernel = sm::make_kernel<float>(p);
  auto x = pto::Tensor<float>::random({rows, cols}, 3), y = pto::Tensor<float>::zeros({rows, cols});
  return kernel[{.block_dim = block_dim}].run_sync(x, y);
}

TEST_CASE("auto_mutex_and_correct_manual_flags_give_the_same_timeline") {
  for (int buffers : {1, 2, 3}) {
    CAPTURE(buffers);
    auto a = vector_add_profile({.buffers = buffers, .tile = 2048, .sync = SyncMode::automatic}, 100000, 4);
    auto m = vector_add_profile({.buffers = buffers, .tile = 2048, .sync = SyncMode::manual}, 100000, 4);
    CHECK(a.device_us == m.device_us);
    CHECK(a.core_us == m.core_us);
    CHECK(a.races.empty());
    CHECK(m.races.empty());
    auto sa = softmax_profile({.buffers = buffers, .rows_per_tile = 4, .sync = SyncMode::automatic}, 100, 1000, 3);
    auto sm_ = softmax_profile({.buffers = buffers, .rows_per_tile = 4, .sync = SyncMode::manual}, 100, 1000, 3);
    CHECK(sa.device_us == sm_.device_us);
    CHECK(sa.races.empty());
    CHECK(sm_.races.empty());
  }
}

TEST_CASE("sync_none_reports_races_naming_the_load_and_the_add") {
  auto p = vector_add_profile({.buffers = 2, .tile = 2048, .sync = SyncMode::none}, 20000, 2);
  REQUIRE_FALSE(p.races.empty());
  bool load_then_add = false;
  for (const auto& r : p.races) {
    if (r.kind == "RAW" && r.first.find("load") != std::string::npos && r.second.find("vec") != std::string::npos &&
        r.second.find("+") != std::string::npos && r.first.find("vector_add.hpp:") != std::string::npos) {
      load_then_add = true;
    }
  }
  CHECK(load_then_add);
  auto s = softmax_profile({.buffers = 2, .rows_per_tile = 8, .sync = SyncMode::none}, 64, 256, 2);
  CHECK_FALSE(s.races.empty());
}

TEST_CASE("every_correct_sample_reports_no_race") {
  CHECK(vector_add_profile({}, 1 << 18, 8).races.empty());
  CHECK(softmax_profile({}, 256, 1024, 8).races.empty());
}

/// A chip where a tile's load, add and store take comparable time (tests/data/comparable.json).
std::string comparable_chip() { return PTO_TEST_DATA_DIR "/comparable.json"; }

TEST_CASE("double_buffering_overlaps_load_and_compute_as_the_profile_predicts") {
  const std::string chip = comparable_chip();
  const auto& c = pto::ChipProfile::get(chip);
  const int64_t tile = 4096, bytes = tile * 4;
  const double load = c.path(pto::PathId::GmToVec).cycles(bytes);  // 16 + 512 cycles per tile load (two per tile: x and y)
  const double add = bytes / 256.0 * 16;                              // 1024 (+ a 16-cycle head when V starts from idle)
  const double store = c.path(pto::PathId::VecToGm).cycles(bytes);  // 16 + 1024
  auto end_cycles = [&](int buffers, int tiles) {
    auto p = vector_add_profile({.buffers = buffers, .tile = tile, .sync = SyncMode::automatic, .chip = chip}, tiles * tile, 1);
    return p.cores.at(0).end_cycles;
  };
  // Steady state, one more tile costs one period: single buffering serialises the two loads and
  // the add (the store overlaps the next loads); double buffering is bound by the busiest pipe.
  const double single_period = end_cycles(1, 9) - end_cycles(1, 8);
  const double double_period = end_cycles(2, 9) - end_cycles(2, 8);
  CHECK(single_period == 2 * load + add + 16);  // the V pipe starts each add from idle: its head
  CHECK(double_period == std::max({2 * load, add, store}));
  const double ratio = end_cycles(2, 16) / end_cycles(1, 16);
  CAPTURE(ratio);
  CHECK(ratio <= 0.65);
}

TEST_CASE("simulated_time_does_not_depend_on_host_threads_or_runs") {
  pto::set_replay_cache(false);  // every run replayed, not found in the cache
  auto run = [](int threads) {
    pto::set_host_threads(threads);
    auto p = vector_add_profile({.tile = 2048}, 300000, 13);
    auto s = softmax_profile({}, 100, 1000, 7);
    pto::set_host_threads(0);
    return std::make_pair(p, s);
  };
  auto [p1, s1] = run(1);
  auto [p2, s2] = run(2);
  auto [p3, s3] = run(2);
  CHECK(p1.core_us == p2.core_us);
  CHECK(p1.device_us == p2.device_us);
  CHECK(p2.core_us == p3.core_us);
  CHECK(s1.core_us == s2.core_us);
  CHECK(s1.device_us == s3.device_us);
  pto::set_replay_cache(true);
}

TEST_CASE("core_interleaving_changes_no_result_and_no_cycle") {
  // Vector kernels with more blocks than host threads and a tensor past the host's cache (8 MiB)
  // run neighbouring cores in turns on a thread (set_core_interleaving); only the host's order of
  // work may change.
  pto::set_replay_cache(false);
  auto run = [](bool interleave, int threads) {
    pto::set_core_interleaving(interleave);
    pto::set_host_threads(threads);
    const auto before = pto::runtime_stats().interleaved;
    auto p = vector_add_profile({.tile = 8192}, 2300000, 13);  // 9.2 MB tensors, checked bit-exact inside
    const auto kernel = sm::make_kernel<float>({});
    auto x = pto::Tensor<float>::random({2100, 1024}, 3), y = pto::Tensor<float>::zeros({2100, 1024});
    auto s = kernel[{.block_dim = 7}].run_sync(x, y);
    const auto interleaved = pto::runtime_stats().interleaved - before;
    pto::set_host_threads(0);
    pto::set_core_interleaving(true);
    return std::make_tuple(p, s, y, interleaved);
  };
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    auto [p_on, s_on, y_on, n_on] = run(true, threads);
    auto [p_off, s_off, y_off, n_off] = run(false, threads);
    CHECK(n_on == 2);  // both launches ran interleaved
    CHECK(n_off == 0);
    pto::test::check_same_profile(p_on, p_off);
    CHECK(s_on.core_us == s_off.core_us);
    CHECK(std::memcmp(y_on.data(), y_off.data(), y_on.bytes()) == 0);
  }
  // A small launch (cache-resident tensors) runs its cores one after another.
  const auto before = pto::runtime_stats().interleaved;
  vector_add_profile({.tile = 2048}, 300000, 13);
  CHECK(pto::runtime_stats().interleaved == before);
  pto::set_replay_cache(true);
}

TEST_CASE("a_repeated_launch_reuses_its_replay_and_gets_the_same_cycles") {
  const auto before = pto::runtime_stats().replay_hits;
  const auto first = vector_add_profile({.tile = 2048}, 200000, 6);
  const auto again = vector_add_profile({.tile = 2048}, 200000, 6);
  CHECK(pto::runtime_stats().replay_hits == before + 1);
  pto::test::check_same_profile(first, again);
  // Other traces (another block_dim, another length) are replayed.
  const auto other = vector_add_profile({.tile = 2048}, 200000, 5);
  const auto longer = vector_add_profile({.tile = 2048}, 200001, 6);
  CHECK(pto::runtime_stats().replay_hits == before + 1);
  CHECK(other.device_us != first.device_us);
  CHECK(longer.device_us != first.device_us);
  // With the cache off the launch is replayed again: the same cycles.
  pto::set_replay_cache(false);
  const auto replayed = vector_add_profile({.tile = 2048}, 200000, 6);
  CHECK(pto::runtime_stats().replay_hits == before + 1);
  CHECK(replayed.core_us == first.core_us);
  CHECK(replayed.device_us == first.device_us);
  pto::set_replay_cache(true);
}

TEST_CASE("more_cores_stop_helping_a_gm_bound_kernel") {
  auto us = [](int bd) { return vector_add_profile({}, 1 << 22, bd).device_us; };
  const double t1 = us(1), t8 = us(8), t48 = us(48);
  CHECK(t8 < t1 / 4);          // scales while each core's own path is the limit
  CHECK(t48 > t8 / 6 * 0.9);   // but 6x the cores is far from 6x faster: HBM is shared
}

TEST_CASE("hbm_is_shared_by_the_cores_and_pipes_that_move_gm_data_per_core_kind") {
  // A mix kernel whose AIVs never touch GM: 24 AICs load one {64, 64} f32 tile each (MTE2, their
  // only GM pipe); the AIVs only wait for the cube's flag. Each AIC's load gets 1/24 of HBM, not
  // 1/72 (all cores) or 1/48 (cores x GM pipes of the kernel).
  const auto k = pl::jit({.name = "aic_loads_only", .auto_mutex = true}, [](pl::Tensor<float> a) {
    pl::section_cube([&] {
      auto m = pl::make_tile<float>(pl::Mat, {64, 64}, pl::ND);  // a plain copy: no ND -> NZ conversion cycles
      pl::load(m, a.slice(pl::get_block_idx() * 64, 64, 0, 64));
      pl::set_cross_core(pl::Pipe::MTE2, 0);
    });
    pl::section_vector([&] { pl::wait_cross_core(pl::Pipe::V, 0); });
  });
  const int blocks = 24;
  auto a = pto::Tensor<float>::random({64 * blocks, 64}, 1);
  const auto p = k[{.block_dim = blocks}].run_sync(a);
  const auto& chip = pto::ChipProfile::get("a2");
  const double bytes = 64 * 64 * 4;
  const auto& path = chip.path(pto::PathId::GmToMat);
  const double share = chip.hbm_gbps / chip.clock_ghz / blocks;  // bytes per cycle: HBM shared by the 24 loads in flight
  REQUIRE(share < path.peak_bytes_per_cycle);  // HBM, not the core's own path, is the limit here
  // The blocks start block_dispatch_cycles apart, so the loads overlap all but at the edges: every
  // load takes at least its share's time, and no more than all 24 loads' bytes at the full HBM rate.
  for (int b = 0; b < blocks; ++b) {
    const double busy = p.cores[3 * b].pipes[static_cast<int>(pto::ir::Pipe::MTE2)].busy;
    CHECK(busy >= path.latency_cycles + bytes / path.peak_bytes_per_cycle);
    CHECK(busy <= path.latency_cycles + bytes / share + 1e-6);
  }
  CHECK(p.hbm_bytes == doctest::Approx(bytes * blocks));
}

TEST_CASE("launch_profile_counts_bytes_and_instructions") {
  const int64_t n = 10000;
  auto p = vector_add_profile({.tile = 2048}, n, 2);
  CHECK(p.gm_bytes == 3 * n * 4);
  CHECK(p.device_us > p.launch_overhead_us);
  CHECK(p.core_us.size() == 2);
  // 5 tiles: 3 on core 0, 2 on core 1; 4 instructions each (two loads, add, store)
  uint64_t counted = 0;
  for (const auto& c : p.cores) {
    counted += c.pipes[static_cast<int>(pto::ir::Pipe::MTE2)].instructions + c.pipes[static_cast<int>(pto::ir::Pipe::V)].instructions +
               c.pipes[static_cast<int>(pto::ir::Pipe::MTE3)].instructions;
  }
  CHECK(counted == 5 * 4);
}

TEST_CASE("a_wait_that_no_set_satisfies_fails_the_launch_as_a_deadlock") {
  const auto kernel = pl::jit({.name = "stuck"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    pl::wait_flag(pl::Pipe::MTE2, pl::Pipe::V, 4);
    t = t + 1.0f;
    pl::store(y.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({64}), y = pto::Tensor<float>::zeros({64});
  kernel[{.block_dim = 2}](x, y);
  try {
    pto::synchronize();
    FAIL("expected a deadlock report");
  } catch (const pto::UserError& e) {
    const std::string what = e.what();
    CHECK(what.find("deadlock") != std::string::npos);
    CHECK(what.find("MTE2 -> V, event 4") != std::string::npos);
    CHECK(what.find("kernel 'stuck'") != std::string::npos);
    CHECK(what.find("core: AIV 0") != std::string::npos);
    CHECK(what.find("kernel_timing_test.cpp:") != std::string::npos);
  }
}

}  // namespace

namespace {
TEST_CASE("manual_sync_under_auto_mutex_is_reported_as_a_warning") {
  const auto kernel = pl::jit({.name = "twice", .auto_mutex = true}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    pl::set_flag(pl::Pipe::MTE2, pl::Pipe::V, 0);
    pl::wait_flag(pl::Pipe::MTE2, pl::Pipe::V, 0);
    t = t * 3.0f;
    pl::store(y.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({64}), y = pto::Tensor<float>::zeros({64});
  auto p = kernel[{.block_dim = 1}].run_sync(x, y);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("guarded twice") != std::string::npos);
  CHECK(p.warnings[0].find("kernel_timing_test.cpp:") != std::string::npos);
  CHECK(p.races.empty());
  for (int i = 0; i < 64; ++i) CHECK(y[i] == x[i] * 3.0f);
}
}  // namespace

namespace {

/// Block 0 streams `heavy` tiles of x, the others one; then (with `meet`) they sync_all, and each
/// stores one tile.
auto make_uneven(bool meet) {
  return pl::jit({.name = meet ? "uneven_then_sync_all" : "uneven_alone"}, [meet](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 256});
    auto b = pl::get_block_idx();
    auto loads = pl::max(pl::Int(1), 24 - b * 24);  // 24 on block 0, 1 elsewhere
    for (auto i : pl::range(0, loads)) {
      pl::load(t, x, {i * 16, 0});
    }
    if (meet) pl::sync_all();
    pl::store(y, t, {b * 16, 0});
  });
}

}  // namespace

TEST_CASE("sync_all_holds_every_core_until_the_slowest_arrives_and_costs_the_profiles_sync_all_cycles") {
  auto x = pto::Tensor<float>::random({24 * 16, 256}, 9);
  auto y = pto::Tensor<float>::zeros({4 * 16, 256});
  const auto alone = make_uneven(false)[{.block_dim = 4}].run_sync(x, y);
  const auto met = make_uneven(true)[{.block_dim = 4}].run_sync(x, y);
  const auto& chip = pto::ChipProfile::default_profile();
  const double sync_us = chip.sync_all_cycles / chip.clock_ghz / 1e3;
  // Alone, the light cores finish long before block 0; met, none ends before block 0 has arrived.
  CHECK(alone.core_us[1] < 0.5 * alone.core_us[0]);
  for (int c = 1; c < 4; ++c) CHECK(met.core_us[c] >= alone.core_us[0] - 0.2 * alone.core_us[0] + sync_us);
  // Block 0's own time grows by about the meeting's cost (its final store then shares HBM with three others).
  CHECK(met.core_us[0] >= alone.core_us[0] + sync_us);
  CHECK(met.core_us[0] <= alone.core_us[0] + sync_us + 1.0);
  CHECK(met.races.empty());
}

namespace {

/// Six element-wise steps over a [32, 256] float tile on one core, either as six tile
/// instructions through intermediate tiles or as one pl::vector_function, or (fused) as one tile
/// expression.
pto::LaunchProfile vf_chain_profile(int form) {
  const auto k = pl::jit({.name = "vf_chain_" + std::to_string(form)}, [form](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto xt = pl::make_tile<float>(pl::Vec, {32, 256});
    auto a = pl::make_tile<float>(pl::Vec, {32, 256});
    auto b = pl::make_tile<float>(pl::Vec, {32, 256});
    auto yt = pl::make_tile<float>(pl::Vec, {32, 256});
    pl::load(xt, x.slice(0, 32, 0, 256));
    if (form == 0) {
      a = xt * 2.0f;
      b = a + xt;
      a = pl::exp(b);
      b = a * xt;
      a = pl::max(b, 0.5f);
      yt = a - xt;
    } else if (form == 1) {
      pl::vector_function([&](pl::VectorFunction& vf) {
        auto v = vf.load(xt);
        auto e = pl::exp(v * 2.0f + v);
        vf.store(yt, pl::max(e * v, 0.5f) - v);
      });
    } else {
      yt = pl::max(pl::exp(xt * 2.0f + xt) * xt, 0.5f) - xt;
    }
    pl::store(y.slice(0, 32, 0, 256), yt);
  });
  auto x = pto::Tensor<float>::random({32, 256}, 5), y = pto::Tensor<float>::zeros({32, 256});
  return k[{.block_dim = 1}].run_sync(x, y);
}

}  // namespace

TEST_CASE("a vector function's register operations skip the UB round trips of tile instructions: the chain runs faster") {
  const auto steps = vf_chain_profile(0), vf = vf_chain_profile(1), fused = vf_chain_profile(2);
  MESSAGE("six tile instructions " << steps.device_us << " us, one fused tile expression " << fused.device_us
                                   << " us, one vector function " << vf.device_us << " us (simulated)");
  // Tile instructions (separate or fused into one expression: the same vector instructions on the
  // chip) read and write UB per operation; the function's element-wise steps run on registers.
  CHECK(vf.device_us < steps.device_us);
  CHECK(vf.device_us < fused.device_us);
}
