// Memory planning: offsets and slot sizes of tile groups, per memory space, against capacity.
#include <doctest/doctest.h>

#include <pto/pto.hpp>

#include "pto/backend/Passes.hpp"
#include "pto/ir/Printer.hpp"
#include "test_kernels.hpp"

namespace pl = pto::lang;
namespace ir = pto::ir;
using pto::DType;

namespace {

ir::TileGroup group(std::string name, DType dt, ir::MemSpace space, int64_t rows, int64_t cols, int depth) {
  ir::TileGroup g;
  g.name = std::move(name);
  g.dtype = dt;
  g.space = space;
  g.rank = rows == 1 ? 1 : 2;
  g.rows = rows;
  g.cols = cols;
  g.depth = depth;
  for (int i = 0; i < depth && depth > 1; ++i) g.mutex_ids.push_back(i);
  return g;
}

ir::Kernel kernel_with(std::vector<ir::TileGroup> groups) {
  ir::Kernel k;
  k.name = "planned";
  k.specialization = "arg0:f32[8]";
  k.groups = std::move(groups);
  k.body = ir::Seq::make({});
  return k;
}

}  // namespace

TEST_CASE("plan_memory places traced tile groups one after another with 32-byte aligned slots") {
  const auto k = pl::jit({.name = "plan"}, [](pl::Tensor<float> x) {
    auto a = pl::make_tile_group<float>(pl::Vec, {1024}, {0, 1});        // 4096 B x 2
    auto b = pl::make_tile<pto::half>(pl::Vec, {100});                   // 200 B -> 224
    auto c = pl::make_tile_group<int8_t>(pl::Vec, {2, 40}, {0, 1, 2});   // 80 B -> 96, x 3
    auto d = pl::make_tile<float>(pl::Vec, {8, 1});                      // 32 B
    auto e = pl::make_tile<int32_t>(pl::Vec, {3});                       // 12 B -> 32
    auto f = pl::make_tile_group<pto::bfloat16>(pl::Vec, {4, 16}, {5, 9});  // 128 B x 2
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)x;
  });
  auto x = pto::Tensor<float>::zeros({8});
  const auto ck = k[{.block_dim = 1}].compile(x);
  const auto& g = ck->ir.groups;
  REQUIRE(g.size() == 6);
  struct Want {
    DType dtype;
    int rank;
    int64_t rows, cols;
    int depth;
    int64_t slot_bytes, offset;
  };
  const Want want[] = {
      {DType::f32, 1, 1, 1024, 2, 4096, 0},
      {DType::f16, 1, 1, 100, 1, 224, 8192},
      {DType::i8, 2, 2, 40, 3, 96, 8416},
      {DType::f32, 2, 8, 1, 1, 32, 8704},
      {DType::i32, 1, 1, 3, 1, 32, 8736},
      {DType::bf16, 2, 4, 16, 2, 128, 8768},
  };
  for (size_t i = 0; i < g.size(); ++i) {
    CAPTURE(i);
    CHECK(g[i].name.front() == 't');
    CHECK(g[i].name.substr(1) == std::to_string(i));
    CHECK(g[i].space == ir::MemSpace::Vec);
    CHECK(g[i].dtype == want[i].dtype);
    CHECK(g[i].rank == want[i].rank);
    CHECK(g[i].rows == want[i].rows);
    CHECK(g[i].cols == want[i].cols);
    CHECK(g[i].depth == want[i].depth);
    CHECK(g[i].slot_bytes == want[i].slot_bytes);
    CHECK(g[i].offset == want[i].offset);
    CHECK(g[i].offset % 32 == 0);
  }
  CHECK(g[5].mutex_ids == std::vector<int>{5, 9});
  CHECK(static_cast<bool>(g[0].counter));
  CHECK_FALSE(static_cast<bool>(g[1].counter));
}

TEST_CASE("plan_memory of vector_add with double buffering uses 6 slots of 4 KiB") {
  const auto k = pto::unit_test::make_vector_add<float>("vadd_plan", 2, 1024);
  auto x = pto::Tensor<float>::zeros({4096});
  const auto ck = k[{.block_dim = 1}].compile(x, x, x);
  REQUIRE(ck->ir.groups.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(ck->ir.groups[i].slot_bytes == 4096);
    CHECK(ck->ir.groups[i].offset == i * 8192);
    CHECK(ck->ir.groups[i].depth == 2);
  }
}

TEST_CASE("plan_memory keeps separate arenas per memory space, each with its own alignment") {
  ir::Kernel k = kernel_with({group("v0", DType::f32, ir::MemSpace::Vec, 1, 10, 1),      // 40 -> 64
                              group("l0", DType::f16, ir::MemSpace::Left, 16, 16, 2),    // 512, x2
                              group("v1", DType::f16, ir::MemSpace::Vec, 1, 8, 2),       // 16 -> 32, x2
                              group("l1", DType::f16, ir::MemSpace::Left, 1, 10, 1),     // 20 -> 512
                              group("a0", DType::f32, ir::MemSpace::Acc, 16, 16, 1)});   // 1024
  pto::backend::plan_memory(k, pto::ChipProfile::get("a2"));
  CHECK(k.groups[0].offset == 0);
  CHECK(k.groups[0].slot_bytes == 64);
  CHECK(k.groups[1].offset == 0);
  CHECK(k.groups[1].slot_bytes == 512);
  CHECK(k.groups[2].offset == 64);
  CHECK(k.groups[2].slot_bytes == 32);
  CHECK(k.groups[3].offset == 1024);
  CHECK(k.groups[3].slot_bytes == 512);
  CHECK(k.groups[4].offset == 0);
  CHECK(k.groups[4].slot_bytes == 1024);
  CHECK(ir::to_string(k).find("  tiles l1: 1 x f16[1x10] in Left @ 1024 (+512 B/slot)\n") != std::string::npos);
}

TEST_CASE("plan_memory accepts tiles that fill the UB exactly and rejects 32 bytes more") {
  ir::Kernel exact = kernel_with({group("big", DType::f32, ir::MemSpace::Vec, 1, 196608 / 4, 1)});
  CHECK_NOTHROW(pto::backend::plan_memory(exact, pto::ChipProfile::get("a2")));
  CHECK(exact.groups[0].offset == 0);

  ir::Kernel over = kernel_with({group("big", DType::f32, ir::MemSpace::Vec, 1, 196608 / 4, 1),
                                 group("one", DType::i8, ir::MemSpace::Vec, 1, 1, 1)});
  std::string msg;
  try {
    pto::backend::plan_memory(over, pto::ChipProfile::get("a2"));
  } catch (const pto::UserError& e) {
    msg = e.what();
  }
  CHECK(msg.find("kernel 'planned'") != std::string::npos);
  CHECK(msg.find("tiles in Vec need 196640 B but the a2 profile gives 196608 B (32 B over)") != std::string::npos);
  CHECK(msg.find("big 1xf32[1x49152]") != std::string::npos);
  CHECK(msg.find("1 x 32 B = 32 B") != std::string::npos);
}

TEST_CASE("plan_memory limits follow the chip profile: 200000 B of UB fails on a2 and fits a5") {
  auto make = [] { return kernel_with({group("t", DType::f32, ir::MemSpace::Vec, 1, 25000, 2)}); };  // 2 x 100000 B
  ir::Kernel on_a2 = make();
  CHECK_THROWS_AS(pto::backend::plan_memory(on_a2, pto::ChipProfile::get("a2")), pto::UserError);
  ir::Kernel on_a5 = make();
  CHECK_NOTHROW(pto::backend::plan_memory(on_a5, pto::ChipProfile::get("a5")));
  CHECK(on_a5.groups[0].slot_bytes == 100000);
}
