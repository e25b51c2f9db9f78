// set_hook_log: a timed launch's model calls written down while its cores run and played into
// the models after give the profile, the race reports and the errors that calling the models as
// the cores run gives (the JIT's code and the interpreter, one and two host threads).
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "03_matmul/matmul.hpp"
#include "common/FlashAttentionProfile.hpp"
#include "common/SampleProfiles.hpp"
#include "pto/runtime/Emulator.hpp"
#include "pto/runtime/Profiler.hpp"

namespace {

namespace pl = pto::lang;
namespace mm = pto::samples::matmul;
using pl::Pipe;
using pto::samples::SyncMode;
using pto::test::vector_add_profile;

/// `run()` with the hooks written down, then with the models called live (the replay cache off:
/// each launch replayed). Checks that the first way wrote hooks down and the second did not.
template <class T>
std::pair<T, T> both_ways(const std::function<T()>& run) {
  pto::set_replay_cache(false);
  const uint64_t before = pto::runtime_stats().hook_logged;
  T logged = run();
  const uint64_t after_logged = pto::runtime_stats().hook_logged;
  pto::set_hook_log(false);
  T live = run();
  pto::set_hook_log(true);
  pto::set_replay_cache(true);
  CHECK(after_logged > before);
  CHECK(pto::runtime_stats().hook_logged == after_logged);
  return {std::move(logged), std::move(live)};
}

void check_same(const pto::LaunchProfile& a, const pto::LaunchProfile& b) {
  pto::test::check_same_profile(a, b);
  REQUIRE(a.races.size() == b.races.size());
  for (size_t i = 0; i < a.races.size(); ++i) CHECK(a.races[i].message() == b.races[i].message());
  CHECK(a.audit_races.size() == b.audit_races.size());
  CHECK(a.flops == b.flops);
  CHECK(a.macs == b.macs);
}

/// check_same, and the instruction spans and flag flows a profiler gets.
void check_same_timeline(const pto::LaunchProfile& a, const pto::LaunchProfile& b) {
  check_same(a, b);
  REQUIRE(a.spans.size() == b.spans.size());
  REQUIRE(a.flows.size() == b.flows.size());
  for (size_t c = 0; c < a.spans.size(); ++c) {
    REQUIRE(a.spans[c].size() == b.spans[c].size());
    for (size_t i = 0; i < a.spans[c].size(); ++i) {
      CHECK(a.spans[c][i].instr == b.spans[c][i].instr);
      CHECK(a.spans[c][i].start == b.spans[c][i].start);
      CHECK(a.spans[c][i].end == b.spans[c][i].end);
    }
    REQUIRE(a.flows[c].size() == b.flows[c].size());
    for (size_t i = 0; i < a.flows[c].size(); ++i) {
      CHECK(a.flows[c][i].set_instr == b.flows[c][i].set_instr);
      CHECK(a.flows[c][i].src_slot == b.flows[c][i].src_slot);
      CHECK(a.flows[c][i].set_time == b.flows[c][i].set_time);
      CHECK(a.flows[c][i].wait_time == b.flows[c][i].wait_time);
    }
  }
}

/// The profile of `launch()` as a running profiler records it: with instruction spans and flag flows.
pto::LaunchProfile recorded(const std::function<pto::LaunchProfile()>& launch) {
  const auto dir = std::filesystem::temp_directory_path() / "pto_hook_log_test";
  pto::Profiler profiler({.activities = {pto::ProfilerActivity::NPU}, .output_dir = dir.string()});
  profiler.start();
  pto::LaunchProfile p = launch();
  profiler.stop();
  std::filesystem::remove_all(dir);
  return p;
}

pto::LaunchProfile softmax_profile(SyncMode sync) {
  return pto::test::softmax_profile({.buffers = 2, .rows_per_tile = 4, .sync = sync}, 96, 300, 5);
}

}  // namespace

TEST_CASE("hook_log: vector kernels, synced and racing, profile the same with their hooks written down") {
  pto::test::for_each_backend_threads_sync([](SyncMode sync) {
    auto [a, b] = both_ways<pto::LaunchProfile>([&] { return vector_add_profile({.buffers = 2, .tile = 2048, .sync = sync}, 30000, 5); });
    check_same(a, b);
    CHECK(a.races.empty() == (sync != SyncMode::none));  // no sync at all: the model reports the races
    auto [s, t] = both_ways<pto::LaunchProfile>([&] { return softmax_profile(sync); });
    check_same(s, t);
    CHECK(s.races.empty() == (sync != SyncMode::none));
  });
}

// The generated code writes the records at the log's cursor until the next would pass its limit,
// then calls the hook, which grows the log and moves the cursor; 8000 tiles on one core write about
// 270K words, past any log an earlier case left in the storage pool, so the log grows several times.
TEST_CASE("hook_log: a core whose log grows many times while its generated code writes it profiles the same") {
  auto [a, b] = both_ways<pto::LaunchProfile>([&] { return vector_add_profile({.buffers = 2, .tile = 64}, 64 * 8000, 1); });
  check_same(a, b);
  CHECK(a.races.empty());
}

TEST_CASE("hook_log: a cube kernel and an audited launch profile the same with their hooks written down") {
  const auto kernel = mm::make_kernel<float>({.tm = 64, .tn = 64, .tk = 64});
  auto a = pto::Tensor<float>::random({128, 192}, 1), b = pto::Tensor<float>::random({192, 128}, 2);
  auto [p, q] = both_ways<pto::LaunchProfile>([&] {
    auto c = pto::Tensor<float>::zeros({128, 128}), want = pto::Tensor<float>::zeros({128, 128});
    auto prof = kernel[{.block_dim = 3}].run_sync(a, b, c);
    mm::reference(a, b, want);
    REQUIRE(pto::samples::max_abs_diff(c, want) <= 1e-4);
    return prof;
  });
  check_same(p, q);
  CHECK(p.macs == 128.0 * 128 * 192);

  pto::ScopedOptionOverrides quiet({.on_race = pto::OnRace::report});
  pto::set_race_audit(true);
  auto [r, s] = both_ways<pto::LaunchProfile>([] { return vector_add_profile({.buffers = 2, .tile = 256, .sync = SyncMode::none}, 2000, 2); });
  pto::set_race_audit(false);
  check_same(r, s);
  CHECK(r.audited);
  CHECK_FALSE(r.audit_races.empty());
}

/// The UserError a launch of `k` on `block_dim` blocks gives, written down and live.
template <class K>
std::pair<std::string, std::string> errors_both_ways(const K& k, int block_dim) {
  auto x = pto::Tensor<float>::random({64}, 1);
  return both_ways<std::string>([&] {
    auto z = pto::Tensor<float>::zeros({64});
    try {
      k[{.block_dim = block_dim}].run_sync(x, z);
    } catch (const pto::UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  });
}

TEST_CASE("hook_log: a model's error is the same UserError with the hooks written down") {
  const auto k = pl::jit({.name = "waits_unset", .auto_mutex = false, .timing = true}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    pl::wait_flag(Pipe::MTE2, Pipe::MTE3, 2);  // no set_flag before it: a deadlock on the chip
    pl::store(z.slice(0, 64), t);
  });
  const auto [logged, live] = errors_both_ways(k, 2);
  CHECK(logged == live);
  CHECK(logged.find("waits_unset") != std::string::npos);
  CHECK(logged.find("deadlock: wait_flag") != std::string::npos);

  // An event id known only at run time, past what one word of the log holds (a sync call written
  // down in three words): the model's range check, the same error both ways.
  const auto far = pl::jit({.name = "far_event", .auto_mutex = false, .timing = true}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    pl::set_flag(Pipe::MTE2, Pipe::MTE3, pl::get_block_idx() + 40000);
    pl::store(z.slice(0, 64), t);
  });
  const auto [far_logged, far_live] = errors_both_ways(far, 1);
  CHECK(far_logged == far_live);
  CHECK(far_logged.find("set_flag event id 40000 is out of range 0..15") != std::string::npos);
}

TEST_CASE("hook_log: a mix block's three cores write one log; flash attention profiles the same, spans and flows included") {
  for (bool interpret : {false, true}) {
    pto::ScopedOptionOverrides backend({.interpret = interpret});
    for (int threads : {1, 2}) {
      CAPTURE(interpret);
      CAPTURE(threads);
      pto::set_host_threads(threads);
      auto [a, b] = both_ways<pto::LaunchProfile>([] { return recorded([] { return pto::test::flash_attention_profile(3); }); });
      pto::set_host_threads(0);
      check_same_timeline(a, b);
      CHECK(a.races.empty());
      REQUIRE(a.cores.size() == 9);
      bool cross = false;  // the AIVs' waits name flags the AIC set
      for (const auto& f : a.flows[1]) cross = cross || f.src_slot == 0;
      CHECK(cross);
    }
  }
}

TEST_CASE("hook_log: a mix block's race between its cores and its model's error are the same with the hooks written down") {
  // Each AIV stores its half of x into w and says so; the AIC reads w without waiting for that
  // (and, running first, reads before the AIVs write): a WAR race on GM between the block's cores,
  // which their models see through the block's shared GM race state, in the order the cores made
  // their calls.
  pto::ScopedOptionOverrides quiet({.on_race = pto::OnRace::report});
  const auto racing = pl::jit({.name = "mix_reads_early", .auto_mutex = true, .chip = "a2", .timing = true, .race_check = true},
                              [](pl::Tensor<pto::half> x, pl::Tensor<pto::half> w) {
    pl::section_vector([&] {
      auto t = pl::make_tile<pto::half>(pl::Vec, {8, 16});
      auto row = pl::get_subblock_idx() * 8;
      pl::load(t, x.slice(row, 8, 0, 16));
      pl::store(w.slice(row, 8, 0, 16), t);
      pl::set_cross_core(pl::Pipe::MTE3, 1);
    });
    pl::section_cube([&] {
      auto m = pl::make_tile<pto::half>(pl::Mat, {16, 16});
      pl::load(m, w.slice(0, 16, 0, 16));  // not waiting for event 1 first
      pl::wait_cross_core(pl::Pipe::MTE2, 1);
    });
  });
  auto [r, s] = both_ways<pto::LaunchProfile>([&] {
    auto x = pto::Tensor<pto::half>::random({16, 16}, 5), w = pto::Tensor<pto::half>::zeros({16, 16});
    return racing[{.block_dim = 1}].run_sync(x, w);
  });
  check_same(r, s);
  REQUIRE_FALSE(r.races.empty());
  CHECK(r.races.front().kind == "WAR");

  // An AIV waits on a flag of its own pipes that nothing sets: the model's deadlock, the same UserError.
  const auto stuck = pl::jit({.name = "mix_waits_unset", .auto_mutex = false, .chip = "a2", .timing = true},
                             [](pl::Tensor<pto::half> x, pl::Tensor<pto::half> y) {
    pl::section_cube([&] { pl::set_cross_core(pl::Pipe::MTE2, 0); });
    pl::section_vector([&] {
      auto t = pl::make_tile<pto::half>(pl::Vec, {8, 16});
      pl::wait_cross_core(pl::Pipe::MTE2, 0);
      pl::load(t, x.slice(pl::get_subblock_idx() * 8, 8, 0, 16));
      pl::wait_flag(Pipe::MTE2, Pipe::MTE3, 3);
      pl::store(y.slice(pl::get_subblock_idx() * 8, 8, 0, 16), t);
    });
  });
  auto [logged, live] = both_ways<std::string>([&] {
    auto x = pto::Tensor<pto::half>::random({16, 16}, 6), y = pto::Tensor<pto::half>::zeros({16, 16});
    try {
      stuck[{.block_dim = 2}].run_sync(x, y);
    } catch (const pto::UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  });
  CHECK(logged == live);
  CHECK(logged.find("mix_waits_unset") != std::string::npos);
  CHECK(logged.find("deadlock: wait_flag") != std::string::npos);
}
