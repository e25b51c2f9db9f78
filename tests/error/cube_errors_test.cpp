// User errors of cube and mix kernels: misuse of the cube memories and instructions, of kernel
// modes, sections and cross-core flags, block_dim over the mode's limit, deadlocked cross-core
// waits, and races on a GM workspace between the AIC and its AIVs. Each error's message is
// pinned by its key phrases (kernel, reason, source line), and the runtime stays usable after it.
#include "error_common.hpp"

#include <cmath>
#include <set>

namespace pto::error_test {
namespace {

using pto::half;
using ir::MemSpace;

/// A correct mix kernel to launch after an error: the AIC computes C = A x B (16 x 16, f32)
/// into the workspace and signals; each AIV waits, loads its 8 rows and stores C + 1 into y.
const auto& good_mix_kernel() {
  static const auto k = pl::jit({.name = "good_mix_after_error", .auto_mutex = true},
                                [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> ws, pl::Tensor<float> y) {
    pl::section_cube([&] {
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      product_16x16(acc, a, b);
      pl::store(ws.slice(0, 16, 0, 16), acc);
      pl::set_cross_core(pl::Pipe::FIX, 1);
    });
    pl::section_vector([&] {
      auto c = pl::make_tile<float>(pl::Vec, {8, 16});
      auto row0 = pl::get_subblock_idx() * 8;
      pl::wait_cross_core(pl::Pipe::MTE2, 1);
      pl::load(c, ws.slice(row0, 8, 0, 16));
      c = c + 1.0f;
      pl::store(y.slice(row0, 8, 0, 16), c);
    });
  });
  return k;
}

/// The runtime stays usable for vector and mix kernels: both good kernels run and are right.
void check_usable_after_cube_error() {
  check_runtime_usable();
  auto a = pto::Tensor<float>::random({16, 16}, 5), b = pto::Tensor<float>::random({16, 16}, 6);
  auto ws = pto::Tensor<float>::zeros({16, 16}), y = pto::Tensor<float>::zeros({16, 16});
  pto::LaunchProfile p;
  CHECK_NOTHROW(p = good_mix_kernel()[{.block_dim = 1}].run_sync(a, b, ws, y));
  CHECK(p.mode == "mix");
  CHECK(p.races.empty());
  CHECK(product_16x16_mismatches(ws, a, b) == 0);
  int bad = 0;
  for (int64_t i = 0; i < 16 * 16; ++i) bad += y[i] != ws[i] + 1.0f;
  CHECK(bad == 0);
}

const char* space_name(MemSpace s) { return ir::mem_space_name(s); }

}  // namespace

// ----------------------------------------------------------------------------- cube memories

TEST_CASE("a load into a Left, Right or Acc tile fails at launch: MTE2 loads GM into Vec or Mat only") {
  for (MemSpace space : {pl::Left, pl::Right, pl::Acc}) {
    CAPTURE(space_name(space));
    int line = 0;
    const auto k = pl::jit({.name = "load_into_l0"}, [&line, space](pl::Tensor<float> x, pl::Tensor<float> z) {
      auto t = pl::make_tile<float>(space, {16, 16});
      line = __LINE__; pl::load(t, x.slice(0, 16, 0, 16));
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      pl::load(m, z.slice(0, 16, 0, 16));
    });
    auto x = pto::Tensor<float>::random({16, 16}, 1);
    auto z = pto::Tensor<float>::zeros({16, 16});
    const std::string msg = user_error([&] { k[{.block_dim = 1}](x, z); });
    CHECK_HAS(msg, "pto: kernel 'load_into_l0' (arg0:f32[16x16], arg1:f32[16x16])",
              std::string("load into a ") + space_name(space) + " tile: MTE2 loads GM into Vec or Mat",
              "Left and Right are filled from Mat with pl::move, Acc by pl::matmul", PTO_AT(line));
    CHECK_NOTHROW(pto::synchronize());
  }
  check_usable_after_cube_error();
}

TEST_CASE("a store from a Mat, Left or Right tile fails at launch: GM is written from Vec or Acc only") {
  for (MemSpace space : {pl::Mat, pl::Left, pl::Right}) {
    CAPTURE(space_name(space));
    int line = 0;
    const auto k = pl::jit({.name = "store_from_l1"}, [&line, space](pl::Tensor<float> x, pl::Tensor<float> z) {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      pl::load(m, x.slice(0, 16, 0, 16));
      if (space == pl::Mat) {
        line = __LINE__; pl::store(z.slice(0, 16, 0, 16), m);
      } else {
        auto t = pl::make_tile<float>(space, {16, 16});
        pl::move(t, m);
        line = __LINE__; pl::store(z.slice(0, 16, 0, 16), t);
      }
    });
    auto x = pto::Tensor<float>::random({16, 16}, 1);
    auto z = pto::Tensor<float>::full({16, 16}, 4.0f);
    const auto z0 = copy_of(z);
    const std::string msg = user_error([&] { k[{.block_dim = 1}](x, z); });
    CHECK_HAS(msg, "kernel 'store_from_l1'",
              std::string("store from a ") + space_name(space) + " tile: GM is written from Vec (MTE3) or Acc (FIX)", PTO_AT(line));
    CHECK_NOTHROW(pto::synchronize());
    CHECK(bitwise_equal(z, z0));
  }
  check_usable_after_cube_error();
}

// ----------------------------------------------------------------------------------- matmul

TEST_CASE("matmul with operands in the wrong memories names the three spaces it got") {
  struct Case {
    int order;  // 0: Mat as left; 1: left and right swapped; 2: a Mat tile as the accumulator
    const char* got;
  };
  for (Case c : {Case{0, "got Acc, Mat and Right"}, Case{1, "got Acc, Right and Left"}, Case{2, "got Mat, Left and Right"}}) {
    CAPTURE(c.order);
    int line = 0;
    const auto k = pl::jit({.name = "matmul_spaces"}, [&line, c](pl::Tensor<float> a, pl::Tensor<float> z) {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      auto r = pl::make_tile<float>(pl::Right, {16, 16});
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      pl::load(m, a.slice(0, 16, 0, 16));
      pl::move(l, m);
      pl::move(r, m);
      if (c.order == 0) { line = __LINE__; pl::matmul(acc, m, r); }
      if (c.order == 1) { line = __LINE__; pl::matmul(acc, r, l); }
      if (c.order == 2) { line = __LINE__; pl::matmul(m, l, r); }
      pl::store(z.slice(0, 16, 0, 16), acc);
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    auto z = pto::Tensor<float>::zeros({16, 16});
    const std::string msg = user_error([&] { k[{.block_dim = 1}](a, z); });
    CHECK_HAS(msg, "kernel 'matmul_spaces'", "matmul(acc, left, right) takes tiles in Acc, Left and Right", c.got, PTO_AT(line));
  }
  check_usable_after_cube_error();
}

TEST_CASE("matmul of tiles whose static K differ (Left 32x32, Right 16x32) fails at launch with both shapes") {
  int line = 0;
  const auto k = pl::jit({.name = "matmul_static_k"}, [&](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> c) {
    auto am = pl::make_tile<float>(pl::Mat, {32, 32});
    auto bm = pl::make_tile<float>(pl::Mat, {16, 32});
    auto l = pl::make_tile<float>(pl::Left, {32, 32});
    auto r = pl::make_tile<float>(pl::Right, {16, 32});
    auto acc = pl::make_tile<float>(pl::Acc, {32, 32});
    pl::load(am, a.slice(0, 32, 0, 32));
    pl::load(bm, b.slice(0, 16, 0, 32));
    pl::move(l, am);
    pl::move(r, bm);
    line = __LINE__; pl::matmul(acc, l, r);
    pl::store(c.slice(0, 32, 0, 32), acc);
  });
  auto a = pto::Tensor<float>::random({32, 32}, 1), b = pto::Tensor<float>::random({16, 32}, 2);
  auto c = pto::Tensor<float>::zeros({32, 32});
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a, b, c); }), "kernel 'matmul_static_k'",
            "matmul of a 32x32 Left tile by a 16x32 Right tile: the K dimensions (32 and 16) differ", PTO_AT(line));
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}].run_sync(a, b, c); }), "the K dimensions (32 and 16) differ");
  check_usable_after_cube_error();
}

TEST_CASE("matmul whose valid K differ at run time (24 loaded columns of A, 32 rows of B) is reported by synchronize") {
  int line = 0;
  const auto k = pl::jit({.name = "matmul_runtime_k"}, [&](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> c, pl::Int ka) {
    auto am = pl::make_tile<float>(pl::Mat, {32, 32});
    auto bm = pl::make_tile<float>(pl::Mat, {32, 32});
    auto l = pl::make_tile<float>(pl::Left, {32, 32});
    auto r = pl::make_tile<float>(pl::Right, {32, 32});
    auto acc = pl::make_tile<float>(pl::Acc, {32, 32});
    pl::load(am, a.slice(0, 32, 0, ka));
    pl::load(bm, b.slice(0, 32, 0, 32));
    pl::move(l, am);
    pl::move(r, bm);
    line = __LINE__; pl::matmul(acc, l, r);
    pl::store(c.slice(0, 32, 0, 32), acc);
  });
  auto a = pto::Tensor<float>::random({32, 32}, 1), b = pto::Tensor<float>::random({32, 32}, 2);
  auto c = pto::Tensor<float>::full({32, 32}, 9.0f);
  const auto c0 = copy_of(c);
  CHECK_NOTHROW(k[{.block_dim = 2}](a, b, c, int64_t{24}));  // compiles: K is only known at run time
  const std::string msg = user_error([] { pto::synchronize(); });
  CHECK_HAS(msg, "kernel 'matmul_runtime_k'",
            "matmul of a Left tile with 24 valid columns (K) by a Right tile with 32 valid rows: K must match", "core: AIC 0",
            "pipe: M", "instruction: #", PTO_AT(line));
  CHECK(bitwise_equal(c, c0));  // the store after the failed matmul never ran
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}].run_sync(a, b, c, int64_t{8}); }),
            "matmul of a Left tile with 8 valid columns (K) by a Right tile with 32 valid rows");
  // The same specialisation with matching K works.
  CHECK_NOTHROW(k[{.block_dim = 1}].run_sync(a, b, c, int64_t{32}));
  int bad = 0;
  for (int64_t i = 0; i < 32; ++i) {
    for (int64_t j = 0; j < 32; ++j) {
      double s = 0;
      for (int64_t q = 0; q < 32; ++q) s += static_cast<double>(a[i * 32 + q]) * static_cast<double>(b[q * 32 + j]);
      bad += std::abs(static_cast<double>(c[i * 32 + j]) - s) > 32 * 0x1p-22 * 8;
    }
  }
  CHECK(bad == 0);
  check_usable_after_cube_error();
}

TEST_CASE("matmul into an Acc tile smaller than M x N fails at launch: the accumulator is too small") {
  int line = 0;
  const auto k = pl::jit({.name = "matmul_small_acc"}, [&](pl::Tensor<float> a, pl::Tensor<float> c) {
    auto am = pl::make_tile<float>(pl::Mat, {32, 32});
    auto l = pl::make_tile<float>(pl::Left, {32, 32});
    auto r = pl::make_tile<float>(pl::Right, {32, 32});
    auto acc = pl::make_tile<float>(pl::Acc, {16, 32});
    pl::load(am, a.slice(0, 32, 0, 32));
    pl::move(l, am);
    pl::move(r, am);
    line = __LINE__; pl::matmul(acc, l, r);
    pl::store(c.slice(0, 16, 0, 32), acc);
  });
  auto a = pto::Tensor<float>::random({32, 32}, 1);
  auto c = pto::Tensor<float>::zeros({16, 32});
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a, c); }), "kernel 'matmul_small_acc'",
            "matmul of 32x32 into a 16x32 Acc tile: the accumulator is too small", PTO_AT(line));
  check_usable_after_cube_error();
}

TEST_CASE("tiles over the L0A (Left 64 KiB) or L0C (Acc 128 KiB) capacity fail at launch with the bytes needed and each group") {
  int left_line = 0, acc_line = 0;
  for (bool left : {true, false}) {
    CAPTURE(left);
    const auto k = pl::jit({.name = "l0_capacity"}, [&, left](pl::Tensor<float> a) {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      left_line = __LINE__; auto l = pl::make_tile_group<float>(pl::Left, {128, 64}, left ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1});
      acc_line = __LINE__; auto acc = pl::make_tile<float>(pl::Acc, {256, left ? 128 : 256});
      // left: Left 3 x 32 KiB (over), Acc 128 KiB (fits); else Left 2 x 32 KiB (fits), Acc 256 KiB (over).
      pl::load(m, a.slice(0, 16, 0, 16));
      if (left) pl::move(l.current(), m);
      (void)acc;
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    const std::string msg = user_error([&] { k[{.block_dim = 1}](a); });
    if (left) {
      CHECK_HAS(msg, "kernel 'l0_capacity'", "tiles in Left need 98304 B but the a2 profile gives 65536 B (32768 B over)",
                "shrink the tiles or the group depth", "3xf32[128x64] at error/" + PTO_AT(left_line) + ": 3 x 32768 B = 98304 B");
    } else {
      CHECK_HAS(msg, "kernel 'l0_capacity'", "tiles in Acc need 262144 B but the a2 profile gives 131072 B (131072 B over)",
                "1xf32[256x256] at error/" + PTO_AT(acc_line) + ": 1 x 262144 B = 262144 B");
    }
  }
  check_usable_after_cube_error();
}

// ------------------------------------------------------------------------------------ moves

TEST_CASE("a move on a path the AI Core does not have (Vec -> Left, Mat -> Acc, Left -> Right) fails at launch") {
  struct Case {
    MemSpace from, to;
  };
  for (Case c : {Case{pl::Vec, pl::Left}, Case{pl::Mat, pl::Acc}, Case{pl::Left, pl::Right}, Case{pl::Acc, pl::Mat}}) {
    CAPTURE(space_name(c.from));
    CAPTURE(space_name(c.to));
    int line = 0;
    const auto k = pl::jit({.name = "bad_move"}, [&line, c](pl::Tensor<float> x) {
      auto src = pl::make_tile<float>(c.from, {16, 16});
      auto dst = pl::make_tile<float>(c.to, {16, 16});
      line = __LINE__; pl::move(dst, src);
      (void)x;
    });
    auto x = pto::Tensor<float>::zeros({16, 16});
    const std::string msg = user_error([&] { k[{.block_dim = 1}](x); });
    CHECK_HAS(msg, "kernel 'bad_move'",
              std::string("move from ") + space_name(c.from) + " to " + space_name(c.to) + " is not a path of the AI Core",
              "moves go Mat -> Left/Right (MTE1), Acc -> Vec (FIX) or Vec -> Mat (MTE3)", PTO_AT(line));
  }
  check_usable_after_cube_error();
}

TEST_CASE("only Mat -> Left/Right moves transpose") {
  int line = 0;
  const auto k = pl::jit({.name = "bad_transpose", .chip = "a5"}, [&](pl::Tensor<float> x) {
    auto src = pl::make_tile<float>(pl::Acc, {16, 16});
    auto dst = pl::make_tile<float>(pl::Vec, {16, 16});
    line = __LINE__; pl::move(dst, src, {.transpose = true});
    (void)x;
  });
  auto x = pto::Tensor<float>::zeros({16, 16});
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](x); }), "kernel 'bad_transpose'", "only moves from Mat into Left/Right can transpose",
            PTO_AT(line));
  check_usable_after_cube_error();
}

TEST_CASE("extract takes a window of a Mat tile into Left/Right: another path, or a constant offset outside the source, fails at launch") {
  struct Case {
    bool from_vec;
    int64_t row;
    const char* want;
  };
  for (const Case c : {Case{true, 0, "extract from Vec to Left: extract takes a window of a Mat (L1) tile into a Left or Right"},
                       Case{false, 32, "extract row offset 32 is outside the source tile's 32 rows"}}) {
    CAPTURE(c.want);
    int line = 0;
    const auto k = pl::jit({.name = "bad_extract"}, [&](pl::Tensor<float> x) {
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      if (c.from_vec) {
        auto v = pl::make_tile<float>(pl::Vec, {32, 32});
        line = __LINE__; pl::extract(l, v, c.row, 0);
      } else {
        auto m = pl::make_tile<float>(pl::Mat, {32, 32});
        line = __LINE__; pl::extract(l, m, c.row, 0);
      }
      (void)x;
    });
    auto x = pto::Tensor<float>::zeros({16, 16});
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](x); }), "kernel 'bad_extract'", c.want, PTO_AT(line));
  }
  check_usable_after_cube_error();
}

TEST_CASE("an extract window at a negative offset or past the source's valid extent is reported by synchronize; C stays intact") {
  struct Case {
    int64_t row, col;
    const char* want;
  };
  for (const Case c : {Case{-1, 0, "extract at a negative row offset -1"},
                       Case{0, 21, "extract window at column 21 starts past the source tile's valid extent of 20 columns"}}) {
    CAPTURE(c.want);
    int line = 0;
    const auto k = pl::jit({.name = "bad_extract_window", .auto_mutex = true},
                           [&](pl::Tensor<float> a, pl::Tensor<float> y, pl::Int row, pl::Int col) {
      auto m = pl::make_tile<float>(pl::Mat, {32, 32});
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      auto r = pl::make_tile<float>(pl::Right, {16, 16});
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      pl::load(m, a.slice(0, 16, 0, 20));
      line = __LINE__; pl::extract(l, m, row, col);
      pl::extract(r, m, 0, 0);
      pl::matmul(acc, l, r);
      pl::store(y.slice(0, 16, 0, 16), acc);
    });
    auto a = pto::Tensor<float>::random({16, 20}, 1);
    auto y = pto::Tensor<float>::full({16, 16}, 3.0f);
    const auto y0 = copy_of(y);
    k[{.block_dim = 1}](a, y, c.row, c.col);
    CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'bad_extract_window'", c.want, "AIC", "MTE1", PTO_AT(line));
    CHECK(bitwise_equal(y, y0));
  }
  check_usable_after_cube_error();
}

TEST_CASE("an Acc -> Vec move fails at launch on chip a2, which has no such path: pass the data through a GM workspace") {
  int line = 0;
  const auto k = pl::jit({.name = "acc_to_vec"}, [&](pl::Tensor<float> a, pl::Tensor<float> y) {
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    auto v = pl::make_tile<float>(pl::Vec, {16, 16});
    pl::section_cube([&] {
      auto am = pl::make_tile<float>(pl::Mat, {16, 16});
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      auto r = pl::make_tile<float>(pl::Right, {16, 16});
      pl::load(am, a.slice(0, 16, 0, 16));
      pl::move(l, am);
      pl::move(r, am);
      pl::matmul(acc, l, r);
      line = __LINE__; pl::move(v, acc);
    });
    pl::section_vector([&] { pl::store(y.slice(0, 16, 0, 16), v); });
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto y = pto::Tensor<float>::full({16, 16}, 3.0f);
  const auto y0 = copy_of(y);
  const std::string msg = user_error([&] { k[{.block_dim = 1}](a, y); });
  CHECK_HAS(msg, "kernel 'acc_to_vec'", "the 'a2' chip profile has no Acc -> Vec path; pass the data through a GM workspace",
            "pipe: FIX", PTO_AT(line));
  CHECK_NOTHROW(pto::synchronize());
  CHECK(bitwise_equal(y, y0));
  check_usable_after_cube_error();
}

// ------------------------------------------------------------------------------ kernel modes

TEST_CASE("a vector instruction in a cube kernel (deduced from its cube tiles) fails at launch: the AIC has no pipe V") {
  int line = 0;
  const auto k = pl::jit({.name = "vec_in_cube"}, [&](pl::Tensor<float> a, pl::Tensor<float> z) {
    auto m = pl::make_tile<float>(pl::Mat, {16, 16});
    auto v = pl::make_tile<float>(pl::Vec, {16, 16});
    pl::load(m, a.slice(0, 16, 0, 16));
    line = __LINE__; v = v * 2.0f;
    (void)z;
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto z = pto::Tensor<float>::zeros({16, 16});
  const std::string msg = user_error([&] { k[{.block_dim = 1}](a, z); });
  CHECK_HAS(msg, "kernel 'vec_in_cube'", "runs on pipe V, which the AIC does not have", "pipe: V", PTO_AT(line));
  check_usable_after_cube_error();
}

TEST_CASE("JitOptions::mode overrides the deduced mode: a Vec load in a cube kernel, a Mat load in a vector kernel fail") {
  for (ir::KernelMode mode : {ir::KernelMode::Cube, ir::KernelMode::Vector}) {
    const bool cube = mode == ir::KernelMode::Cube;
    CAPTURE(cube);
    int line = 0;
    const auto k = pl::jit({.name = "forced_mode", .mode = mode}, [&line, cube](pl::Tensor<float> x, pl::Tensor<float> z) {
      // A vector kernel forced to cube mode, or a cube kernel forced to vector mode.
      auto t = pl::make_tile<float>(cube ? pl::Vec : pl::Mat, {16, 16});
      line = __LINE__; pl::load(t, x.slice(0, 16, 0, 16));
      (void)z;
    });
    auto x = pto::Tensor<float>::random({16, 16}, 1);
    auto z = pto::Tensor<float>::zeros({16, 16});
    const std::string msg = user_error([&] { k[{.block_dim = 1}](x, z); });
    if (cube) {
      CHECK_HAS(msg, "kernel 'forced_mode'", "load uses tile t0 in Vec, which the AIC does not have (AICs have Mat, Left, Right and Acc)",
                PTO_AT(line));
    } else {
      CHECK_HAS(msg, "kernel 'forced_mode'", "load uses tile t0 in Mat, which the AIV does not have (AIVs have Vec)", PTO_AT(line));
    }
  }
  check_usable_after_cube_error();
}

TEST_CASE("a section that a forced kernel mode never runs (section_vector in a cube kernel) fails at launch") {
  int line = 0;
  const auto k = pl::jit({.name = "forced_cube", .mode = ir::KernelMode::Cube}, [&](pl::Tensor<float> a, pl::Tensor<float> y) {
    pl::section_cube([&] {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      pl::load(m, a.slice(0, 16, 0, 16));
    });
    line = __LINE__; pl::section_vector([&] {
      auto v = pl::make_tile<float>(pl::Vec, {16, 16});
      pl::load(v, a.slice(0, 16, 0, 16));
      pl::store(y.slice(0, 16, 0, 16), v);
    });
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto y = pto::Tensor<float>::zeros({16, 16});
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a, y); }), "kernel 'forced_cube'",
            "section_vector in a cube kernel: its code would never run; use kernel mode mix (or auto)", PTO_AT(line));
  check_usable_after_cube_error();
}

TEST_CASE("an instruction outside the sections of a mix kernel fails at launch") {
  int line = 0;
  const auto k = pl::jit({.name = "outside_sections"}, [&](pl::Tensor<float> a, pl::Tensor<float> y) {
    auto m = pl::make_tile<float>(pl::Mat, {16, 16});
    auto v = pl::make_tile<float>(pl::Vec, {16, 16});
    line = __LINE__; pl::load(v, a.slice(0, 16, 0, 16));
    pl::section_cube([&] { pl::load(m, a.slice(0, 16, 0, 16)); });
    pl::section_vector([&] { pl::store(y.slice(0, 16, 0, 16), v); });
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto y = pto::Tensor<float>::zeros({16, 16});
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a, y); }), "kernel 'outside_sections'",
            "load outside a section of a mix kernel: put it in pl::section_cube or pl::section_vector", "pipe: MTE2", PTO_AT(line));
  check_usable_after_cube_error();
}

TEST_CASE("sections do not nest: section_cube or section_vector inside section_cube fails at launch") {
  for (bool inner_cube : {true, false}) {
    CAPTURE(inner_cube);
    int line = 0;
    const auto k = pl::jit({.name = "nested_sections"}, [&line, inner_cube](pl::Tensor<float> a) {
      pl::section_cube([&] {
        auto m = pl::make_tile<float>(pl::Mat, {16, 16});
        pl::load(m, a.slice(0, 16, 0, 16));
        if (inner_cube) {
          line = __LINE__; pl::section_cube([&] { pl::load(m, a.slice(0, 16, 0, 16)); });
        } else {
          line = __LINE__; pl::section_vector([&] {});
        }
      });
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    const std::string msg = user_error([&] { k[{.block_dim = 1}](a); });
    CHECK_HAS(msg, "kernel 'nested_sections'",
              std::string(inner_cube ? "section_cube" : "section_vector") + " inside section_cube: sections do not nest", PTO_AT(line));
  }
  check_usable_after_cube_error();
}

// ------------------------------------------------------------------------- cross-core flags

TEST_CASE("cross-core flags in a kernel that is not mix fail at launch: in a cube kernel, and outside any section") {
  {
    int line = 0;
    const auto k = pl::jit({.name = "cross_in_cube"}, [&](pl::Tensor<float> a) {
      pl::section_cube([&] {
        auto m = pl::make_tile<float>(pl::Mat, {16, 16});
        pl::load(m, a.slice(0, 16, 0, 16));
        line = __LINE__; pl::set_cross_core(pl::Pipe::MTE2, 0);
      });
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a); }), "kernel 'cross_in_cube'",
              "set_cross_core in a cube kernel: cross-core flags connect the AIC and AIVs of a mix kernel's block", PTO_AT(line));
  }
  {
    int line = 0;
    const auto k = pl::jit({.name = "cross_in_vector"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
      auto t = pl::make_tile<float>(pl::Vec, {64});
      line = __LINE__; pl::wait_cross_core(pl::Pipe::MTE2, 0);
      pl::load(t, x.slice(0, 64));
      pl::store(z.slice(0, 64), t);
    });
    auto x = pto::Tensor<float>::random({64}, 1);
    auto z = pto::Tensor<float>::zeros({64});
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](x, z); }), "kernel 'cross_in_vector'",
              "wait_cross_core outside a section: cross-core flags go between section_cube and section_vector code", PTO_AT(line));
  }
  check_usable_after_cube_error();
}

TEST_CASE("a cross-core flag on a pipe its core lacks (wait on V in section_cube) or on ALL fails at launch") {
  {
    int line = 0;
    const auto k = pl::jit({.name = "cross_pipe_v"}, [&](pl::Tensor<float> a) {
      pl::section_cube([&] {
        auto m = pl::make_tile<float>(pl::Mat, {16, 16});
        pl::load(m, a.slice(0, 16, 0, 16));
        line = __LINE__; pl::wait_cross_core(pl::Pipe::V, 0);
      });
      pl::section_vector([&] { pl::set_cross_core(pl::Pipe::V, 0); });
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a); }), "kernel 'cross_pipe_v'", "wait_cross_core", "pipe V, which the AIC does not have",
              PTO_AT(line));
  }
  {
    int line = 0;
    const auto k = pl::jit({.name = "cross_pipe_all"}, [&](pl::Tensor<float> a) {
      pl::section_cube([&] { line = __LINE__; pl::set_cross_core(pl::Pipe::ALL, 0); });
      pl::section_vector([&] { pl::wait_cross_core(pl::Pipe::MTE2, 0); });
      (void)a;
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a); }), "kernel 'cross_pipe_all'", "set_cross_core needs one pipe, not ALL", PTO_AT(line));
  }
  check_usable_after_cube_error();
}

TEST_CASE("a constant cross-core event id outside 0..15 fails at launch; a runtime one is reported by synchronize") {
  for (int64_t e : {16, -1}) {
    CAPTURE(e);
    int line = 0;
    const auto k = pl::jit({.name = "cross_event_const"}, [&line, e](pl::Tensor<float> a) {
      pl::section_cube([&] {
        auto m = pl::make_tile<float>(pl::Mat, {16, 16});
        pl::load(m, a.slice(0, 16, 0, 16));
        if (e > 0) { line = __LINE__; pl::set_cross_core(pl::Pipe::MTE2, e); }
      });
      pl::section_vector([&] {
        if (e < 0) { line = __LINE__; pl::wait_cross_core(pl::Pipe::MTE2, e); }
      });
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a); }), "kernel 'cross_event_const'",
              std::string(e > 0 ? "set_cross_core" : "wait_cross_core") + " event id " + std::to_string(e) + " is out of range 0..15",
              PTO_AT(line));
  }
  // The event id from a pl::Int parameter: checked when the flag is set at run time.
  int set_line = 0;
  const auto k = pl::jit({.name = "cross_event_runtime", .auto_mutex = true},
                         [&](pl::Tensor<float> a, pl::Tensor<float> ws, pl::Tensor<float> y, pl::Int e) {
    pl::section_cube([&] {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      auto r = pl::make_tile<float>(pl::Right, {16, 16});
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      pl::load(m, a.slice(0, 16, 0, 16));
      pl::move(l, m);
      pl::move(r, m);
      pl::matmul(acc, l, r);
      pl::store(ws.slice(0, 16, 0, 16), acc);
      set_line = __LINE__; pl::set_cross_core(pl::Pipe::FIX, e);
    });
    pl::section_vector([&] {
      auto v = pl::make_tile<float>(pl::Vec, {8, 16});
      auto row0 = pl::get_subblock_idx() * 8;
      pl::wait_cross_core(pl::Pipe::MTE2, e);
      pl::load(v, ws.slice(row0, 8, 0, 16));
      pl::store(y.slice(row0, 8, 0, 16), v);
    });
  });
  auto a = pto::Tensor<float>::random({16, 16}, 2);
  auto ws = pto::Tensor<float>::zeros({16, 16});
  auto y = pto::Tensor<float>::full({16, 16}, -2.0f);
  CHECK_NOTHROW(k[{.block_dim = 2}](a, ws, y, int64_t{16}));
  const std::string msg = user_error([] { pto::synchronize(); });
  CHECK_HAS(msg, "kernel 'cross_event_runtime'", "cross-core event id 16 is out of range 0..15", "core: AIC 0", PTO_AT(set_line));
  CHECK(msg.find("deadlock") == std::string::npos);
  for (int64_t i = 0; i < 256; ++i) REQUIRE(y[i] == -2.0f);
  // The same kernel with a valid event runs (on one block: both blocks would write the same workspace).
  pto::LaunchProfile p;
  CHECK_NOTHROW(p = k[{.block_dim = 1}].run_sync(a, ws, y, int64_t{15}));
  CHECK(p.races.empty());
  CHECK(bitwise_equal(y, ws));
  check_usable_after_cube_error();
}

// -------------------------------------------------------------------------------- block_dim

TEST_CASE("block_dim limits follow the kernel mode on a2: cube 24 AICs, mix 24 blocks, vector 48 AIVs") {
  const auto cube = pl::jit({.name = "cube_limit"}, [](pl::Tensor<float> a, pl::Tensor<float> c) {
    auto m = pl::make_tile<float>(pl::Mat, {16, 16});
    auto l = pl::make_tile<float>(pl::Left, {16, 16});
    auto r = pl::make_tile<float>(pl::Right, {16, 16});
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    pl::if_(pl::get_block_idx() == 0, [&] {
      pl::load(m, a.slice(0, 16, 0, 16));
      pl::move(l, m);
      pl::move(r, m);
      pl::matmul(acc, l, r);
      pl::store(c.slice(0, 16, 0, 16), acc);
    });
  });
  const auto vec = pl::jit({.name = "vector_limit"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::if_(pl::get_block_idx() == 0, [&] {
      pl::load(t, x.slice(0, 64));
      pl::store(z.slice(0, 64), t);
    });
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto c = pto::Tensor<float>::full({16, 16}, 5.0f);
  auto x = pto::Tensor<float>::random({64}, 2);
  auto z = pto::Tensor<float>::zeros({64});
  auto b = pto::Tensor<float>::random({16, 16}, 3);
  auto ws = pto::Tensor<float>::zeros({16, 16}), y = pto::Tensor<float>::full({16, 16}, 6.0f);

  int line = 0;
  std::string msg = user_error([&] { line = __LINE__; cube[{.block_dim = 25}](a, c); });
  CHECK_HAS(msg, "kernel 'cube_limit'", "block_dim 25 is out of range: a cube kernel runs on 1..24 AIC cores of the 'a2' chip profile (never clamped)",
            PTO_AT(line));
  CHECK_HAS(user_error([&] { cube[{.block_dim = 25}].run_sync(a, c); }), "block_dim 25 is out of range: a cube kernel runs on 1..24 AIC cores");
  CHECK_HAS(user_error([&] { cube[{.block_dim = 0}](a, c); }), "block_dim 0 is out of range: a cube kernel runs on 1..24 AIC cores");
  msg = user_error([&] { line = __LINE__; good_mix_kernel()[{.block_dim = 25}](a, b, ws, y); });
  CHECK_HAS(msg, "kernel 'good_mix_after_error'",
            "block_dim 25 is out of range: a mix kernel runs on 1..24 blocks of 1 AIC + 2 AIV of the 'a2' chip profile (never clamped)",
            PTO_AT(line));
  CHECK_HAS(user_error([&] { good_mix_kernel()[{.block_dim = 25}].run_sync(a, b, ws, y); }), "a mix kernel runs on 1..24 blocks");
  msg = user_error([&] { line = __LINE__; vec[{.block_dim = 49}](x, z); });
  CHECK_HAS(msg, "kernel 'vector_limit'", "block_dim 49 is out of range: a vector kernel runs on 1..48 AIV cores of the 'a2' chip profile",
            PTO_AT(line));
  CHECK_NOTHROW(pto::synchronize());
  for (int64_t i = 0; i < 256; ++i) REQUIRE(c[i] == 5.0f);  // nothing ran
  for (int64_t i = 0; i < 256; ++i) REQUIRE(y[i] == 6.0f);
  // The limits themselves are valid.
  pto::LaunchProfile pc, pm, pv;
  CHECK_NOTHROW(pc = cube[{.block_dim = 24}].run_sync(a, c));
  CHECK_NOTHROW(pm = good_mix_kernel()[{.block_dim = 24}].run_sync(a, b, ws, y));
  CHECK_NOTHROW(pv = vec[{.block_dim = 48}].run_sync(x, z));
  CHECK(pc.mode == "cube");
  CHECK(pc.cores.size() == 24);
  CHECK(pm.mode == "mix");
  CHECK(pm.cores.size() == 72);
  CHECK(pv.mode == "vector");
  CHECK(pv.cores.size() == 48);
  CHECK(c[0] != 5.0f);
  CHECK(bitwise_equal(x, z));
  check_usable_after_cube_error();
}

// --------------------------------------------------------------------------------- deadlock

TEST_CASE("an AIV waiting for a cross-core event the AIC never sets is a deadlock, reported (not hung) by synchronize and run_sync") {
  int wait_line = 0;
  const auto k = pl::jit({.name = "never_set", .auto_mutex = true}, [&](pl::Tensor<float> a, pl::Tensor<float> ws, pl::Tensor<float> y) {
    pl::section_cube([&] {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      auto r = pl::make_tile<float>(pl::Right, {16, 16});
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      pl::load(m, a.slice(0, 16, 0, 16));
      pl::move(l, m);
      pl::move(r, m);
      pl::matmul(acc, l, r);
      pl::store(ws.slice(0, 16, 0, 16), acc);
      pl::set_cross_core(pl::Pipe::FIX, 2);  // sets event 2, the AIVs wait for 3
    });
    pl::section_vector([&] {
      auto v = pl::make_tile<float>(pl::Vec, {8, 16});
      auto row0 = pl::get_subblock_idx() * 8;
      wait_line = __LINE__; pl::wait_cross_core(pl::Pipe::MTE2, 3);
      pl::load(v, ws.slice(row0, 8, 0, 16));
      pl::store(y.slice(row0, 8, 0, 16), v);
    });
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto ws = pto::Tensor<float>::zeros({16, 16});
  auto y = pto::Tensor<float>::full({16, 16}, 1.5f);
  const auto y0 = copy_of(y);
  CHECK_NOTHROW(k[{.block_dim = 2}](a, ws, y));
  const std::string msg = user_error([] { pto::synchronize(); });
  CHECK_HAS(msg, "kernel 'never_set'",
            "deadlock: in block 0 every unfinished core waits for a cross-core flag that is never set",
            "AIV 0 waits on pipe MTE2 for cross-core event 3", "AIV 1 waits on pipe MTE2 for cross-core event 3", "core: AIV 0",
            "pipe: MTE2", PTO_AT(wait_line));
  CHECK(msg.find("the AIC waits") == std::string::npos);  // the AIC finished
  CHECK(bitwise_equal(y, y0));
  CHECK_NOTHROW(pto::synchronize());  // reported once
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}].run_sync(a, ws, y); }), "deadlock: in block 0",
            "AIV 0 waits on pipe MTE2 for cross-core event 3");
  check_usable_after_cube_error();
}

TEST_CASE("an AIC wait needs a set from each of its AIVs: with only AIV 0 setting, the AIC deadlocks") {
  int wait_line = 0;
  const auto k = pl::jit({.name = "aic_waits_both"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    pl::section_vector([&] {
      auto t = pl::make_tile<float>(pl::Vec, {64});
      pl::load(t, x.slice(pl::get_subblock_idx() * 64, 64));
      pl::store(z.slice(pl::get_subblock_idx() * 64, 64), t);
      pl::if_(pl::get_subblock_idx() == 0, [&] { pl::set_cross_core(pl::Pipe::MTE3, 4); });
    });
    pl::section_cube([&] {
      auto m = pl::make_tile<float>(pl::Mat, {64});
      wait_line = __LINE__; pl::wait_cross_core(pl::Pipe::MTE2, 4);
      pl::load(m, z.slice(0, 64));
    });
  });
  auto x = pto::Tensor<float>::random({128}, 1);
  auto z = pto::Tensor<float>::zeros({128});
  const std::string msg = user_error([&] { k[{.block_dim = 1}].run_sync(x, z); });
  CHECK_HAS(msg, "kernel 'aic_waits_both'", "deadlock: in block 0", "the AIC waits on pipe MTE2 for cross-core event 4", "core: AIC 0",
            PTO_AT(wait_line));
  CHECK(msg.find("AIV 0 waits") == std::string::npos);
  check_usable_after_cube_error();
}

// ------------------------------------------------------------------------------------- races

TEST_CASE("a vector section loading the workspace without wait_cross_core races with the cube's store (RAW on the workspace)") {
  int store_line = 0, load_line = 0;
  const auto make = [&](bool wait) {
    return pl::jit({.name = wait ? "ws_synced" : "ws_unsynced", .auto_mutex = true},
                   [&, wait](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> ws, pl::Tensor<float> y) {
      pl::section_cube([&] {
        auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
        product_16x16(acc, a, b);
        store_line = __LINE__; pl::store(ws.slice(pl::get_block_idx() * 16, 16, 0, 16), acc);  // each block its own rows
        pl::set_cross_core(pl::Pipe::FIX, 0);
      });
      pl::section_vector([&] {
        auto v = pl::make_tile<float>(pl::Vec, {8, 16});
        auto row0 = pl::get_block_idx() * 16 + pl::get_subblock_idx() * 8;
        if (wait) pl::wait_cross_core(pl::Pipe::MTE2, 0);
        load_line = __LINE__; pl::load(v, ws.slice(row0, 8, 0, 16));
        pl::store(y.slice(row0, 8, 0, 16), v);
      });
    });
  };
  const auto unsynced = make(false), synced = make(true);
  auto a = pto::Tensor<float>::random({16, 16}, 1), b = pto::Tensor<float>::random({16, 16}, 2);
  auto ws = pto::Tensor<float>::zeros({32, 16}), y = pto::Tensor<float>::zeros({32, 16});

  const pto::LaunchProfile bad = unsynced[{.block_dim = 2}].run_sync(a, b, ws, y);
  REQUIRE(!bad.races.empty());
  bool found = false;
  for (const auto& r : bad.races) {
    INFO(r.message());
    if (r.kind != "RAW" || r.resource.find("GM tensor arg2") == std::string::npos) continue;  // ws is argument 2
    found = true;
    CHECK(r.first.find("store") != std::string::npos);
    CHECK(r.first.find("[FIX on the AIC]") != std::string::npos);
    CHECK(r.first.find(PTO_AT(store_line)) != std::string::npos);
    CHECK(r.second.find("load") != std::string::npos);
    CHECK(r.second.find("[MTE2 on AIV") != std::string::npos);
    CHECK(r.second.find(PTO_AT(load_line)) != std::string::npos);
    CHECK_HAS(r.message(), "RAW race on GM tensor arg2", "are not ordered by any flag, barrier or mutex");
  }
  CHECK(found);
  // Both AIVs of both blocks race (4 reports on the workspace, one per AIV core).
  int on_ws = 0;
  for (const auto& r : bad.races) on_ws += r.kind == "RAW" && r.resource.find("arg2") != std::string::npos;
  CHECK(on_ws == 4);
  // The same kernel with the wait: no race, and the data is the same.
  auto y2 = pto::Tensor<float>::zeros({32, 16});
  const pto::LaunchProfile good = synced[{.block_dim = 2}].run_sync(a, b, ws, y2);
  INFO("first race: " << (good.races.empty() ? std::string("-") : good.races.front().message()));
  CHECK(good.races.empty());
  CHECK(bitwise_equal(y2, ws));
  check_usable_after_cube_error();
}

TEST_CASE("cube pipes without auto_mutex or flags race on the Mat, Left, Right and Acc tiles; auto_mutex orders them") {
  for (bool auto_mutex : {false, true}) {
    CAPTURE(auto_mutex);
    int matmul_line = 0, store_line = 0;
    const auto k = pl::jit({.name = "cube_unsynced", .auto_mutex = auto_mutex},
                           [&](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> c) {
      auto am = pl::make_tile<float>(pl::Mat, {16, 16});
      auto bm = pl::make_tile<float>(pl::Mat, {16, 16});
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      auto r = pl::make_tile<float>(pl::Right, {16, 16});
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      for (auto kk : pl::range(0, 4)) {
        pl::load(am, a.slice(0, 16, kk * 16, 16));
        pl::load(bm, b.slice(kk * 16, 16, 0, 16));
        pl::move(l, am);
        pl::move(r, bm);
        matmul_line = __LINE__; pl::matmul(acc, l, r);
      }
      store_line = __LINE__; pl::store(c.slice(0, 16, 0, 16), acc);
    });
    auto a = pto::Tensor<float>::random({16, 64}, 1), b = pto::Tensor<float>::random({64, 16}, 2);
    auto c = pto::Tensor<float>::zeros({16, 16});
    const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(a, b, c);
    if (auto_mutex) {
      CHECK(p.races.empty());
      continue;
    }
    std::set<std::string> raw, war;
    for (const auto& r : p.races) (r.kind == "RAW" ? raw : war).insert(r.resource);
    // MTE2 -> MTE1 on the Mat tiles, MTE1 -> M on Left/Right (and back for WAR), M -> FIX on Acc.
    CHECK(raw == std::set<std::string>{"tile t0 slot 0", "tile t1 slot 0", "tile t2 slot 0", "tile t3 slot 0", "tile t4 slot 0"});
    CHECK(war == std::set<std::string>{"tile t0 slot 0", "tile t1 slot 0", "tile t2 slot 0", "tile t3 slot 0"});
    bool acc_race = false;
    for (const auto& r : p.races) {
      if (r.resource != "tile t4 slot 0") continue;
      acc_race = r.first.find("[M]") != std::string::npos && r.first.find(PTO_AT(matmul_line)) != std::string::npos &&
                 r.second.find("[FIX]") != std::string::npos && r.second.find(PTO_AT(store_line)) != std::string::npos;
    }
    CHECK(acc_race);
  }
}

// A race is found even when the cube stores another, disjoint region of the same tensor after the
// racing one: the checker keeps a history of each pipe's GM accesses, not only the last.
TEST_CASE("a racing workspace load is reported even when the cube later stores a disjoint region") {
  const auto make = [](bool second_store) {
    return pl::jit({.name = second_store ? "ws_two_stores" : "ws_one_store", .auto_mutex = true},
                   [second_store](pl::Tensor<float> a, pl::Tensor<float> ws, pl::Tensor<float> y) {
      pl::section_cube([&] {
        auto m = pl::make_tile<float>(pl::Mat, {16, 16});
        auto l = pl::make_tile<float>(pl::Left, {16, 16});
        auto r = pl::make_tile<float>(pl::Right, {16, 16});
        auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
        pl::load(m, a.slice(0, 16, 0, 16));
        pl::move(l, m);
        pl::move(r, m);
        pl::matmul(acc, l, r);
        pl::store(ws.slice(0, 16, 0, 16), acc);                      // rows 0..15: read by the AIVs unsynchronised
        if (second_store) pl::store(ws.slice(16, 16, 0, 16), acc);   // rows 16..31: nobody reads them
        pl::set_cross_core(pl::Pipe::FIX, 0);
      });
      pl::section_vector([&] {
        auto v = pl::make_tile<float>(pl::Vec, {8, 16});
        auto row0 = pl::get_subblock_idx() * 8;
        pl::load(v, ws.slice(row0, 8, 0, 16));  // no wait_cross_core before the load
        pl::wait_cross_core(pl::Pipe::MTE2, 0);
        pl::store(y.slice(row0, 8, 0, 16), v);
      });
    });
  };
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto ws = pto::Tensor<float>::zeros({32, 16}), y = pto::Tensor<float>::zeros({16, 16});
  for (bool second_store : {false, true}) {
    CAPTURE(second_store);
    const auto k = make(second_store);
    const pto::LaunchProfile p = k[{.block_dim = 1}].run_sync(a, ws, y);
    int on_ws = 0;
    for (const auto& r : p.races) on_ws += r.kind == "RAW" && r.resource.find("GM tensor arg1") != std::string::npos;
    CHECK(on_ws == 2);  // one per AIV
  }
}

}  // namespace pto::error_test
