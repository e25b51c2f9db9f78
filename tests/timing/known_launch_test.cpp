// Known launches (emulator/KnownLaunches.hpp): a timed launch whose traces follow from its
// arguments takes the profile of the same launch before, without running the pipeline model,
// and computes its results as always; any other launch records and replays.
#include <doctest/doctest.h>

#include <string>

#include "common/SampleProfiles.hpp"
#include "pto/runtime/Emulator.hpp"

namespace {

namespace pl = pto::lang;
namespace va = pto::samples::vector_add;
using pto::Tensor;
using pto::test::check_same_profile;

uint64_t known() { return pto::runtime_stats().known_launches; }

/// z = x + y on `block_dim` cores, checked element by element; its profile.
pto::LaunchProfile add(const decltype(va::make_kernel<float>({}))& kernel, int64_t n, int block_dim, uint64_t seed) {
  auto x = Tensor<float>::random({n}, seed), y = Tensor<float>::random({n}, seed + 1), z = Tensor<float>::zeros({n});
  const auto profile = kernel[{.block_dim = block_dim}].run_sync(x, y, z);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += z[i] != x[i] + y[i];
  CHECK(wrong == 0);
  return profile;
}

}  // namespace

TEST_CASE("a_repeated_launch_takes_the_first_profile_and_still_computes_its_results") {
  const auto kernel = va::make_kernel<float>({.tile = 2048});
  const auto before = known();
  const auto first = add(kernel, 100000, 6, 1);
  CHECK(known() == before);  // the first launch records
  const auto again = add(kernel, 100000, 6, 7);  // other data, the same launch
  CHECK(known() == before + 1);
  check_same_profile(first, again);
  // Another block_dim or length is another launch: recorded, its own cycles.
  const auto other = add(kernel, 100000, 5, 3);
  const auto longer = add(kernel, 100001, 6, 4);
  CHECK(known() == before + 1);
  CHECK(other.device_us != first.device_us);
  CHECK(longer.device_us != first.device_us);
  // With the replay cache off, every launch records and replays: the same cycles again.
  pto::set_replay_cache(false);
  const auto recorded = add(kernel, 100000, 6, 5);
  pto::set_replay_cache(true);
  CHECK(known() == before + 1);
  check_same_profile(first, recorded);
}

TEST_CASE("a_kernel_that_reads_a_scalar_from_memory_records_every_launch") {
  // The loop count comes from GM: the same arguments' shapes, other traces.
  const auto k = pl::jit({.name = "known_getval"}, [](pl::Tensor<int32_t> count, pl::Tensor<float> x, pl::Tensor<float> y) {
    const pl::Int n = pl::getval(count, 0);
    auto t = pl::make_tile<float>(pl::Vec, {1, 64});
    for (auto r : pl::range(0, n)) {
      pl::load(t, x, {r, 0});
      t = t + 1.0f;
      pl::store(y, t, {r, 0});
    }
  });
  auto x = Tensor<float>::random({8, 64}, 2);
  auto run = [&](int rows) {
    auto count = Tensor<int32_t>::full({1}, rows);
    auto y = Tensor<float>::zeros({8, 64});
    const auto p = k[{.block_dim = 1}].run_sync(count, x, y);
    int64_t wrong = 0;
    for (int64_t i = 0; i < 8 * 64; ++i) wrong += y[i] != (i / 64 < rows ? x[i] + 1.0f : 0.0f);
    CHECK(wrong == 0);
    return p;
  };
  const auto before = known();
  const auto two = run(2);
  const auto six = run(6);
  const auto two_again = run(2);
  CHECK(known() == before);
  CHECK(six.device_us > two.device_us);
  CHECK(two_again.device_us == two.device_us);
  CHECK(six.instructions > two.instructions);
}

TEST_CASE("a_known_launch_that_races_reports_its_races_as_the_first_did") {
  const auto k = pl::jit({.name = "known_race", .auto_mutex = true, .on_race = pto::OnRace::fail},
                         [](pl::Tensor<float> x, pl::Tensor<float> z) {
                           auto t = pl::make_tile<float>(pl::Vec, {64});
                           pl::load(t, x.slice(0, 64));
                           t = t + 1.0f;
                           pl::store(z.slice(0, 64), t);  // every block writes the same elements
                         });
  auto x = Tensor<float>::random({256}, 1);
  auto z = Tensor<float>::zeros({256});
  const auto before = known();
  for (int launch = 0; launch < 3; ++launch) {
    std::string what;
    try {
      k[{.block_dim = 3}].run_sync(x, z);
    } catch (const pto::UserError& e) {
      what = e.what();
    }
    CAPTURE(launch);
    CHECK(what.find("WAW race on GM tensor arg1 between blocks") != std::string::npos);
  }
  CHECK(known() == before + 2);
}

TEST_CASE("a_kernel_whose_valid_extents_follow_its_data_records_every_launch") {
  // mrgsort2 with exhausted stops when one list runs out: how many records it merges, and so the
  // valid extent a later store and loop take, depends on the values.
  const auto k = pl::jit({.name = "known_mrgsort2"}, [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<int32_t> idx,
                                                         pl::Tensor<float> out) {
    auto sa = pl::make_tile<float>(pl::Vec, {1, 32});
    auto sb = pl::make_tile<float>(pl::Vec, {1, 32});
    auto i = pl::make_tile<int32_t>(pl::Vec, {1, 32});
    auto ra = pl::make_tile<float>(pl::Vec, {1, 64});
    auto rb = pl::make_tile<float>(pl::Vec, {1, 64});
    auto merged = pl::make_tile<float>(pl::Vec, {1, 128});
    auto tmp = pl::make_tile<float>(pl::Vec, {1, 128});
    pl::load(sa, a, {0, 0});
    pl::load(sb, b, {0, 0});
    pl::load(i, idx, {0, 0});
    pl::sort32(ra, sa, i);
    pl::sort32(rb, sb, i);
    pl::mrgsort2(ra, rb, merged, tmp, {.exhausted = true});
    for (auto r : pl::range(0, pl::valid_cols(merged))) pl::store(out, merged, {0, 0});
  });
  auto run = [&](float bias) {
    auto a = Tensor<float>::zeros({1, 32}), b = Tensor<float>::zeros({1, 32});
    auto idx = Tensor<int32_t>::zeros({1, 32});
    for (int c = 0; c < 32; ++c) a[c] = static_cast<float>(c) + bias, b[c] = static_cast<float>(c), idx[c] = c;
    auto out = Tensor<float>::zeros({1, 128});
    return k[{.block_dim = 1}].run_sync(a, b, idx, out);
  };
  const auto before = known();
  const auto interleaved = run(0.5f);  // the lists interleave: most records merged before one runs out
  const auto apart = run(1000.0f);     // every b record first: b runs out after its 32
  CHECK(known() == before);
  CHECK(apart.instructions != interleaved.instructions);
  pto::set_replay_cache(false);
  const auto recorded = run(1000.0f);
  pto::set_replay_cache(true);
  check_same_profile(apart, recorded);
}
