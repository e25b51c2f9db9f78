// What a race does (JitOptions::on_race): warn prints each distinct race once per specialisation
// on stderr (the default: a user must not miss one), fail makes the launch throw a UserError with
// the report, report only records it in the profile.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "error_common.hpp"

namespace pto::error_test {
namespace {

/// A kernel whose blocks all store the same output tile (the block index forgotten): a WAW race
/// between blocks; `line` is the store's line.
auto same_tile_kernel(pto::OnRace on_race, int& line) {
  return pl::jit({.name = "same_tile", .auto_mutex = true, .on_race = on_race}, [&line](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    t = t + 1.0f;
    line = __LINE__; pl::store(z.slice(0, 64), t);
  });
}

/// What `f` printed on stderr.
template <class F>
std::string stderr_of(F&& f) {
  const std::string path = "/tmp/pto_race_policy_stderr_" + std::to_string(getpid());
  std::fflush(stderr);
  const int saved = dup(2);
  FILE* file = std::fopen(path.c_str(), "w");
  REQUIRE(file != nullptr);
  dup2(fileno(file), 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fclose(file);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return text;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("on_race fail: the launch's synchronize throws a UserError naming the race, its instructions and lines") {
  int line = 0;
  const auto k = same_tile_kernel(pto::OnRace::fail, line);
  auto x = pto::Tensor<float>::random({256}, 1);
  auto z = pto::Tensor<float>::zeros({256});
  k[{.block_dim = 4}](x, z);
  bool thrown = false;
  try {
    pto::synchronize();
  } catch (const pto::UserError& e) {
    thrown = true;
    CHECK_HAS(e.what(), "same_tile", "1 race (on_race = fail)", "WAW race on GM tensor arg1 between blocks", "[MTE3 on block 0, AIV 0]",
              PTO_AT(line));
    CHECK(e.site().kernel == "same_tile");
    CHECK(e.site().pipe == "MTE3");
    CHECK(e.site().loc.line == static_cast<uint32_t>(line));
  }
  CHECK(thrown);
  // run_sync throws the same; one block alone does not race and runs.
  CHECK_HAS(user_error([&] { k[{.block_dim = 2}].run_sync(x, z); }), "on_race = fail");
  CHECK(k[{.block_dim = 1}].run_sync(x, z).races.empty());
  check_runtime_usable();
}

TEST_CASE("on_race warn prints each distinct race once per specialisation, report prints nothing") {
  int line = 0;
  const auto warned = same_tile_kernel(pto::OnRace::warn, line);
  auto x = pto::Tensor<float>::random({256}, 1);
  auto z = pto::Tensor<float>::zeros({256});
  const std::string first = stderr_of([&] { CHECK(warned[{.block_dim = 4}].run_sync(x, z).races.size() == 1); });
  CHECK(count(first, "pto: warning: kernel 'same_tile'") == 1);
  CHECK_HAS(first, "WAW race on GM tensor arg1 between blocks", PTO_AT(line));
  // The same race again: printed already.
  CHECK(stderr_of([&] { warned[{.block_dim = 4}].run_sync(x, z); }).empty());
  const auto quiet = same_tile_kernel(pto::OnRace::report, line);
  CHECK(stderr_of([&] { CHECK(quiet[{.block_dim = 4}].run_sync(x, z).races.size() == 1); }).empty());
  check_runtime_usable();
}

}  // namespace pto::error_test
