// The disk compile cache: round trips across processes, corruption, concurrency, invalidation.
// This test runs with PTO_CACHE_DIR set to its own directory (see CMakeLists.txt).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include <pto/pto.hpp>

#include "pto/backend/Compiler.hpp"

namespace {

namespace pl = pto::lang;
namespace fs = std::filesystem;

std::string cache_dir() { return pto::DiskCache::global().dir(); }

std::string run(const std::string& args) {
  const std::string cmd = "PTO_CACHE_DIR=" + cache_dir() + " " + PTO_CLI + " " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe.get())) out.append(buf, n);
  return out;
}

TEST_CASE("the_test_runs_with_its_own_cache_directory") {
  REQUIRE(pto::DiskCache::global().enabled());
  REQUIRE(cache_dir().find("pto-test-cache") != std::string::npos);
}

TEST_CASE("a_new_process_loads_the_object_another_process_compiled") {
  pto::DiskCache::global().clear();
  const auto first = nlohmann::json::parse(run("bench vector_add --shape 8192 --block-dim 2 --json --min-seconds 0.01 --repeat 2"));
  const auto second = nlohmann::json::parse(run("bench vector_add --shape 8192 --block-dim 2 --json --min-seconds 0.01 --repeat 2"));
  CHECK(first["ok"] == true);
  CHECK(second["ok"] == true);
  CHECK(first["cold_breakdown_ms"]["optimise"].get<double>() > 0);
  CHECK(second["cold_breakdown_ms"]["optimise"].get<double>() == 0);  // no optimiser, no codegen
  CHECK(second["cold_breakdown_ms"]["codegen"].get<double>() == 0);
  CHECK(second["cold_ms"].get<double>() < first["cold_ms"].get<double>());
  // The first process compiled the quick tier, then (bench's second launch) the optimised code:
  // both are stored, and the second process loads the optimised one, with nothing to tier up.
  CHECK(first["tier_up_ms"].get<double>() > 0);
  CHECK(second["tier_up_ms"].get<double>() == 0);
  const auto stats = nlohmann::json::parse(run("cache stats --json"));
  CHECK(stats["entries"] == 2);
  CHECK(stats["hits"].get<int>() >= 1);
}

TEST_CASE("a_corrupt_or_truncated_entry_is_detected_and_rebuilt") {
  pto::DiskCache cache(cache_dir() + "/unit");
  cache.clear();
  const std::string object(1000, 'x');
  for (int damage : {0, 1}) {
    cache.store("key", "k", "sym", object, 1.0);
    std::string symbol;
    REQUIRE(cache.load("key", &symbol) == object);
    CHECK(symbol == "sym");
    const auto file = cache.list().at(0).file;
    if (damage == 0) {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(-10, std::ios::end);
      f.put('y');  // flip a byte of the object
    } else {
      fs::resize_file(file, fs::file_size(file) - 7);  // truncate
    }
    CHECK_FALSE(cache.load("key", &symbol).has_value());
    CHECK_FALSE(fs::exists(file));  // removed, so the next compile rewrites it
    CHECK(cache.stats().corrupt == static_cast<uint64_t>(damage + 1));
  }
  CHECK_FALSE(cache.load("another key", nullptr).has_value());
}

TEST_CASE("a_changed_kernel_body_never_gets_a_stale_object") {
  pto::DiskCache::global().clear();
  auto make = [](float factor) {
    return pl::jit({.name = "same_name"}, [factor](pl::Tensor<float> x, pl::Tensor<float> y) {
      auto t = pl::make_tile<float>(pl::Vec, {256});
      pl::load(t, x.slice(0, 256));
      t = t * factor;
      pl::store(y.slice(0, 256), t);
    });
  };
  auto x = pto::Tensor<float>::random({256}), y = pto::Tensor<float>::zeros({256});
  const auto loads_before = pto::runtime_stats().disk_loads;
  make(2.0f)[{.block_dim = 1}].run_sync(x, y);
  CHECK(y[3] == x[3] * 2.0f);
  make(3.0f)[{.block_dim = 1}].run_sync(x, y);  // same name and shapes, different body
  CHECK(y[3] == x[3] * 3.0f);
  CHECK(pto::runtime_stats().disk_loads == loads_before);
  CHECK(pto::DiskCache::global().stats().entries == 2);
  auto again = make(2.0f)[{.block_dim = 1}].compile(x, y);  // a new kernel object, the first body
  CHECK(again->from_disk);
  make(2.0f)[{.block_dim = 1}].run_sync(x, y);
  CHECK(y[3] == x[3] * 2.0f);
}

TEST_CASE("two_processes_compiling_the_same_specialisation_both_succeed") {
  pto::DiskCache::global().clear();
  const std::string cmd = "PTO_CACHE_DIR=" + cache_dir() + " " + PTO_CLI + " run softmax --shape 64x256 --block-dim 2 --json";
  std::unique_ptr<FILE, int (*)(FILE*)> a(popen(cmd.c_str(), "r"), pclose), b(popen(cmd.c_str(), "r"), pclose);
  std::string out_a, out_b;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, a.get())) out_a.append(buf, n);
  while (size_t n = fread(buf, 1, sizeof buf, b.get())) out_b.append(buf, n);
  CHECK(pclose(a.release()) == 0);
  CHECK(pclose(b.release()) == 0);
  CHECK(nlohmann::json::parse(out_a)["ok"] == true);
  CHECK(nlohmann::json::parse(out_b)["ok"] == true);
  CHECK(pto::DiskCache::global().stats().entries == 1);
  for (const auto& e : fs::directory_iterator(cache_dir())) CHECK(e.path().string().find(".tmp.") == std::string::npos);
}

}  // namespace

TEST_CASE("an_entry_is_keyed_by_the_llvm_version_the_host_cpu_and_the_code_generator") {
  // What machine code depends on besides the kernel, computed without LLVM: an entry compiled by
  // another LLVM, on another CPU or by another code generator has another key and is never loaded.
  const std::string target = pto::backend::jit_target_description();
  CAPTURE(target);
  CHECK(target.rfind("LLVM 16.", 0) == 0);
  CHECK(target.find(" cpu ") != std::string::npos);
  CHECK(target.find(" codegen ") != std::string::npos);
#if defined(__x86_64__)
  const bool vendor = target.find("GenuineIntel") != std::string::npos || target.find("AuthenticAMD") != std::string::npos;
  CHECK(vendor);
  CHECK(target.find(" 7.0:") != std::string::npos);  // the AVX2 / AVX-512 feature words
#endif
  auto x = pto::Tensor<float>::random({256}), y = pto::Tensor<float>::zeros({256});
  const auto k = pl::jit({.name = "keyed"}, [](pl::Tensor<float> a, pl::Tensor<float> b) {
    auto t = pl::make_tile<float>(pl::Vec, {256});
    pl::load(t, a.slice(0, 256));
    pl::store(b.slice(0, 256), t);
  });
  const auto ck = k[{.block_dim = 1}].compile(x, y);
  CHECK(ck->object_key.find(target) != std::string::npos);
}
