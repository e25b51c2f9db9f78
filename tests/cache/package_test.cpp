// AOT packages: build, load without the optimiser, fallback policy.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include <pto/pto.hpp>

#include "common/Shell.hpp"

namespace {

namespace pl = pto::lang;

auto make_scale() {
  return pl::jit({.name = "scale", .auto_mutex = true}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile_group<float>(pl::Vec, {1024}, {0, 1});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(x.numel(), 1024), pl::get_block_num())) {
      auto len = pl::min(1024, x.numel() - i * 1024);
      pl::load(t.current(), x.slice(i * 1024, len));
      t.current() = t.current() * 4.0f - 1.0f;
      pl::store(y.slice(i * 1024, len), t.current());
      t.next();
    }
  });
}

std::string package_dir() {
  const auto d = std::filesystem::temp_directory_path() / "pto_package_test";
  std::filesystem::remove_all(d);
  return d.string();
}

TEST_CASE("a_package_serves_its_specialisations_without_the_optimiser") {
  const std::string dir = package_dir();
  {
    const auto kernel = make_scale();
    pto::PackageBuilder builder(dir);
    for (int64_t n : {5000, 20000}) {
      auto x = pto::Tensor<float>::random({n}), y = pto::Tensor<float>::zeros({n});
      builder.add(kernel[{.block_dim = 4}], x, y);
    }
    const auto summary = builder.finish();
    CHECK(summary.keys == 2);
    CHECK(summary.bytes > 0);
    CHECK(summary.compile_ms > 0);
    CHECK(summary.str().find("2 keys") != std::string::npos);
  }
  pto::CompileCache::global().clear();  // as in a fresh process
  const auto opened = pto::Package::open(dir, {.fallback = pto::PackageFallback::error});
  CHECK(opened.keys == 2);
  const auto kernel = make_scale();  // a new kernel object: nothing in memory
  const auto compiles = pto::runtime_stats().compiles;
  for (int64_t n : {5000, 20000}) {
    auto x = pto::Tensor<float>::random({n}), y = pto::Tensor<float>::zeros({n});
    const auto ck = kernel[{.block_dim = 4}].compile(x, y);
    CHECK(ck->from_disk);
    CHECK(ck->cold.optimise_ms == 0);
    kernel[{.block_dim = 4}].run_sync(x, y);
    for (int64_t i = 0; i < n; i += 997) CHECK(y[i] == x[i] * 4.0f - 1.0f);
  }
  CHECK(pto::runtime_stats().compiles == compiles);  // the optimiser never ran

  SUBCASE("a specialisation outside the package is an error when the fallback is error") {
    auto x = pto::Tensor<float>::random({777}), y = pto::Tensor<float>::zeros({777});
    auto launch = [&] { kernel[{.block_dim = 4}](x, y); };
    CHECK_THROWS_WITH_AS(launch(), doctest::Contains("not in the open package"), pto::UserError);
    CHECK(y[0] == 0.0f);
  }
  pto::Package::close_all();
  SUBCASE("and falls back to the JIT when the fallback is jit") {
    pto::Package::open(dir, {.fallback = pto::PackageFallback::jit});
    auto x = pto::Tensor<float>::random({777}), y = pto::Tensor<float>::zeros({777});
    kernel[{.block_dim = 4}].run_sync(x, y);
    CHECK(y[776] == x[776] * 4.0f - 1.0f);
    CHECK(pto::runtime_stats().compiles == compiles + 1);
    pto::Package::close_all();
  }
}

TEST_CASE("opening_a_directory_that_is_not_a_package_explains") {
  CHECK_THROWS_WITH_AS(pto::Package::open("/tmp/pto_no_package_here"), doctest::Contains("manifest.json is missing"), pto::UserError);
}

TEST_CASE("pto_aot_builds_a_package_a_new_process_loads") {
  const std::string dir = package_dir();
  auto shell = [](const std::string& cmd) { return pto::test::shell(cmd + " 2>&1").out; };
  const std::string pto = std::string("PTO_CACHE_DIR=off ") + PTO_CLI;
  const auto built = shell(pto + " aot --out " + dir + " --spec vector_add:65536:f32:4 --spec softmax:128x256:f16:2");
  INFO(built);
  CHECK(built.find("2 keys") != std::string::npos);
  const auto j = nlohmann::json::parse(shell(pto + " bench vector_add --shape 65536 --block-dim 4 --package " + dir +
                                             " --json --min-seconds 0.01 --repeat 2"));
  CHECK(j["ok"] == true);
  CHECK(j["cold_breakdown_ms"]["optimise"].get<double>() == 0);
  CHECK(j["cold_breakdown_ms"]["codegen"].get<double>() == 0);
  const auto miss = shell(pto + " run vector_add --shape 1000 --package " + dir);
  CHECK(miss.find("not in the open package") != std::string::npos);
}

}  // namespace
