// set_hook_log: a timed launch's model calls written down while its cores run and played into
// the models after give the profile, the race reports and the errors that calling the models as
// the cores run gives (the JIT's code and the interpreter, one and two host threads).
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "03_matmul/matmul.hpp"
#include "common/SampleProfiles.hpp"
#include "pto/runtime/Emulator.hpp"

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
