// The sync-removal campaign's misuse: a sync site the kernel does not have (a UserError naming the
// kernel; nothing written, the runtime usable), and a launch too large for the exhaustive race
// audit (run, not audited, a warning saying why).
#include <doctest/doctest.h>

#include <pto/pto.hpp>
#include <pto/runtime/Emulator.hpp>

namespace pl = pto::lang;
using pl::Pipe;

namespace {

auto two_waits(int remove_sync) {
  return pl::jit({.name = "two_waits", .auto_mutex = false, .on_race = pto::OnRace::report, .interpret = true, .remove_sync = remove_sync},
                 [](pl::Tensor<float> x, pl::Tensor<float> z) {
                   auto t = pl::make_tile_group<float>(pl::Vec, {256}, {0});
                   pl::load(t.current(), x.slice(0, 256));
                   pl::set_flag(Pipe::MTE2, Pipe::MTE3, 0);
                   pl::wait_flag(Pipe::MTE2, Pipe::MTE3, 0);
                   pl::store(z.slice(0, 256), t.current());
                   pl::pipe_barrier(Pipe::ALL);
                 });
}

}  // namespace

TEST_CASE("remove_sync past the kernel's sync sites is a UserError naming the kernel and how many it has") {
  auto x = pto::Tensor<float>::random({256}, 3), z = pto::Tensor<float>::zeros({256});
  try {
    two_waits(2)[{.block_dim = 1}].run_sync(x, z);
    FAIL("expected a UserError");
  } catch (const pto::UserError& e) {
    const std::string what = e.what();
    CHECK(what.find("kernel 'two_waits'") != std::string::npos);
    CHECK(what.find("remove_sync = 2 is not a sync site of this kernel: it has 2 (0..1)") != std::string::npos);
  }
  for (int64_t i = 0; i < 256; ++i) REQUIRE(z[i] == 0.0f);  // nothing written
  two_waits(1)[{.block_dim = 1}].run_sync(x, z);            // the runtime stays usable
  CHECK(z[5] == x[5]);
}

TEST_CASE("a launch too large for the exhaustive race audit is run but not audited, and a warning says why") {
  // 60,000 vector ops on one tile: 60,000 accessing ops x 60,000 ops is past the audit's limit.
  auto k = pl::jit({.name = "long_loop", .on_race = pto::OnRace::report, .interpret = true}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile_group<float>(pl::Vec, {8}, {0});
    pl::load(t.current(), x.slice(0, 8));
    for (auto i : pl::range(60000)) {
      (void)i;
      t.current() = t.current() + 1.0f;
    }
    pl::store(z.slice(0, 8), t.current());
  });
  auto x = pto::Tensor<float>::zeros({8}), z = pto::Tensor<float>::zeros({8});
  pto::set_race_audit(true);
  const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(x, z);
  pto::set_race_audit(false);
  CHECK(z[3] == 60000.0f);  // the launch itself is whole
  CHECK_FALSE(p.audited);
  REQUIRE_FALSE(p.warnings.empty());
  CHECK(p.warnings.back().find("the race audit is for small launches") != std::string::npos);
  CHECK(p.warnings.back().find("use a smaller shape or block_dim") != std::string::npos);
}
