// A process that exits with work still running in the background: launches queued on the
// default stream. Each case runs itself as a child process (PTO_TEST_EXIT_CHILD names the case)
// and checks that the child exits with status 0: no crash, no hang, the launches completed.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include <unistd.h>

#include <pto/pto.hpp>

#include "common/Shell.hpp"

namespace pl = pto::lang;

namespace {

/// Runs this test binary's case `name` as a child with PTO_TEST_EXIT_CHILD=name.
pto::test::ShellResult run_child(const std::string& name) {
  return pto::test::shell("PTO_TEST_EXIT_CHILD=" + name + " timeout 120 /proc/" + std::to_string(getpid()) + "/exe --test-case=" + name + " 2>&1");
}

bool is_child(const char* name) {
  const char* v = std::getenv("PTO_TEST_EXIT_CHILD");
  return v && std::string(v) == name;
}

}  // namespace

TEST_CASE("exit_with_launches_queued_on_the_default_stream") {
  if (is_child("exit_with_launches_queued_on_the_default_stream")) {
    auto add = pl::jit({.name = "exit_add"}, [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
      auto a = pl::make_tile<float>(pl::Vec, {4096}), b = pl::make_tile<float>(pl::Vec, {4096});
      for (auto i : pl::range(pl::get_block_idx(), x.dim(0) / 4096, pl::get_block_num())) {
        pl::load(a, x.slice(i * 4096, 4096));
        pl::load(b, y.slice(i * 4096, 4096));
        a = a + b;
        pl::store(z.slice(i * 4096, 4096), a);
      }
    });
    static auto x = pto::Tensor<float>::random({1 << 22}), y = pto::Tensor<float>::random({1 << 22}), z = pto::Tensor<float>::zeros({1 << 22});
    for (int i = 0; i < 6; ++i) add[{.block_dim = 8}](x, y, z);  // asynchronous, on the default stream
    std::exit(0);
  }
  const auto [status, out] = run_child("exit_with_launches_queued_on_the_default_stream");
  INFO(out);
  CHECK(status == 0);
}
