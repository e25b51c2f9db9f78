// User errors of the cross-core moves (Acc -> Vec, Vec -> Mat) and of set_validshape: a path
// outside a mix kernel, options on the wrong path, conversions other than Acc -> Vec's, offsets
// and extents outside the tile (at trace time and at run time), and reading moved-in data the
// receiving core never declared. Each message is pinned by its key phrases and source line;
// the output tensors stay intact and the runtime stays usable (a good a5 mix kernel runs after).
#include "error_common.hpp"

namespace pto::error_test {
namespace {

/// A correct a5 mix kernel: the AIC moves A x B (16 x 16) to its AIVs split by rows; each AIV
/// declares its 8 rows and stores them.
const auto& good_acc_to_vec_kernel() {
  static const auto k = pl::jit({.name = "good_acc_to_vec", .auto_mutex = true, .chip = "a5"},
                                [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> y) {
    auto v = pl::make_tile<float>(pl::Vec, {8, 16});
    pl::section_cube([&] {
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      product_16x16(acc, a, b);
      pl::move(v, acc, {.acc_to_vec_mode = pl::AccToVecMode::DualModeSplitM});
      pl::set_cross_core(pl::Pipe::FIX, 0);
    });
    pl::section_vector([&] {
      pl::wait_cross_core(pl::Pipe::MTE3, 0);
      pl::set_validshape(v, 8, 16);
      pl::store(y.slice(pl::get_subblock_idx() * 8, 8, 0, 16), v);
    });
  });
  return k;
}

void check_usable_after_move_error() {
  check_runtime_usable();
  auto a = pto::Tensor<float>::random({16, 16}, 5), b = pto::Tensor<float>::random({16, 16}, 6);
  auto y = pto::Tensor<float>::zeros({16, 16});
  CHECK_NOTHROW(good_acc_to_vec_kernel()[{.block_dim = 1}](a, b, y));
  CHECK_NOTHROW(pto::synchronize());
  CHECK(product_16x16_mismatches(y, a, b) == 0);
}

}  // namespace

TEST_CASE("an Acc -> Vec move in a cube kernel fails at launch: the path joins the AIC and AIVs of a mix kernel") {
  int line = 0;
  const auto k = pl::jit({.name = "acc_to_vec_cube", .chip = "a5", .mode = ir::KernelMode::Cube},
                         [&](pl::Tensor<float> a, pl::Tensor<float> y) {
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    auto v = pl::make_tile<float>(pl::Vec, {16, 16});
    product_16x16(acc, a, a);
    line = __LINE__; pl::move(v, acc);
    (void)y;
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto y = pto::Tensor<float>::full({16, 16}, 3.0f);
  const auto y0 = copy_of(y);
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](a, y); }), "kernel 'acc_to_vec_cube'",
            "the Acc -> Vec move is in a cube kernel: it connects the AIC and the AIVs of a mix kernel's block", "pipe: FIX", PTO_AT(line));
  CHECK(bitwise_equal(y, y0));
  check_usable_after_move_error();
}

TEST_CASE("move options on the wrong path fail at launch: acc_to_vec_mode or an offset on Mat -> Left, a conversion on Mat -> Left") {
  for (int which = 0; which < 3; ++which) {
    CAPTURE(which);
    int line = 0;
    const auto k = pl::jit({.name = "bad_move_options", .chip = "a5"}, [&line, which](pl::Tensor<float> a) {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      auto l = pl::make_tile<float>(pl::Left, {16, 16});
      auto lh = pl::make_tile<pto::half>(pl::Left, {16, 16});
      pl::load(m, a.slice(0, 16, 0, 16));
      if (which == 0) { line = __LINE__; pl::move(l, m, {.acc_to_vec_mode = pl::AccToVecMode::DualModeSplitM}); }
      if (which == 1) { line = __LINE__; pl::move(l, m, {.offset = {8, 0}}); }
      if (which == 2) { line = __LINE__; pl::move(lh, m); }
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    const std::string msg = user_error([&] { k[{.block_dim = 1}](a); });
    const char* want[3] = {"acc_to_vec_mode DualModeSplitM on a move from Mat: the mode chooses the AIVs that receive an Acc -> Vec move",
                           "a move offset on a move from Mat: only Vec -> Mat moves take an offset",
                           "move from a f32 tile to a f16 tile: only Acc -> Vec converts"};
    CHECK_HAS(msg, "kernel 'bad_move_options'", want[which], PTO_AT(line));
  }
  check_usable_after_move_error();
}

TEST_CASE("a constant Vec -> Mat offset outside the destination, or set_validshape over the capacity, fails at launch") {
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    int line = 0;
    const auto k = pl::jit({.name = "bad_constant_extent", .chip = "a5"}, [&line, which](pl::Tensor<float> a) {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      auto v = pl::make_tile<float>(pl::Vec, {8, 16});
      pl::section_vector([&] {
        pl::load(v, a.slice(0, 8, 0, 16));
        if (which == 0) { line = __LINE__; pl::move(m, v, {.offset = {16, 0}}); }
        if (which == 1) { line = __LINE__; pl::set_validshape(v, 9, 16); }
      });
      pl::section_cube([&] { pl::set_validshape(m, 16, 16); });
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    const std::string msg = user_error([&] { k[{.block_dim = 1}](a); });
    const char* want[2] = {"move row offset 16 is outside the destination tile's 16 rows", "set_validshape of 9 rows on a tile of 8 rows"};
    CHECK_HAS(msg, "kernel 'bad_constant_extent'", want[which], PTO_AT(line));
  }
  check_usable_after_move_error();
}

TEST_CASE("a Vec -> Mat move past the AIC's tile or at a negative offset, set_validshape over the tile: run-time errors by synchronize") {
  struct Case {
    int64_t row_offset, valid_rows;
    const char* want;
  };
  const Case cases[] = {
      {12, 8, "the result has 20 rows but the destination tile holds 16"},  // AIV 0 puts 8 rows at row 12
      {-4, 8, "move at a negative row offset -4"},
      {0, 9, "set_validshape of 9 rows into a tile of 8 rows (over capacity)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.want);
    int move_line = 0, valid_line = 0;
    const auto k = pl::jit({.name = "bad_runtime_extent", .auto_mutex = true, .chip = "a5"},
                           [&](pl::Tensor<float> a, pl::Tensor<float> y, pl::Int row, pl::Int rows) {
      auto m = pl::make_tile<float>(pl::Mat, {16, 16});
      auto v = pl::make_tile<float>(pl::Vec, {8, 16});
      pl::section_vector([&] {
        pl::load(v, a.slice(0, 8, 0, 16));
        valid_line = __LINE__; pl::set_validshape(v, rows, 16);
        move_line = __LINE__; pl::move(m, v, {.offset = {row * (1 - pl::get_subblock_idx()), 0}});
        pl::set_cross_core(pl::Pipe::MTE3, 0);
      });
      pl::section_cube([&] {
        auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
        auto l = pl::make_tile<float>(pl::Left, {16, 16});
        auto r = pl::make_tile<float>(pl::Right, {16, 16});
        pl::wait_cross_core(pl::Pipe::MTE1, 0);
        pl::set_validshape(m, 16, 16);
        pl::move(l, m);
        pl::move(r, m);
        pl::matmul(acc, l, r);
        pl::store(y.slice(0, 16, 0, 16), acc);
      });
    });
    auto a = pto::Tensor<float>::random({16, 16}, 1);
    auto y = pto::Tensor<float>::full({16, 16}, 3.0f);
    const auto y0 = copy_of(y);
    k[{.block_dim = 1}](a, y, c.row_offset, c.valid_rows);
    const std::string msg = user_error([] { pto::synchronize(); });
    CHECK_HAS(msg, "kernel 'bad_runtime_extent'", c.want, "AIV", PTO_AT(c.valid_rows > 8 ? valid_line : move_line));
    CHECK(bitwise_equal(y, y0));  // the AIC's store never ran: its wait was never satisfied
  }
  check_usable_after_move_error();
}

TEST_CASE("storing data moved in by Acc -> Vec without set_validshape: the store names the tile's valid extent 0 and the fix") {
  int line = 0;
  const auto k = pl::jit({.name = "no_set_validshape", .auto_mutex = true, .chip = "a5"}, [&](pl::Tensor<float> a, pl::Tensor<float> y) {
    auto v = pl::make_tile<float>(pl::Vec, {16, 16});
    pl::section_cube([&] {
      auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
      product_16x16(acc, a, a);
      pl::move(v, acc);
      pl::set_cross_core(pl::Pipe::FIX, 0);
    });
    pl::section_vector([&] {
      pl::wait_cross_core(pl::Pipe::MTE3, 0);
      pl::if_(pl::get_subblock_idx() == 0, [&] { line = __LINE__; pl::store(y.slice(0, 16, 0, 16), v); });
    });
  });
  auto a = pto::Tensor<float>::random({16, 16}, 1);
  auto y = pto::Tensor<float>::full({16, 16}, 3.0f);
  const auto y0 = copy_of(y);
  const std::string msg = user_error([&] { k[{.block_dim = 1}].run_sync(a, y); });
  CHECK_HAS(msg, "kernel 'no_set_validshape'", "store of 16 rows from a tile whose valid extent is 0 rows",
            "needs pl::set_validshape on the receiving core", "AIV", "pipe: MTE3", PTO_AT(line));
  CHECK(bitwise_equal(y, y0));
  check_usable_after_move_error();
}

}  // namespace pto::error_test
