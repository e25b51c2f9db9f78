// Misuse of pl::sync_all: a core that never arrives is a deadlock report naming the meeting, how
// many arrived and who ended without it (never a hang); calls with different scopes in one
// kernel are refused when the kernel is traced. Tensors nobody wrote stay intact.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("sync_all inside a branch that one block skips: a deadlock report, not a hang") {
  int meet_line = 0;
  const auto k = pl::jit({.name = "sync_all_divergent"}, [&](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    auto b = pl::get_block_idx();
    pl::load(t, x, {b * 8, 0});
    pl::if_(b != 1, [&] { meet_line = __LINE__; pl::sync_all(); });
    pl::store(y, t, {b * 8, 0});
  });
  auto x = pto::Tensor<float>::random({32, 64}, 5);
  auto y = pto::Tensor<float>::full({32, 64}, 2.5f);
  const std::string msg = user_error([&] { k[{.block_dim = 4}].run_sync(x, y); });
  CHECK_HAS(msg, "kernel 'sync_all_divergent'", "deadlock: sync_all (#", "waits for every AIV of the launch", "3 of 4 arrived",
            "AIV 1 ended without reaching it", "core: AIV 0", PTO_AT(meet_line));
  // Block 1 ran to its end (its store landed); the three that waited wrote nothing.
  int64_t wrong = 0;
  for (int64_t i = 0; i < 32 * 64; ++i) wrong += y[i] != (i / (8 * 64) == 1 ? x[i] : 2.5f);
  CHECK(wrong == 0);
  check_runtime_usable();
}

TEST_CASE("a block that runs its loop once less than the others misses a sync_all: deadlock, with the count") {
  const auto k = pl::jit({.name = "sync_all_uneven_loop"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::load(t, x, {0, 0});
    for (auto i : pl::range(0, 3 - pl::get_block_idx() / 2)) {
      (void)i;
      pl::sync_all();
    }
    pl::store(y, t, {pl::get_block_idx() * 8, 0});
  });
  auto x = pto::Tensor<float>::random({8, 64}, 6);
  auto y = pto::Tensor<float>::zeros({24, 64});
  const std::string msg = user_error([&] { k[{.block_dim = 3}].run_sync(x, y); });
  CHECK_HAS(msg, "kernel 'sync_all_uneven_loop'", "deadlock: sync_all", "2 of 3 arrived", "AIV 2 ended without reaching it");
  check_runtime_usable();
}

TEST_CASE("sync_all calls of one kernel meet one set of cores: section_vector and outside sections together are refused") {
  int second_line = 0;
  const auto k = pl::jit({.name = "sync_all_two_scopes", .mode = pto::ir::KernelMode::Mix}, [&](pl::Tensor<float> x) {
    pl::section_cube([&] {});
    pl::section_vector([&] {
      auto t = pl::make_tile<float>(pl::Vec, {8, 64});
      pl::load(t, x, {0, 0});
      pl::sync_all();
    });
    second_line = __LINE__; pl::sync_all();
  });
  auto x = pto::Tensor<float>::random({8, 64}, 7);
  const std::string msg = user_error([&] { k[{.block_dim = 2}].run_sync(x); });
  CHECK_HAS(msg, "kernel 'sync_all_two_scopes'", "sync_all meets every core here but every AIV at an earlier call",
            "must all be in section_vector, all in section_cube or all outside sections", PTO_AT(second_line));
  check_runtime_usable();
}

}  // namespace pto::error_test
