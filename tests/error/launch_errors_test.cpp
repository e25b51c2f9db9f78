// User errors found on the host, thrown by the launch call itself: shape contracts, block_dim,
// UB capacity, tile pitch, alignment and bounds known at compile time, misuse of the language.
#include "error_common.hpp"

namespace pto::error_test {
namespace {

/// z = x + y with a shape contract.
auto make_checked_add(int& require_line) {
  return pl::jit({.name = "checked_add"}, [&require_line](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
    require_line = __LINE__; pl::require(x.shape() == y.shape() && y.shape() == z.shape(), "x, y and z must have the same shape");
    auto a = pl::make_tile<float>(pl::Vec, {64});
    auto b = pl::make_tile<float>(pl::Vec, {64});
    const int64_t n = x.numel();
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, 64), pl::get_block_num())) {
      auto len = pl::min(64, n - i * 64);
      pl::load(a, x.slice(i * 64, len));
      pl::load(b, y.slice(i * 64, len));
      a = a + b;
      pl::store(z.slice(i * 64, len), a);
    }
  });
}

}  // namespace

TEST_CASE("a shape contract (pl::require) failing at launch names the kernel, the shapes, the reason and the line") {
  int require_line = 0;
  const auto k = make_checked_add(require_line);
  auto x = pto::Tensor<float>::random({640}, 1);
  auto y = pto::Tensor<float>::random({641}, 2);
  auto z = pto::Tensor<float>::full({640}, -1.0f);
  const auto x0 = copy_of(x), y0 = copy_of(y), z0 = copy_of(z);
  const std::string msg = user_error([&] { k[{.block_dim = 2}](x, y, z); });
  REQUIRE(require_line > 0);
  CHECK_HAS(msg, "pto: kernel 'checked_add'", "(arg0:f32[640], arg1:f32[641], arg2:f32[640])",
            "x, y and z must have the same shape", "at: ", PTO_AT(require_line));
  CHECK_NOTHROW(pto::synchronize());  // nothing was queued
  CHECK(bitwise_equal(x, x0));
  CHECK(bitwise_equal(y, y0));
  CHECK(bitwise_equal(z, z0));
  // The same kernel with matching shapes still works.
  auto y2 = pto::Tensor<float>::random({640}, 3);
  k[{.block_dim = 2}](x, y2, z);
  pto::synchronize();
  int bad = 0;
  for (int64_t i = 0; i < 640; ++i) bad += z[i] != x[i] + y2[i];
  CHECK(bad == 0);
  // And the failing shape fails again (the failure is not cached as a success).
  CHECK_HAS(user_error([&] { k[{.block_dim = 2}](x, y, z); }), "x, y and z must have the same shape");
}

TEST_CASE("block_dim 0 and 49 are rejected by the launch call, naming block_dim and the a2 limit of 48") {
  int require_line = 0;
  const auto k = make_checked_add(require_line);
  auto x = pto::Tensor<float>::random({128}, 1);
  auto z = pto::Tensor<float>::full({128}, 5.0f);
  const auto x0 = copy_of(x);
  for (int bd : {0, 49, -1, 1000}) {
    CAPTURE(bd);
    int line = 0;
    const std::string msg = user_error([&] { line = __LINE__; k[{.block_dim = bd}](x, x, z); });
    CHECK_HAS(msg, "kernel 'checked_add'", "block_dim " + std::to_string(bd) + " is out of range",
              "1..48 AIV cores of the 'a2' chip profile", "never clamped", PTO_AT(line));
    CHECK_NOTHROW(pto::synchronize());
  }
  // run_sync checks block_dim the same way.
  CHECK_HAS(user_error([&] { k[{.block_dim = 49}].run_sync(x, x, z); }), "block_dim 49 is out of range");
  CHECK(bitwise_equal(x, x0));
  for (int64_t i = 0; i < 128; ++i) REQUIRE(z[i] == 5.0f);  // no launch ran
  // The limits are valid block_dims.
  CHECK_NOTHROW(k[{.block_dim = 48}](x, x, z));
  CHECK_NOTHROW(k[{.block_dim = 1}](x, x, z));
  CHECK_NOTHROW(pto::synchronize());
  check_runtime_usable();
}

TEST_CASE("the block_dim limit follows the chip profile: a5 allows 64 AIV cores and rejects 65") {
  const auto k = pl::jit({.name = "on_a5", .chip = "a5"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::if_(pl::get_block_idx() == 0, [&] {
      pl::load(t, x.slice(0, 64));
      pl::store(z.slice(0, 64), t);
    });
  });
  auto x = pto::Tensor<float>::random({64}, 1);
  auto z = pto::Tensor<float>::zeros({64});
  CHECK_NOTHROW(k[{.block_dim = 64}](x, z));
  CHECK_NOTHROW(pto::synchronize());
  CHECK(bitwise_equal(x, z));
  CHECK_HAS(user_error([&] { k[{.block_dim = 65}](x, z); }), "kernel 'on_a5'", "block_dim 65 is out of range",
            "1..64 AIV cores of the 'a5' chip profile");
}

TEST_CASE("tile groups over the UB capacity fail at launch with the bytes needed, the capacity 196608 and each group") {
  int group_line = 0, small_line = 0;
  const auto k = pl::jit({.name = "too_big"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    small_line = __LINE__; auto s = pl::make_tile<pto::half>(pl::Vec, {100});
    group_line = __LINE__; auto g = pl::make_tile_group<float>(pl::Vec, {16384}, {0, 1, 2});
    pl::load(g.current(), x.slice(0, 64));
    pl::store(z.slice(0, 64), g.current());
    (void)s;
  });
  auto x = pto::Tensor<float>::random({64}, 1);
  auto z = pto::Tensor<float>::zeros({64});
  const std::string msg = user_error([&] { k[{.block_dim = 1}](x, z); });
  // 224 B (the half tile, padded) + 3 x 65536 B = 196832 B.
  CHECK_HAS(msg, "kernel 'too_big'", "tiles in Vec need 196832 B but the a2 profile gives 196608 B (224 B over)",
            "shrink the tiles or the group depth",
            "t0 1xf16[1x100] at error/" + PTO_AT(small_line) + ": 1 x 224 B = 224 B",
            "t1 3xf32[1x16384] at error/" + PTO_AT(group_line) + ": 3 x 65536 B = 196608 B");
  CHECK(bitwise_equal(z, pto::Tensor<float>::zeros({64})));
  check_runtime_usable();
}

TEST_CASE("a 2-D tile whose row pitch is not a multiple of 32 bytes fails at its load, with the pitch and a padding hint") {
  int load_line = 0;
  const auto k = pl::jit({.name = "bad_pitch"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {8, 10});  // 40 B rows
    load_line = __LINE__; pl::load(t, x.slice(0, 8, 0, 10));
    pl::store(z.slice(0, 8, 0, 10), t);
  });
  auto x = pto::Tensor<float>::random({8, 10}, 1);
  auto z = pto::Tensor<float>::zeros({8, 10});
  const std::string msg = user_error([&] { k[{.block_dim = 1}](x, z); });
  CHECK_HAS(msg, "kernel 'bad_pitch' (arg0:f32[8x10], arg1:f32[8x10])",
            "load moves rows of a 8x10 f32 tile whose row pitch is 40 B, not a multiple of the 32 B alignment of Vec",
            "pad the tile to 16 columns", "pipe: MTE2", "instruction: load t0[0] <- arg0[0 +: 8, 0 +: 10]", PTO_AT(load_line));
  check_runtime_usable();
}

TEST_CASE("a 1-D slice at a constant misaligned offset (x.slice(3, 8)) fails at launch, before anything runs") {
  int load_line = 0;
  const auto k = pl::jit({.name = "misaligned_const"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    load_line = __LINE__; pl::load(t, x.slice(3, 8));
    pl::store(z.slice(0, 8), t);
  });
  auto x = pto::Tensor<float>::random({64}, 1);
  auto z = pto::Tensor<float>::full({64}, 2.0f);
  const auto x0 = copy_of(x), z0 = copy_of(z);
  const std::string msg = user_error([&] { k[{.block_dim = 1}](x, z); });
  CHECK_HAS(msg, "kernel 'misaligned_const'", "load starts at column offset 3 (12 B), not aligned to 32 B", "pipe: MTE2",
            "instruction: load t0[0] <- arg0[0 +: 1, 3 +: 8]", PTO_AT(load_line));
  CHECK_NOTHROW(pto::synchronize());
  CHECK(bitwise_equal(x, x0));
  CHECK(bitwise_equal(z, z0));
  check_runtime_usable();
}

TEST_CASE("constant slices past the tensor or the tile fail at launch") {
  int line = 0;
  const auto past_tensor = pl::jit({.name = "past_tensor"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    line = __LINE__; pl::load(t, x.slice(32, 64));
    pl::store(z.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({64}, 1);
  auto z = pto::Tensor<float>::zeros({64});
  CHECK_HAS(user_error([&] { past_tensor[{}](x, z); }), "kernel 'past_tensor'",
            "load region [32, 96) is outside the tensor's 64 columns", PTO_AT(line));

  const auto past_tile = pl::jit({.name = "past_tile"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {32});
    line = __LINE__; pl::load(t, x.slice(0, 64));
    pl::store(z.slice(0, 32), t);
  });
  CHECK_HAS(user_error([&] { past_tile[{}](x, z); }), "kernel 'past_tile'", "load of 64 columns into a tile of 32 columns",
            PTO_AT(line));
  check_runtime_usable();
}

TEST_CASE("loading a 2-D slice into a 1-D tile fails at the load: ranks must match") {
  int line = 0;
  const auto k = pl::jit({.name = "rank_mismatch"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    line = __LINE__; pl::load(t, x.slice(0, 1, 0, 64));
    pl::store(z.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({1, 64}, 1);
  auto z = pto::Tensor<float>::zeros({64});
  CHECK_HAS(user_error([&] { k[{}](x, z); }), "kernel 'rank_mismatch'", "load of a 2-D slice into a 1-D tile; ranks must match",
            PTO_AT(line));
}

TEST_CASE("a view with another element count fails at the view") {
  int line = 0;
  const auto k = pl::jit({.name = "bad_view"}, [&](pl::Tensor<float> x) {
    line = __LINE__; auto v = x.view({7, 9});
    (void)v;
  });
  auto x = pto::Tensor<float>::zeros({64});
  CHECK_HAS(user_error([&] { k[{}](x); }), "kernel 'bad_view'", "view of 63 elements on a tensor of 64", PTO_AT(line));
}

TEST_CASE("`break` inside a pl::range body fails at launch, naming break and the loop's line") {
  int range_line = 0;
  const auto k = pl::jit({.name = "breaks"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    range_line = __LINE__; for (auto i : pl::range(4)) {
      pl::load(t, x.slice(i * 64, 64));
      break;  // NOLINT: the error under test
    }
    pl::store(z.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({256}, 1);
  auto z = pto::Tensor<float>::zeros({64});
  const std::string msg = user_error([&] { k[{}](x, z); });
  CHECK_HAS(msg, "kernel 'breaks'", "`break` or `return` inside a pl::range body", "leave the loop at run time with pl::if_(cond, [&] { pl::break_(); })",
            PTO_AT(range_line));
  check_runtime_usable();
}

TEST_CASE("`return` inside a pl::range body is reported like break") {
  int range_line = 0;
  const auto k = pl::jit({.name = "returns"}, [&](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    range_line = __LINE__; for (auto i : pl::range(2)) {
      pl::load(t, x.slice(i * 64, 64));
      return;
    }
  });
  auto x = pto::Tensor<float>::random({128}, 1);
  CHECK_HAS(user_error([&] { k[{}](x); }), "kernel 'returns'", "`break` or `return` inside a pl::range body", PTO_AT(range_line));
}

TEST_CASE("a constant pl::range step of zero fails while tracing") {
  int line = 0;
  const auto k = pl::jit({.name = "zero_step"}, [&](pl::Tensor<float> x) {
    line = __LINE__; for (auto i : pl::range(0, 4, 0)) {
      (void)i;
    }
    (void)x;
  });
  auto x = pto::Tensor<float>::zeros({8});
  CHECK_HAS(user_error([&] { k[{}](x); }), "kernel 'zero_step'", "pl::range needs a nonzero step, got 0", PTO_AT(line));
}

TEST_CASE("pl:: operations used outside a kernel are user errors naming the line") {
  int line = 0;
  CHECK_HAS(user_error([&] { line = __LINE__; (void)pl::get_block_idx(); }),
            "a pl:: operation was used outside a kernel: call it inside the lambda given to pl::jit", PTO_AT(line));
  CHECK_HAS(user_error([&] { line = __LINE__; (void)pl::get_block_num(); }), "used outside a kernel", PTO_AT(line));
  CHECK_HAS(user_error([&] { line = __LINE__; (void)pl::make_tile<float>(pl::Vec, {64}); }), "used outside a kernel", PTO_AT(line));
  CHECK_HAS(user_error([&] { line = __LINE__; pl::require(true, "fine"); }), "used outside a kernel", PTO_AT(line));
  CHECK_HAS(user_error([&] { line = __LINE__; pl::if_(pl::Bool(true), [] {}); }), "used outside a kernel", PTO_AT(line));
  CHECK_HAS(user_error([&] { line = __LINE__; for (auto i : pl::range(3)) (void)i; }), "used outside a kernel", PTO_AT(line));
  // A trace that failed leaves no trace context behind on this thread.
  int require_line = 0;
  const auto k = make_checked_add(require_line);
  auto a = pto::Tensor<float>::zeros({64});
  auto b = pto::Tensor<float>::zeros({65});
  (void)user_error([&] { k[{}](a, b, a); });
  CHECK_HAS(user_error([&] { line = __LINE__; (void)pl::get_block_idx(); }), "used outside a kernel", PTO_AT(line));
}

TEST_CASE("bad kernel options are rejected where the kernel is made") {
  int line = 0;
  const std::string msg = user_error([&] {
    line = __LINE__; const auto k = pl::jit({.name = "opt9", .opt_level = 9}, [](pl::Tensor<float> x) { (void)x; });
  });
  CHECK_HAS(msg, "kernel 'opt9'", "opt_level must be 0..3, got 9", PTO_AT(line));
  const std::string chip_msg = user_error([] {
    const auto k = pl::jit({.name = "no_chip", .chip = "zz_no_chip"}, [](pl::Tensor<float> x) { (void)x; });
  });
  CHECK_HAS(chip_msg, "unknown chip 'zz_no_chip'", "not a built-in profile (a2, a5) nor a readable JSON file");
}

TEST_CASE("host tensors reject non-positive dimensions, more than 5 dimensions and value lists of the wrong size") {
  CHECK_HAS(user_error([] { (void)pto::Tensor<float>::zeros({4, 0}); }), "tensor dimensions must be positive, got 0");
  CHECK_HAS(user_error([] { (void)pto::Tensor<float>::zeros({2, 2, 2, 2, 2, 2}); }), "tensors have 1 to 5 dimensions, got 6");
  CHECK_HAS(user_error([] { (void)pto::Tensor<float>::zeros({}); }), "tensors have 1 to 5 dimensions, got 0");
  CHECK_HAS(user_error([] { (void)pto::Tensor<int32_t>::from({3}, {1, 2}); }), "Tensor::from: 2 values for a shape of 3 elements");
}

}  // namespace pto::error_test

namespace pto::error_test {

TEST_CASE("an empty (default-constructed) host tensor argument is rejected by the launch call") {
  const auto k = pl::jit({.name = "takes_two"}, [](pl::Tensor<float> x, pl::Tensor<float> z) { (void)x, (void)z; });
  pto::Tensor<float> empty;
  auto x = pto::Tensor<float>::zeros({8});
  CHECK_HAS(user_error([&] { k[{}](x, empty); }), "argument 1 is an empty (default-constructed) tensor");
  CHECK_HAS(user_error([&] { k[{}](empty, x); }), "argument 0 is an empty (default-constructed) tensor");
  CHECK_NOTHROW(pto::synchronize());
}

TEST_CASE("the empty-tensor error names the kernel and the launch line") {
  const auto k = pl::jit({.name = "takes_two"}, [](pl::Tensor<float> x, pl::Tensor<float> z) { (void)x, (void)z; });
  pto::Tensor<float> empty;
  auto x = pto::Tensor<float>::zeros({8});
  int line = 0;
  CHECK_HAS(user_error([&] { line = __LINE__; k[{}](x, empty); }), "kernel 'takes_two'", PTO_AT(line));
}

}  // namespace pto::error_test

namespace pto::error_test {

TEST_CASE("PyPTO Pro forms misused fail at launch with the line: offsets of the wrong count, an expand operand of the wrong "
          "shape, a reduction over columns, a partial op in place or over tiles of different shapes") {
  struct Case {
    int which;
    const char* want;
  };
  for (const Case c : {Case{0, "load with 1 offsets on a 2-D tensor: give one offset per dimension"},
                       Case{1, "expand_sub with dim 0 broadcasts a [16, 1] tile along each row of a [16, 32] one; got a [1, 32] tile"},
                       Case{2, "sum with dim 2: dim is 0 (each row into a [rows, 1] tile) or 1 (each column into a [1, cols] tile)"},
                       Case{3, "partadd(out, src0, src1) with out the same tile as an operand: out is written in two steps"},
                       Case{4, "partmax takes out, src0 and src1 of one shape; got [16, 32], [16, 32] and [1, 32]"}}) {
    CAPTURE(c.want);
    int line = 0;
    const auto k = pl::jit({.name = "bad_pypto_form"}, [&](pl::Tensor<float> x, pl::Tensor<float> y) {
      auto t = pl::make_tile<float>(pl::Vec, {16, 32});
      auto row = pl::make_tile<float>(pl::Vec, {1, 32});
      auto col = pl::make_tile<float>(pl::Vec, {16, 1});
      auto t2 = pl::make_tile<float>(pl::Vec, {16, 32});
      switch (c.which) {
        case 0: line = __LINE__; pl::load(t, x, {0}); break;
        case 1: pl::load(t, x, {0, 0}); line = __LINE__; pl::expand_sub(t, t, row); break;
        case 2: pl::load(t, x, {0, 0}); line = __LINE__; pl::sum(col, t, t, 2); break;
        case 3: pl::load(t, x, {0, 0}); pl::load(t2, x, {0, 0}); line = __LINE__; pl::partadd(t, t, t2); break;
        default: pl::load(t, x, {0, 0}); line = __LINE__; pl::partmax(t2, t, row); break;
      }
      pl::store(y, t, {0, 0});
    });
    auto x = pto::Tensor<float>::random({16, 32}, 1), y = pto::Tensor<float>::zeros({16, 32});
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](x, y); }), "kernel 'bad_pypto_form'", c.want, PTO_AT(line));
  }
  check_runtime_usable();
}

}  // namespace pto::error_test

namespace pto::error_test {

TEST_CASE("pl::break_ / pl::continue_ outside a pl::range body fail at launch with the line") {
  for (bool brk : {true, false}) {
    int line = 0;
    const auto k = pl::jit({.name = "stray_break"}, [&](pl::Tensor<float> x) {
      line = __LINE__; brk ? pl::break_() : pl::continue_();
      (void)x;
    });
    auto x = pto::Tensor<float>::zeros({8});
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](x); }), "kernel 'stray_break'",
              brk ? "pl::break_() outside a pl::range body" : "pl::continue_() outside a pl::range body", PTO_AT(line));
  }
  check_runtime_usable();
}

}  // namespace pto::error_test

namespace pto::error_test {

TEST_CASE("an atomic-add store into an int8 tensor fails at launch: atomic adds work on f32, f16, bf16 and i32") {
  int line = 0;
  const auto k = pl::jit({.name = "atomic_int8"}, [&](pl::Tensor<int8_t> x, pl::Tensor<int8_t> y) {
    auto t = pl::make_tile<int8_t>(pl::Vec, {1, 64});
    pl::load(t, x, {0, 0});
    line = __LINE__; pl::store(y, t, {0, 0}, {.atomic = pl::AtomicType::AtomicAdd});
  });
  auto x = pto::Tensor<int8_t>::zeros({1, 64}), y = pto::Tensor<int8_t>::zeros({1, 64});
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}](x, y); }), "kernel 'atomic_int8'",
            "atomic-add store into a i8 tensor: atomic adds work on f32, f16, bf16 and i32", PTO_AT(line));
  check_runtime_usable();
}

}  // namespace pto::error_test

namespace pto::error_test {

TEST_CASE("a converting or scaled store from a Vec tile fails at launch: MTE3 neither converts nor scales (FIX does, out of Acc)") {
  int convert_line = 0, scale_line = 0;
  const auto convert = pl::jit({.name = "vec_convert_store"}, [&](pl::Tensor<float> x, pl::Tensor<half> y) {
    auto t = pl::make_tile<float>(pl::Vec, {1, 64});
    pl::load(t, x, {0, 0});
    convert_line = __LINE__; pl::store(y.slice(0, 1, 0, 64), t);
  });
  const auto scaled = pl::jit({.name = "vec_scaled_store"}, [&](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {1, 64});
    pl::load(t, x, {0, 0});
    scale_line = __LINE__; pl::store(y, t, {0, 0}, {.scale = 0.5});
  });
  auto x = pto::Tensor<float>::random({1, 64}, 3);
  auto yh = pto::Tensor<half>::full({1, 64}, half(2.0f));
  auto yf = pto::Tensor<float>::full({1, 64}, 2.0f);
  CHECK_HAS(user_error([&] { convert[{.block_dim = 1}].run_sync(x, yh); }), "kernel 'vec_convert_store'",
            "store of a f32 Vec tile into a f16 tensor: MTE3 does not convert; convert with pl::cast first", PTO_AT(convert_line));
  CHECK_HAS(user_error([&] { scaled[{.block_dim = 1}].run_sync(x, yf); }), "kernel 'vec_scaled_store'",
            "store with a scale from a Vec tile: quantisation is the fixpipe's", PTO_AT(scale_line));
  CHECK(yh[0] == half(2.0f));
  CHECK(yf[0] == 2.0f);
  check_runtime_usable();
}

}  // namespace pto::error_test

namespace pto::error_test {

TEST_CASE("a matmul bias that is not a [1, >= N] Mat tile fails at launch") {
  int line = 0;
  const auto k = pl::jit({.name = "narrow_bias"}, [&](pl::Tensor<float> a, pl::Tensor<float> c) {
    auto am = pl::make_tile<float>(pl::Mat, {16, 16});
    auto biasm = pl::make_tile<float>(pl::Mat, {1, 8});
    auto l = pl::make_tile<float>(pl::Left, {16, 16});
    auto r = pl::make_tile<float>(pl::Right, {16, 16});
    auto acc = pl::make_tile<float>(pl::Acc, {16, 16});
    pl::load(am, a, {0, 0});
    pl::load(biasm, a, {0, 0});
    pl::move(l, am);
    pl::move(r, am);
    line = __LINE__; pl::matmul(acc, l, r, biasm);
    pl::store(c, acc, {0, 0});
  });
  auto a = pto::Tensor<float>::random({16, 16}, 4);
  auto c = pto::Tensor<float>::full({16, 16}, 3.0f);
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}].run_sync(a, c); }), "kernel 'narrow_bias'",
            "matmul bias: a [1, 16] (or wider) Mat tile, got a 1x8 Mat tile", PTO_AT(line));
  CHECK(c[0] == 3.0f);
  check_runtime_usable();
}

}  // namespace pto::error_test
