// The pieces the campaign is made of, each on its own: the mutation pass (which syncs are sites,
// and what removing one leaves), the per-thread option overrides, and the exhaustive audit
// against hand-made orderings.
#include <doctest/doctest.h>

#include <pto/backend/SyncRemoval.hpp>
#include <pto/pto.hpp>
#include <pto/runtime/Emulator.hpp>

namespace pl = pto::lang;
using pl::Pipe;

namespace {

/// Sample 01's manual protocol on one slot: x -> t (MTE2), t * 2 -> u (V), u -> z (MTE3).
auto manual_kernel(pto::JitOptions o = {}) {
  o.name = "manual";
  o.auto_mutex = false;
  o.interpret = true;
  o.on_race = pto::OnRace::report;
  return pl::jit(o, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile_group<float>(pl::Vec, {256}, {0});
    auto u = pl::make_tile_group<float>(pl::Vec, {256}, {0});
    pl::load(t.current(), x.slice(0, 256));
    pl::set_flag(Pipe::MTE2, Pipe::V, 0);
    pl::wait_flag(Pipe::MTE2, Pipe::V, 0);  // site 0: RAW on t
    u.current() = t.current() * 2.0f;
    pl::set_flag(Pipe::V, Pipe::MTE3, 0);
    pl::wait_flag(Pipe::V, Pipe::MTE3, 0);  // site 1: RAW on u
    pl::store(z.slice(0, 256), u.current());
    pl::pipe_barrier(Pipe::ALL);            // site 2: orders nothing that follows
  });
}

}  // namespace

TEST_CASE("removable_syncs lists waits, barriers(ALL), lock/unlock pairs, in program order") {
  auto x = pto::Tensor<float>::random({256}, 1), z = pto::Tensor<float>::zeros({256});
  auto ck = manual_kernel()[{.block_dim = 1}].compile(x, z);
  const auto sites = pto::backend::removable_syncs(ck->ir);
  REQUIRE(sites.size() == 3);
  CHECK(sites[0].op == pto::ir::SyncOp::WaitFlag);
  CHECK(sites[1].op == pto::ir::SyncOp::WaitFlag);
  CHECK(sites[2].op == pto::ir::SyncOp::Barrier);
  CHECK(sites[0].describe(ck->ir).find("wait_flag") != std::string::npos);

  // auto_mutex: one site per (instruction, tile) guard, each lock paired with its unlock.
  auto automatic = pl::jit({.name = "auto", .auto_mutex = true, .interpret = true}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile_group<float>(pl::Vec, {256}, {0});
    pl::load(t.current(), x.slice(0, 256));
    pl::store(z.slice(0, 256), t.current());
  });
  auto ca = automatic[{.block_dim = 1}].compile(x, z);
  const auto guards = pto::backend::removable_syncs(ca->ir);
  REQUIRE(guards.size() == 2);
  for (const auto& g : guards) {
    CHECK(g.op == pto::ir::SyncOp::MutexLock);
    CHECK(g.automatic);
    CHECK(g.partner >= 0);
    CHECK(ca->ir.instrs[static_cast<size_t>(g.partner)].op == "mutex_unlock");
  }
}

TEST_CASE("removing a sync: the checker and the audit both see the race it leaves; the results stay right") {
  pto::set_race_audit(true);
  auto x = pto::Tensor<float>::random({256}, 2);
  for (int site = -1; site < 3; ++site) {
    CAPTURE(site);
    auto z = pto::Tensor<float>::zeros({256});
    pto::JitOptions o;
    o.remove_sync = site;
    const pto::LaunchProfile p = manual_kernel(o)[{.block_dim = 1}].run_sync(x, z);
    for (int64_t i = 0; i < 256; ++i) REQUIRE(z[i] == x[i] * 2.0f);  // execution is sequential per core
    REQUIRE(p.audited);
    const bool real = site == 0 || site == 1;  // the barrier at the end orders nothing
    CHECK(p.audit_races.empty() == !real);
    CHECK(p.races.empty() == !real);
    if (real) {
      CHECK(p.audit_races.front().kind == "RAW");
      CHECK(p.races.front().kind == "RAW");
    }
  }
  pto::set_race_audit(false);
}

TEST_CASE("option overrides hold on the creating thread while the guard lives, nested guards restore") {
  CHECK(pto::apply_environment({}).remove_sync == -1);
  {
    pto::ScopedOptionOverrides outer({.remove_sync = 4, .on_race = pto::OnRace::report});
    CHECK(pto::apply_environment({}).remove_sync == 4);
    {
      pto::ScopedOptionOverrides inner({.interpret = true, .remove_sync = 1});
      const pto::JitOptions o = pto::apply_environment({});
      CHECK(o.remove_sync == 1);
      CHECK(o.interpret);
    }
    CHECK(pto::apply_environment({}).remove_sync == 4);
    CHECK(pto::apply_environment({}).on_race == pto::OnRace::report);
  }
  CHECK(pto::apply_environment({}).remove_sync == -1);
}

TEST_CASE("the audit compares GM byte for byte: neighbouring rectangles of one tensor do not race, overlapping ones do") {
  pto::set_race_audit(true);
  // Each block stores its own 8 x 16 block of z and loads a block of x that is z itself.
  for (int shift : {0, 16, 8}) {
    CAPTURE(shift);
    auto k = pl::jit({.name = "tiles2d", .on_race = pto::OnRace::report, .interpret = true},
                     [shift](pl::Tensor<float> x, pl::Tensor<float> z) {
                       auto t = pl::make_tile_group<float>(pl::Vec, {8, 16}, {0});
                       auto col = pl::get_block_idx() * 16;
                       pl::load(t.current(), x.slice(0, 8, col + shift, 16));
                       pl::store(z.slice(0, 8, col, 16), t.current());
                     });
    auto y = pto::Tensor<float>::random({8, 80}, 4);
    const pto::LaunchProfile p = k[{.block_dim = 4}].run_sync(y, y);  // x and z are one buffer
    // shift 0: each block reads what it writes itself (ordered by auto_mutex). shift 16: block b
    // reads block b + 1's columns: a race between blocks. shift 8: half overlapping: a race too.
    CHECK(p.audit_races.empty() == (shift == 0));
    CHECK(p.races.empty() == (shift == 0));
  }
  pto::set_race_audit(false);
}

// The race checker leaves out the slots auto_mutex orders completely (backend::mutex_ordered_groups);
// each guard removed in turn must bring its group's checks back, so the race it leaves is still
// reported, by the checker alone (no audit), on the JIT and on the interpreter.
TEST_CASE("mutex_ordered_groups: auto_mutex orders every group; a removed guard leaves its group checked") {
  auto x = pto::Tensor<float>::random({512}, 3);
  for (const bool interpret : {false, true}) {
    CAPTURE(interpret);
    auto make = [&](int remove) {
      pto::JitOptions o{.name = "ordered", .auto_mutex = true, .on_race = pto::OnRace::report};
      o.interpret = interpret;
      o.remove_sync = remove;
      return pl::jit(o, [](pl::Tensor<float> x, pl::Tensor<float> z) {
        auto t = pl::make_tile_group<float>(pl::Vec, {256}, {0, 1});
        auto u = pl::make_tile_group<float>(pl::Vec, {256}, {0, 1});
        for (auto i : pl::range(0, 2)) {
          pl::load(t.current(), x.slice(i * 256, 256));
          u.current() = t.current() * 2.0f;
          pl::store(z.slice(i * 256, 256), u.current());
          t.next();
          u.next();
        }
      });
    };
    auto z = pto::Tensor<float>::zeros({512});
    const auto whole = make(-1)[{.block_dim = 1}].compile(x, z);
    REQUIRE(whole->mutex_ordered.size() == 2);
    CHECK(whole->mutex_ordered[0]);
    CHECK(whole->mutex_ordered[1]);
    const pto::LaunchProfile clean = make(-1)[{.block_dim = 1}].run_sync(x, z);
    CHECK(clean.races.empty());
    for (int64_t i = 0; i < 512; ++i) REQUIRE(z[i] == x[i] * 2.0f);

    const auto sites = pto::backend::removable_syncs(whole->ir);
    REQUIRE(sites.size() == 4);  // load (t), the multiply (u, t), store (u)
    for (int site = 0; site < 4; ++site) {
      CAPTURE(site);
      const auto cut = make(site)[{.block_dim = 1}].compile(x, z);
      REQUIRE(cut->mutex_ordered.size() == 2);
      // The load's or the store's guard: its one group; one of the multiply's: the multiply is no
      // longer wrapped, so both groups it touches are checked.
      const bool multiply = site == 1 || site == 2;
      CHECK(cut->mutex_ordered[0] + cut->mutex_ordered[1] == (multiply ? 0 : 1));
      const pto::LaunchProfile p = make(site)[{.block_dim = 1}].run_sync(x, z);
      CHECK_FALSE(p.races.empty());
    }
  }
  // Hand-written flags: no group is taken as ordered.
  auto z = pto::Tensor<float>::zeros({256});
  CHECK(manual_kernel()[{.block_dim = 1}].compile(x, z)->mutex_ordered.empty());
}
