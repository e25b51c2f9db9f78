// Tiered compilation (JitOptions::tiered, TierUp.hpp): the quick tier's first call, the optimising
// compile its second launch queues, and the same results and simulated cycles from both tiers.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <pto/pto.hpp>

namespace pl = pto::lang;

namespace {

/// Row softmax over [rows, 256] in tiles of 8 rows: exp, row reductions, broadcasts and a
/// division, the vector code where the tiers' code differs most.
auto make_softmax(const std::string& name, bool tiered) {
  return pl::jit({.name = name, .tiered = tiered}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    constexpr int64_t kRows = 8, kCols = 256;
    auto xs = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto e = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto mx = pl::make_tile<float>(pl::Vec, {kRows, 1});
    auto sum = pl::make_tile<float>(pl::Vec, {kRows, 1});
    for (auto t : pl::range(pl::get_block_idx(), x.dim(0) / kRows, pl::get_block_num())) {
      pl::load(xs, x.slice(t * kRows, kRows, 0, kCols));
      pl::row_max(mx, xs);
      e = pl::exp(xs - mx);
      pl::row_sum(sum, e);
      xs = e / sum;
      pl::store(y.slice(t * kRows, kRows, 0, kCols), xs);
    }
  });
}

bool same_bits(const pto::Tensor<float>& a, const pto::Tensor<float>& b) {
  return std::memcmp(a.data(), b.data(), static_cast<size_t>(a.numel()) * sizeof(float)) == 0;
}

void check_reference(const pto::Tensor<float>& x, const pto::Tensor<float>& y) {
  for (int64_t r = 0; r < x.dim(0); ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < x.dim(1); ++c) m = std::max(m, static_cast<double>(x.at(r, c)));
    for (int64_t c = 0; c < x.dim(1); ++c) s += std::exp(static_cast<double>(x.at(r, c)) - m);
    for (int64_t c = 0; c < x.dim(1); ++c) {
      REQUIRE(y.at(r, c) == doctest::Approx(std::exp(static_cast<double>(x.at(r, c)) - m) / s).epsilon(1e-5));
    }
  }
}

}  // namespace

TEST_CASE("a tiered kernel runs quick-tier code first, is replaced by optimised code after its second launch, and both agree bit for bit") {
  const auto tiered = make_softmax("tier_softmax", true);
  const auto once = make_softmax("tier_softmax_once", false);
  auto x = pto::Tensor<float>::random({64, 256}, 7, -4.0, 4.0);
  auto y_quick = pto::Tensor<float>::zeros({64, 256});
  auto y_opt = pto::Tensor<float>::zeros({64, 256});
  auto y_once = pto::Tensor<float>::zeros({64, 256});

  const auto ck = tiered[{.block_dim = 4}].compile(x, y_quick);
  REQUIRE(ck->quick);
  REQUIRE(ck->tier_up != nullptr);
  const pto::KernelFn quick_fn = ck->fn.load();
  const uint64_t tier_ups0 = pto::runtime_stats().tier_ups;
  const double tier_up_ms0 = pto::runtime_stats().tier_up_ms;

  const pto::LaunchProfile p_quick = tiered[{.block_dim = 4}].run_sync(x, y_quick);  // launch 1: no tier-up yet
  CHECK_FALSE(ck->tier_up->queued());
  CHECK(reinterpret_cast<void*>(ck->fn.load()) == reinterpret_cast<void*>(quick_fn));
  check_reference(x, y_quick);

  tiered[{.block_dim = 4}].run_sync(x, y_opt);  // launch 2 queues the optimising compile
  CHECK(ck->tier_up->queued());
  pto::await_tier_ups();
  CHECK(ck->tier_up->done.load());
  CHECK(reinterpret_cast<void*>(ck->fn.load()) != reinterpret_cast<void*>(quick_fn));
  CHECK(pto::runtime_stats().tier_ups == tier_ups0 + 1);
  CHECK(ck->tier_up->compile_ms.load() > 0);
  CHECK(pto::runtime_stats().tier_up_ms >= tier_up_ms0 + ck->tier_up->compile_ms.load() - 1e-9);

  std::memset(y_opt.data(), 0, static_cast<size_t>(y_opt.numel()) * sizeof(float));
  const pto::LaunchProfile p_opt = tiered[{.block_dim = 4}].run_sync(x, y_opt);  // on the optimised code
  const pto::LaunchProfile p_once = once[{.block_dim = 4}].run_sync(x, y_once);
  const auto once_ck = once[{.block_dim = 4}].compile(x, y_once);
  CHECK_FALSE(once_ck->quick);
  CHECK(once_ck->tier_up == nullptr);

  CHECK(same_bits(y_quick, y_opt));
  CHECK(same_bits(y_quick, y_once));
  CHECK(p_quick.device_us == p_opt.device_us);
  CHECK(p_quick.device_us == p_once.device_us);
  CHECK(p_quick.core_us == p_opt.core_us);
  CHECK(p_quick.instructions == p_opt.instructions);
}

TEST_CASE("a kernel launched once never queues its optimising compile; opt_level below 2 and the interpreter are not tiered") {
  const auto k = make_softmax("tier_one_shot", true);
  auto x = pto::Tensor<float>::random({16, 256}, 3);
  auto y = pto::Tensor<float>::zeros({16, 256});
  k[{.block_dim = 2}](x, y);
  pto::synchronize();
  const auto ck = k[{.block_dim = 2}].compile(x, y);
  REQUIRE(ck->tier_up != nullptr);
  CHECK_FALSE(ck->tier_up->queued());
  check_reference(x, y);

  const auto o1 = k.with_options({.name = "tier_o1", .opt_level = 1});
  CHECK(o1[{.block_dim = 2}].compile(x, y)->tier_up == nullptr);
  const auto interp = k.with_options({.name = "tier_interp", .interpret = true});
  CHECK(interp[{.block_dim = 2}].compile(x, y)->tier_up == nullptr);
}
