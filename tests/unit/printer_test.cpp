// The IR printer: exact text of expressions, statements and a small hand-made kernel.
#include <doctest/doctest.h>

#include <pto/pto.hpp>

#include "pto/ir/Printer.hpp"

namespace ir = pto::ir;
using pto::DType;

namespace {

ir::Expr imm(int64_t v) { return ir::IntImm::make(v); }

/// A kernel "scale" with tensors x, y of f32[64] and two tile groups:
///   for i in range(0, 4, 1): load a <- x[i*16 +: 16]; b = a * 2.5 + 1; store y <- b
ir::Kernel hand_made_kernel() {
  ir::Kernel k;
  k.name = "scale";
  k.specialization = "x:f32[64], y:f32[64]";
  k.tensors = {{"x", DType::f32, 1, {1, 64}}, {"y", DType::f32, 1, {1, 64}}};
  const ir::Expr i = ir::Var::make("i", 0, ir::VarKind::Loop);
  const ir::Expr slot = ir::Var::make("b.slot", 1, ir::VarKind::Mutable);
  const ir::Expr n = ir::Var::make("n", 2, ir::VarKind::Param, 0);
  k.num_vars = 3;
  k.scalars = {{"n", n}};
  k.mutable_vars = {slot};
  ir::TileGroup a{.name = "a", .dtype = DType::f32, .space = ir::MemSpace::Vec, .rank = 1, .rows = 1, .cols = 16,
                  .mutex_ids = {}, .depth = 1};
  ir::TileGroup b{.name = "b", .dtype = DType::f16, .space = ir::MemSpace::Vec, .rank = 2, .rows = 2, .cols = 16,
                  .mutex_ids = {0, 1}, .depth = 2, .counter = slot};
  b.offset = 64;
  b.slot_bytes = 64;
  k.groups = {a, b};

  const ir::TileRef ta{0, imm(0)};
  const ir::TileRef tb{1, slot};
  const ir::Expr off = ir::Binary::make(ir::BinaryOp::Mul, i, imm(16));
  const ir::GMRegion xr{0, {imm(1), imm(64)}, {imm(0), off}, {imm(1), imm(16)}};
  const ir::GMRegion yr{1, {imm(1), imm(64)}, {imm(0), off}, {imm(1), imm(16)}};
  const ir::Expr a_read = ir::TileRead::make(ta, DType::f32, false);
  const ir::Expr value = ir::Binary::make(ir::BinaryOp::Add, ir::Binary::make(ir::BinaryOp::Mul, a_read, ir::FloatImm::make(2.5)),
                                          ir::FloatImm::make(1.0));
  std::vector<ir::Stmt> body = {
      ir::Load::make(ta, xr, {0, {}}),
      ir::VecCompute::make(tb, ir::Cast::make(DType::f16, value), {1, {}}),
      ir::Store::make(yr, tb, {2, {}}),
      ir::Assign::make(slot, ir::Binary::make(ir::BinaryOp::Mod, ir::Binary::make(ir::BinaryOp::Add, slot, imm(1)), imm(2))),
  };
  const ir::Stmt loop = ir::For::make(i, imm(0), n, imm(4), ir::Seq::make(body), 3, {});
  const ir::Stmt branch = ir::IfThenElse::make(ir::Binary::make(ir::BinaryOp::GT, n, imm(0)), ir::Seq::make({loop}),
                                               ir::Seq::make({ir::Assign::make(slot, imm(0))}));
  k.body = ir::Seq::make({branch});
  return k;
}

}  // namespace

TEST_CASE("the printer writes a hand-made kernel exactly, with planned offsets for placed groups") {
  const ir::Kernel k = hand_made_kernel();
  const std::string want =
      "kernel scale(x:f32[64], y:f32[64])\n"
      "  scalar n\n"
      "  tiles a: 1 x f32[1x16] in Vec\n"
      "  tiles b: 2 x f16[2x16] in Vec @ 64 (+64 B/slot)\n"
      "  if (n > 0) {\n"
      "    for i in range(0, n, 4) {\n"
      "      #0 load a[0] <- x[0 +: 1, (i * 16) +: 16]\n"
      "      #1 vec b[b.slot] = cast<f16>(((a[0] * 2.5) + 1))\n"
      "      #2 store y[0 +: 1, (i * 16) +: 16] <- b[b.slot]\n"
      "      b.slot = ((b.slot + 1) % 2)\n"
      "    }\n"
      "  } else {\n"
      "    b.slot = 0\n"
      "  }\n";
  CHECK(ir::to_string(k) == want);
}

TEST_CASE("the printer writes a statement without a kernel using group and tensor indices") {
  const ir::Kernel k = hand_made_kernel();
  const auto* seq = k.body.as<ir::Seq>();
  REQUIRE(seq != nullptr);
  const auto* branch = seq->body[0].as<ir::IfThenElse>();
  REQUIRE(branch != nullptr);
  const auto* loop = branch->then_case.as<ir::Seq>()->body[0].as<ir::For>();
  REQUIRE(loop != nullptr);
  const ir::Stmt load = loop->body.as<ir::Seq>()->body[0];
  CHECK(ir::to_string(load) == "#0 load g0[0] <- t0[0 +: 1, (i * 16) +: 16]\n");
  CHECK(ir::to_string(load, &k) == "#0 load a[0] <- x[0 +: 1, (i * 16) +: 16]\n");
}

TEST_CASE("the printer writes every expression form") {
  const ir::Expr x = ir::Var::make("x", 0, ir::VarKind::Loop);
  const ir::Expr t = ir::TileRead::make({0, imm(1)}, DType::f32, false);
  const ir::Expr r = ir::TileRead::make({1, imm(0)}, DType::f32, true);
  CHECK(ir::to_string(imm(-7)) == "-7");
  CHECK(ir::to_string(ir::IntImm::make(1, DType::boolean)) == "true");
  CHECK(ir::to_string(ir::IntImm::make(0, DType::boolean)) == "false");
  CHECK(ir::to_string(ir::FloatImm::make(0.25)) == "0.25");
  CHECK(ir::to_string(ir::FloatImm::make(3.0)) == "3");
  CHECK(ir::to_string(ir::Binary::make(ir::BinaryOp::Max, x, imm(2))) == "max(x, 2)");
  CHECK(ir::to_string(ir::Binary::make(ir::BinaryOp::Or, ir::Binary::make(ir::BinaryOp::NE, x, imm(1)),
                                       ir::Binary::make(ir::BinaryOp::EQ, x, imm(3)))) == "((x != 1) || (x == 3))");
  CHECK(ir::to_string(ir::Unary::make(ir::UnaryOp::Rsqrt, t)) == "rsqrt(g0[1])");
  CHECK(ir::to_string(ir::Unary::make(ir::UnaryOp::Relu, ir::Binary::make(ir::BinaryOp::Sub, t, r))) == "relu((g0[1] - g1[0].bcast))");
  CHECK(ir::to_string(ir::Cast::make(DType::bf16, t)) == "cast<bf16>(g0[1])");
  CHECK(ir::to_string(ir::Select::make(ir::Binary::make(ir::BinaryOp::GE, t, r), t, ir::FloatImm::make(-1.5))) ==
        "select((g0[1] >= g1[0].bcast), g0[1], -1.5)");
  CHECK(ir::to_string(ir::Expr{}) == "<none>");
}

TEST_CASE("the printer writes row reductions with their operation name") {
  const ir::Expr t = ir::TileRead::make({0, imm(0)}, DType::f32, false);
  CHECK(ir::to_string(ir::RowReduce::make(ir::ReduceOp::Sum, {1, imm(0)}, ir::Unary::make(ir::UnaryOp::Exp, t), {4, {}})) ==
        "#4 row_sum g1[0] <- exp(g0[0])\n");
  CHECK(ir::to_string(ir::RowReduce::make(ir::ReduceOp::Max, {1, imm(0)}, t, {5, {}})) == "#5 row_max g1[0] <- g0[0]\n");
  CHECK(ir::to_string(ir::RowReduce::make(ir::ReduceOp::Min, {1, imm(0)}, t, {6, {}})) == "#6 row_min g1[0] <- g0[0]\n");
}

TEST_CASE("the printer writes synchronisation instructions with their pipes, events and mutexes") {
  using ir::Pipe;
  using ir::SyncOp;
  CHECK(ir::to_string(ir::Sync::make(SyncOp::SetFlag, Pipe::MTE2, Pipe::V, imm(3), {}, {7, {}})) ==
        "#7 set_flag(MTE2 -> V, event 3)\n");
  CHECK(ir::to_string(ir::Sync::make(SyncOp::WaitFlag, Pipe::V, Pipe::MTE3, imm(0), {}, {8, {}})) ==
        "#8 wait_flag(V -> MTE3, event 0)\n");
  CHECK(ir::to_string(ir::Sync::make(SyncOp::Barrier, Pipe::ALL, Pipe::ALL, imm(0), {}, {9, {}})) == "#9 pipe_barrier(ALL)\n");
  CHECK(ir::to_string(ir::Sync::make(SyncOp::MutexLock, Pipe::V, Pipe::V, imm(5), {}, {10, {}})) == "#10 mutex_lock(V, mutex 5)\n");
  CHECK(ir::to_string(ir::Sync::make(SyncOp::MutexUnlock, Pipe::MTE2, Pipe::MTE2, imm(0), {2, imm(1)}, {11, {}})) ==
        "#11 mutex_unlock(MTE2, mutex of g2[1])\n");
}

TEST_CASE("a traced kernel's instruction table holds the printed form of each instruction") {
  namespace pl = pto::lang;
  const auto k = pl::jit({.name = "copy_scaled", .auto_mutex = false}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto a = pl::make_tile<float>(pl::Vec, {64});
    auto b = pl::make_tile<float>(pl::Vec, {64});
    pl::load(a, x.slice(0, 64));
    b = a * 2.0f;
    pl::store(y.slice(0, 64), b);
  });
  auto x = pto::Tensor<float>::zeros({64});
  auto y = pto::Tensor<float>::zeros({64});
  const auto ck = k[{.block_dim = 1}].compile(x, y);
  REQUIRE(ck->ir.instrs.size() == 3);
  CHECK(ck->ir.instrs[0].op == "load");
  CHECK(ck->ir.instrs[0].pipe == ir::Pipe::MTE2);
  CHECK(ck->ir.instrs[0].text == "load t0[0] <- arg0[0 +: 1, 0 +: 64]");
  CHECK(ck->ir.instrs[1].op == "vec");
  CHECK(ck->ir.instrs[1].pipe == ir::Pipe::V);
  CHECK(ck->ir.instrs[1].text == "vec t1[0] = (t0[0] * 2)");
  CHECK(ck->ir.instrs[2].op == "store");
  CHECK(ck->ir.instrs[2].pipe == ir::Pipe::MTE3);
  CHECK(ck->ir.instrs[2].text == "store arg1[0 +: 1, 0 +: 64] <- t1[0]");
  CHECK(ir::to_string(ck->ir) ==
        "kernel copy_scaled(arg0:f32[64], arg1:f32[64])\n"
        "  tiles t0: 1 x f32[1x64] in Vec ND @ 0 (+256 B/slot)\n"
        "  tiles t1: 1 x f32[1x64] in Vec ND @ 256 (+256 B/slot)\n"
        "  #0 load t0[0] <- arg0[0 +: 1, 0 +: 64]\n"
        "  #1 vec t1[0] = (t0[0] * 2) over [stored_rows(t0[0]), stored_cols(t0[0])]\n"
        "  check #2 store_beyond_valid: (1 <= stored_rows(t1[0])) [axis 0; 1, stored_rows(t1[0]), 0]\n"
        "  check #2 store_beyond_valid: (64 <= stored_cols(t1[0])) [axis 1; 64, stored_cols(t1[0]), 0]\n"
        "  #2 store arg1[0 +: 1, 0 +: 64] <- t1[0]\n");
}

TEST_CASE("cross-core moves print their AccToVecMode or offset; set_validshape its extent; their facts fill the table") {
  namespace pl = pto::lang;
  const auto k = pl::jit({.name = "cross_print", .chip = "a5"}, [](pl::Tensor<float> a) {
    auto v = pl::make_tile<float>(pl::Vec, {8, 16});
    auto m = pl::make_tile<float>(pl::Mat, {16, 16});
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    pl::section_cube([&] { pl::move(v, acc, {.acc_to_vec_mode = pl::AccToVecMode::DualModeSplitN}); });
    pl::section_vector([&] {
      pl::load(v, a.slice(0, 8, 0, 16));
      pl::move(m, v, {.offset = {pl::get_subblock_idx() * 8, 0}});
      pl::set_validshape(v, 4, 16);
    });
  });
  auto a = pto::Tensor<float>::zeros({16, 16});
  const auto ck = k[{.block_dim = 1}].compile(a);
  std::vector<std::string> texts;
  for (const auto& info : ck->ir.instrs) {
    if (!info.automatic) texts.push_back(info.text);
  }
  REQUIRE(texts.size() == 4);
  CHECK(texts[0] == "move t0[0] <- t2[0] (DualModeSplitN)");
  CHECK(texts[2] == "move t1[0] <- t0[0] at [(subblock_idx * 8), 0]");
  CHECK(texts[3] == "set_validshape t0[0] = [4, 16]");
  CHECK(ck->ir.instrs[0].pipe == ir::Pipe::FIX);
  CHECK(ck->ir.instrs[0].peer_slots == 6);  // both AIVs' UB
  CHECK(ck->ir.instrs[2].pipe == ir::Pipe::MTE3);
  CHECK(ck->ir.instrs[2].peer_slots == 1);  // the AIC's L1
  CHECK(ck->ir.instrs[3].pipe == ir::Pipe::S);
}
