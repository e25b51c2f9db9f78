// The compile cache: one compilation per specialisation, also under concurrent first calls.
#include <doctest/doctest.h>

#include <atomic>
#include <latch>
#include <thread>

#include <pto/pto.hpp>

#include "test_kernels.hpp"

namespace pl = pto::lang;

namespace {
uint64_t compiles() { return pto::runtime_stats().compiles; }
}  // namespace

TEST_CASE("the second launch of a specialisation does not compile again and reuses the compiled kernel") {
  const auto k = pto::unit_test::make_vector_add<float>("cache_reuse");
  auto x = pto::Tensor<float>::random({4096}, 1);
  auto y = pto::Tensor<float>::random({4096}, 2);
  auto z = pto::Tensor<float>::zeros({4096});
  const uint64_t c0 = compiles();
  const uint64_t l0 = pto::runtime_stats().launches;
  k[{.block_dim = 4}](x, y, z);
  pto::synchronize();
  CHECK(compiles() == c0 + 1);
  const auto hits0 = pto::CompileCache::global().stats().hits;
  k[{.block_dim = 4}](x, y, z);
  k[{.block_dim = 8}](x, y, z);  // block_dim is not part of the specialisation
  pto::synchronize();
  CHECK(compiles() == c0 + 1);
  CHECK(pto::runtime_stats().launches == l0 + 3);
  CHECK(pto::CompileCache::global().stats().hits == hits0 + 2);
  // Other tensors of the same shape are the same specialisation.
  auto x2 = pto::Tensor<float>::random({4096}, 3);
  const auto a = k[{.block_dim = 1}].compile(x, y, z);
  const auto b = k[{.block_dim = 1}].compile(x2, x2, x2);
  CHECK(a.get() == b.get());
  CHECK(compiles() == c0 + 1);
  for (int64_t i = 0; i < 4096; ++i) REQUIRE(z[i] == x[i] + y[i]);
}

TEST_CASE("a different shape or dtype compiles a new specialisation, a repeated one does not") {
  const auto k = pto::unit_test::make_vector_add<float>("cache_shapes");
  const auto kh = pto::unit_test::make_vector_add<pto::half>("cache_shapes");
  auto a = pto::Tensor<float>::zeros({4096});
  auto b = pto::Tensor<float>::zeros({4099});
  auto c = pto::Tensor<float>::zeros({64, 64});
  auto h = pto::Tensor<pto::half>::zeros({4096});
  const uint64_t c0 = compiles();
  const auto sa = k[{}].compile(a, a, a);
  CHECK(compiles() == c0 + 1);
  const auto sb = k[{}].compile(b, b, b);
  CHECK(compiles() == c0 + 2);
  const auto sc = k[{}].compile(c, c, c);  // same element count, rank 2
  CHECK(compiles() == c0 + 3);
  const auto sh = kh[{}].compile(h, h, h);  // same name, other kernel object and dtype
  CHECK(compiles() == c0 + 4);
  CHECK(k[{}].compile(b, b, b).get() == sb.get());
  CHECK(k[{}].compile(a, a, a).get() == sa.get());
  CHECK(compiles() == c0 + 4);
  CHECK(sa.get() != sb.get());
  CHECK(sb.get() != sc.get());
  CHECK(sa->ir.specialization == "arg0:f32[4096], arg1:f32[4096], arg2:f32[4096]");
  CHECK(sc->ir.specialization == "arg0:f32[64x64], arg1:f32[64x64], arg2:f32[64x64]");
  CHECK(sh->ir.specialization == "arg0:f16[4096], arg1:f16[4096], arg2:f16[4096]");
}

TEST_CASE("two kernel objects made from the same code are compiled separately") {
  const auto k1 = pto::unit_test::make_vector_add<float>("cache_twins");
  const auto k2 = pto::unit_test::make_vector_add<float>("cache_twins");
  auto a = pto::Tensor<float>::zeros({256});
  const uint64_t c0 = compiles();
  const auto s1 = k1[{}].compile(a, a, a);
  const auto s2 = k2[{}].compile(a, a, a);
  CHECK(compiles() == c0 + 2);
  CHECK(s1.get() != s2.get());
}

TEST_CASE("concurrent first calls of one specialisation from 4 threads compile exactly once") {
  const auto k = pto::unit_test::make_vector_add<float>("cache_concurrent");
  auto x = pto::Tensor<float>::random({8192}, 11);
  auto y = pto::Tensor<float>::random({8192}, 12);
  std::vector<pto::Tensor<float>> z;
  for (int i = 0; i < 4; ++i) z.push_back(pto::Tensor<float>::zeros({8192}));
  const uint64_t c0 = compiles();
  const auto stats0 = pto::CompileCache::global().stats();
  std::latch start(4);
  std::vector<std::shared_ptr<const pto::CompiledKernel>> got(4);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      try {
        start.arrive_and_wait();
        got[i] = k[{.block_dim = 2}].compile(x, y, z[i]);
        k[{.block_dim = 2}].run_sync(x, y, z[i]);
      } catch (...) {
        failures.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(failures.load() == 0);
  CHECK(compiles() == c0 + 1);
  const auto stats1 = pto::CompileCache::global().stats();
  CHECK(stats1.misses == stats0.misses + 1);
  CHECK(stats1.entries == stats0.entries + 1);
  for (int i = 1; i < 4; ++i) CHECK(got[i].get() == got[0].get());
  for (int i = 0; i < 4; ++i) {
    int bad = 0;
    for (int64_t j = 0; j < 8192; ++j) bad += z[i][j] != x[j] + y[j];
    CHECK(bad == 0);
  }
}

TEST_CASE("a specialisation whose trace fails is not cached: the next call traces again and compiles") {
  auto attempts = std::make_shared<std::atomic<int>>(0);
  const auto k = pl::jit({.name = "cache_retry"}, [attempts](pl::Tensor<float> x, pl::Tensor<float> y) {
    const int n = attempts->fetch_add(1);
    pl::require(n > 0, "fails on the first trace only");
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    pl::store(y.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({64}, 5);
  auto y = pto::Tensor<float>::zeros({64});
  const uint64_t c0 = compiles();
  CHECK_THROWS_AS(k[{}](x, y), pto::UserError);
  CHECK(compiles() == c0);
  CHECK_NOTHROW(k[{}](x, y));
  pto::synchronize();
  CHECK(compiles() == c0 + 1);
  CHECK(attempts->load() == 2);
  for (int64_t i = 0; i < 64; ++i) CHECK(y[i] == x[i]);
  // And now it is cached.
  k[{}](x, y);
  pto::synchronize();
  CHECK(attempts->load() == 2);
  CHECK(compiles() == c0 + 1);
}
