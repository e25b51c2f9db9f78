// User errors found while a kernel runs: reported by pto::synchronize() (or run_sync) with the
// kernel, the lowest failing core, the pipe, the instruction and the source line. Afterwards the
// runtime stays usable and tensors the failed launch did not write are intact.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("a 1-D slice at a runtime misaligned offset is reported by synchronize with core, pipe MTE2, instruction and line") {
  int load_line = 0;
  const auto k = pl::jit({.name = "misaligned_runtime"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int off) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    load_line = __LINE__; pl::load(t, x.slice(off, 8));
    pl::store(z.slice(0, 8), t);
  });
  auto x = pto::Tensor<float>::random({64}, 1);
  auto z = pto::Tensor<float>::full({64}, 3.0f);
  const auto x0 = copy_of(x), z0 = copy_of(z);
  CHECK_NOTHROW(k[{.block_dim = 1}](x, z, int64_t{3}));  // compiles fine: the offset is not known yet
  const std::string msg = user_error([] { pto::synchronize(); });
  CHECK_HAS(msg, "pto: kernel 'misaligned_runtime' (arg0:f32[64], arg1:f32[64])",
            "load misaligned: the region starts 12 B into its row, not a multiple of 32 B", "core: AIV 0", "pipe: MTE2",
            "instruction: #0 load t0[0] <- arg0[0 +: 1, arg2 +: 8]", "at: ", PTO_AT(load_line));
  CHECK(bitwise_equal(x, x0));
  CHECK(bitwise_equal(z, z0));  // the store after the failed load never ran
  CHECK_NOTHROW(pto::synchronize());  // reported once
  // The same specialisation with an aligned offset works.
  k[{.block_dim = 1}](x, z, int64_t{16});
  pto::synchronize();
  for (int64_t i = 0; i < 8; ++i) CHECK(z[i] == x[16 + i]);
  check_runtime_usable();
}

TEST_CASE("of many failing cores the lowest is reported, whatever the host thread timing") {
  int load_line = 0;
  const auto k = pl::jit({.name = "some_cores_fail"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    auto b = pl::get_block_idx();
    auto off = b * 16 + pl::min(b / 5, 1) * 3;  // cores 5 and up start 12 B off the 32 B grid
    load_line = __LINE__; pl::load(t, x.slice(off, 8));
    pl::store(z.slice(b * 16, 8), t);
  });
  auto x = pto::Tensor<float>::random({16 * 48 + 8}, 2);
  auto z = pto::Tensor<float>::zeros({16 * 48 + 8});
  const auto x0 = copy_of(x);
  for (int bd : {7, 48}) {
    CAPTURE(bd);
    std::fill(z.data(), z.data() + z.numel(), -1.0f);
    k[{.block_dim = bd}](x, z);
    const std::string msg = user_error([] { pto::synchronize(); });
    // Core 5 loads at element 5 * 16 + 3 = 83: 332 B into the (1-D) row.
    CHECK_HAS(msg, "kernel 'some_cores_fail'", "load misaligned: the region starts 332 B into its row, not a multiple of 32 B",
              "core: AIV 5", "pipe: MTE2", "instruction: #0 load t0[0] <- arg0[0 +: 1, ((block_idx * 16) + (min((block_idx / 5), 1) * 3)) +: 8]",
              PTO_AT(load_line));
    CHECK(msg.find("core: AIV 6") == std::string::npos);
    // Cores 0..4 completed; the failed cores wrote nothing.
    for (int64_t b = 0; b < bd; ++b) {
      for (int64_t i = 0; i < 8; ++i) {
        if (b < 5) {
          CHECK(z[b * 16 + i] == x[b * 16 + i]);
        } else {
          CHECK(z[b * 16 + i] == -1.0f);
        }
      }
    }
  }
  CHECK(bitwise_equal(x, x0));
  check_runtime_usable();
}

TEST_CASE("a failing core among cores interleaved on a host thread is reported; its neighbours run to their ends") {
  // A tensor past the host's cache makes the emulator interleave neighbouring cores (Interleave.hpp).
  int load_line = 0;
  const auto k = pl::jit({.name = "interleaved_cores_fail"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Tensor<float> big) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    auto u = pl::make_tile<float>(pl::Vec, {8});
    auto b = pl::get_block_idx();
    pl::load(u, big.slice(b * 8, 8));                        // a first run of loads: a yield point
    pl::store(big.slice(b * 8, 8), u);
    auto off = b * 16 + (pl::min(b / 5, 1) - pl::min(b / 6, 1)) * 3;  // core 5 alone starts 12 B off the 32 B grid
    load_line = __LINE__; pl::load(t, x.slice(off, 8));
    pl::store(z.slice(b * 16, 8), t);
  });
  auto x = pto::Tensor<float>::random({16 * 8 + 8}, 2);
  auto z = pto::Tensor<float>::full({16 * 8 + 8}, -1.0f);
  auto big = pto::Tensor<float>::random({(9 << 20) / 4}, 3);
  const auto before = pto::runtime_stats().interleaved;
  k[{.block_dim = 8}](x, z, big);
  const std::string msg = user_error([] { pto::synchronize(); });
  CHECK(pto::runtime_stats().interleaved == before + 1);
  CHECK_HAS(msg, "kernel 'interleaved_cores_fail'", "load misaligned", "core: AIV 5", "pipe: MTE2", PTO_AT(load_line));
  for (int64_t b = 0; b < 8; ++b) {
    for (int64_t i = 0; i < 8; ++i) CHECK(z[b * 16 + i] == (b == 5 ? -1.0f : x[b * 16 + i]));
  }
  check_runtime_usable();
}

TEST_CASE("an out-of-bounds slice at run time is reported with its range and the tensor's extent; the output is untouched") {
  int load_line = 0, store_line = 0;
  const auto k = pl::jit({.name = "oob"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int load_off, pl::Int store_off) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    load_line = __LINE__; pl::load(t, x.slice(load_off, 64));
    store_line = __LINE__; pl::store(z.slice(store_off, 64), t);
  });
  auto x = pto::Tensor<float>::random({4096}, 3);
  auto z = pto::Tensor<float>::full({4096}, 8.0f);
  const auto x0 = copy_of(x), z0 = copy_of(z);

  k[{.block_dim = 1}](x, z, int64_t{4064}, int64_t{0});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'oob'", "load out of bounds on tensor arg0: columns [4064, 4128) (offset 4064, length 64) outside the tensor's 4096 columns",
            "core: AIV 0", "pipe: MTE2", "instruction: #0 load", PTO_AT(load_line));
  CHECK(bitwise_equal(z, z0));

  k[{.block_dim = 1}](x, z, int64_t{0}, int64_t{4064});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'oob'", "store out of bounds on tensor arg1: columns [4064, 4128) (offset 4064, length 64) outside the tensor's 4096 columns",
            "pipe: MTE3", "instruction: #1 store arg1[0 +: 1, arg3 +: 64] <- t0[0]", PTO_AT(store_line));
  CHECK(bitwise_equal(z, z0));  // nothing of the failed store reached GM

  k[{.block_dim = 1}](x, z, int64_t{-64}, int64_t{0});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "load out of bounds on tensor arg0: columns [-64, 0) (offset -64, length 64)");
  CHECK(bitwise_equal(x, x0));
  CHECK(bitwise_equal(z, z0));

  k[{.block_dim = 1}](x, z, int64_t{64}, int64_t{4032});
  pto::synchronize();
  for (int64_t i = 0; i < 64; ++i) CHECK(z[4032 + i] == x[64 + i]);
  check_runtime_usable();
}

TEST_CASE("a 2-D row range out of bounds at run time names the rows") {
  int load_line = 0;
  const auto k = pl::jit({.name = "oob_rows"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int r0) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 16});
    load_line = __LINE__; pl::load(t, x.slice(r0, 4, 0, 16));
    pl::store(z.slice(0, 4, 0, 16), t);
  });
  auto x = pto::Tensor<float>::random({10, 16}, 4);
  auto z = pto::Tensor<float>::zeros({4, 16});
  k[{}](x, z, int64_t{8});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'oob_rows'", "load out of bounds on tensor arg0: rows [8, 12) (offset 8, length 4) outside the tensor's 10 rows",
            PTO_AT(load_line));
  check_runtime_usable();
}

TEST_CASE("run_sync throws a runtime failure directly, and nothing is left for synchronize") {
  int load_line = 0;
  const auto k = pl::jit({.name = "sync_fail"}, [&](pl::Tensor<half> x, pl::Tensor<half> z, pl::Int off) {
    auto t = pl::make_tile<half>(pl::Vec, {16});
    load_line = __LINE__; pl::load(t, x.slice(off, 16));
    pl::store(z.slice(0, 16), t);
  });
  auto x = pto::Tensor<half>::random({64}, 5);
  auto z = pto::Tensor<half>::zeros({64});
  CHECK_HAS(user_error([&] { k[{.block_dim = 1}].run_sync(x, z, int64_t{5}); }), "kernel 'sync_fail'",
            "load misaligned: the region starts 10 B into its row, not a multiple of 32 B", PTO_AT(load_line));
  CHECK_NOTHROW(pto::synchronize());
  CHECK_NOTHROW(k[{.block_dim = 1}].run_sync(x, z, int64_t{16}));
  for (int64_t i = 0; i < 16; ++i) CHECK(z[i].bits == x[16 + i].bits);
}

TEST_CASE("a failed launch does not stop later launches on its stream; the first failure is reported once") {
  int load_line = 0;
  const auto bad = pl::jit({.name = "queued_bad"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int off) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    load_line = __LINE__; pl::load(t, x.slice(off, 8));
    pl::store(z.slice(0, 8), t);
  });
  auto x = pto::Tensor<float>::random({1000}, 6);
  auto z = pto::Tensor<float>::zeros({1000});
  auto zb = pto::Tensor<float>::zeros({1000});
  pto::Stream stream;
  bad[{.block_dim = 1, .stream = &stream}](x, zb, int64_t{1});   // fails: 4 B
  bad[{.block_dim = 1, .stream = &stream}](x, zb, int64_t{2});   // fails too: 8 B
  good_kernel()[{.block_dim = 3, .stream = &stream}](x, z);       // runs
  CHECK_NOTHROW(pto::synchronize());                              // the default stream has no failure
  const std::string msg = user_error([&] { stream.synchronize(); });
  CHECK_HAS(msg, "kernel 'queued_bad'", "the region starts 4 B into its row", PTO_AT(load_line));
  CHECK(msg.find("8 B into") == std::string::npos);
  CHECK_NOTHROW(stream.synchronize());
  int wrong = 0;
  for (int64_t i = 0; i < 1000; ++i) wrong += z[i] != x[i] + 1.0f;
  CHECK(wrong == 0);
  CHECK(bitwise_equal(zb, pto::Tensor<float>::zeros({1000})));
}

TEST_CASE("an operand whose valid extent is smaller than the instruction's is reported at the vector instruction (pipe V)") {
  int vec_line = 0;
  const auto k = pl::jit({.name = "short_operand"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int n_short) {
    auto a = pl::make_tile<float>(pl::Vec, {64});
    auto b = pl::make_tile<float>(pl::Vec, {64});
    pl::load(a, x.slice(0, 64));
    pl::load(b, x.slice(0, n_short));
    vec_line = __LINE__; a = a + b;  // a has 64 valid elements, b fewer
    pl::store(z.slice(0, 64), a);
  });
  auto x = pto::Tensor<float>::random({64}, 7);
  auto z = pto::Tensor<float>::zeros({64});
  k[{}](x, z, int64_t{40});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'short_operand'",
            "an operand's valid extent (40 columns) is smaller than the instruction's (64 columns)", "pipe: V", "instruction: #2 vec",
            PTO_AT(vec_line));
  CHECK(bitwise_equal(z, pto::Tensor<float>::zeros({64})));
  k[{}](x, z, int64_t{64});
  CHECK_NOTHROW(pto::synchronize());
  CHECK(z[63] == x[63] + x[63]);
}

TEST_CASE("a partial op (partadd) whose operands are each partial along a different axis stops with the operand check; "
          "nothing is written") {
  int line = 0;
  const auto k = pl::jit({.name = "crossed_partadd"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto a = pl::make_tile<float>(pl::Vec, {16, 64});
    auto b = pl::make_tile<float>(pl::Vec, {16, 64});
    auto o = pl::make_tile<float>(pl::Vec, {16, 64});
    pl::set_validshape(a, 16, 32);  // fewer columns
    pl::load(a, x, {0, 0});
    pl::set_validshape(b, 8, 64);   // fewer rows
    pl::load(b, x, {0, 0});
    line = __LINE__; pl::partadd(o, a, b);
    pl::store(z, o, {0, 0});
  });
  auto x = pto::Tensor<float>::random({16, 64}, 7);
  auto z = pto::Tensor<float>::zeros({16, 64});
  k[{}](x, z);
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'crossed_partadd'", "an operand's valid extent (8 rows) is smaller than "
            "the instruction's (16 rows)", "pipe: V", PTO_AT(line));
  CHECK(bitwise_equal(z, pto::Tensor<float>::zeros({16, 64})));
  check_runtime_usable();
}

TEST_CASE("a column reduction into a {1, cols} tile narrower than the source's valid columns is reported at the reduction") {
  int line = 0;
  const auto k = pl::jit({.name = "narrow_col_sum"}, [&](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto a = pl::make_tile<float>(pl::Vec, {8, 64});
    auto s = pl::make_tile<float>(pl::Vec, {1, 16});
    pl::load(a, x, {0, 0});
    line = __LINE__; pl::col_sum(s, a);
    pl::store(z, s, {0, 0});
  });
  auto x = pto::Tensor<float>::random({8, 64}, 7);
  auto z = pto::Tensor<float>::zeros({1, 16});
  k[{}](x, z);
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'narrow_col_sum'", "64 columns", "pipe: V", PTO_AT(line));
  CHECK(bitwise_equal(z, pto::Tensor<float>::zeros({1, 16})));
  check_runtime_usable();
}

TEST_CASE("storing more elements than the tile holds valid is reported at the store") {
  int store_line = 0;
  const auto k = pl::jit({.name = "store_past_valid"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int n) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, n));
    store_line = __LINE__; pl::store(z.slice(0, 64), t);
  });
  auto x = pto::Tensor<float>::random({64}, 8);
  auto z = pto::Tensor<float>::full({64}, 1.5f);
  k[{}](x, z, int64_t{24});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'store_past_valid'",
            "store of 64 columns from a tile whose valid extent is 24 columns", "pipe: MTE3", PTO_AT(store_line));
  CHECK(bitwise_equal(z, pto::Tensor<float>::full({64}, 1.5f)));
}

TEST_CASE("a store that computes its expression straight into GM (store forwarding) and fails its checks writes nothing") {
  // out = t * 2 + 1 is computed by the store itself (pto/backend/StoreForwarding.hpp), after the
  // store's checks: a region out of bounds, or wider than the tile's valid extent, leaves z as it was.
  int store_line = 0;
  const auto k = pl::jit({.name = "forwarded_oob"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int r0, pl::Int n) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 16});
    auto out = pl::make_tile<float>(pl::Vec, {4, 16});
    pl::load(t, x.slice(0, 4, 0, n));
    out = t * 2 + 1;
    store_line = __LINE__; pl::store(z.slice(r0, 4, 0, 16), out);
  });
  auto x = pto::Tensor<float>::random({4, 16}, 6);
  auto z = pto::Tensor<float>::full({10, 16}, 2.5f);
  const auto z0 = copy_of(z);
  k[{}](x, z, int64_t{8}, int64_t{16});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'forwarded_oob'",
            "store out of bounds on tensor arg1: rows [8, 12) (offset 8, length 4) outside the tensor's 10 rows", "pipe: MTE3",
            PTO_AT(store_line));
  CHECK(bitwise_equal(z, z0));
  k[{}](x, z, int64_t{2}, int64_t{8});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'forwarded_oob'",
            "store of 16 columns from a tile whose valid extent is 8 columns", "pipe: MTE3", PTO_AT(store_line));
  CHECK(bitwise_equal(z, z0));
  k[{}](x, z, int64_t{6}, int64_t{16});
  pto::synchronize();
  for (int64_t i = 0; i < z.numel(); ++i) CHECK(z[i] == (i >= 6 * 16 ? static_cast<float>(x[i - 6 * 16]) * 2 + 1 : 2.5f));
  check_runtime_usable();
}

TEST_CASE("a check that fails inside a run of fused rows stops the core before the run computes, with the instruction's line") {
  // a = t + 1 and b = t + u are one run of row fusion (pto/backend/RowFusion.hpp); b's operands
  // have other row counts when n != m, which b's check finds before any row of the run is computed.
  int add_line = 0;
  const auto k = pl::jit({.name = "fused_rows_mismatch"}, [&](pl::Tensor<float, pl::DYNAMIC, pl::STATIC> x, pl::Tensor<float, pl::DYNAMIC, pl::STATIC> y,
                                                           pl::Tensor<float> za, pl::Tensor<float> zb) {
    const pl::Int n = x.extent(0), m = y.extent(0);
    auto t = pl::make_tile<float>(pl::Vec, {8, 16});
    auto u = pl::make_tile<float>(pl::Vec, {8, 16});
    auto a = pl::make_tile<float>(pl::Vec, {8, 16});
    auto b = pl::make_tile<float>(pl::Vec, {8, 16});
    pl::load(t, x.slice(0, n, 0, 16));
    pl::load(u, y.slice(0, m, 0, 16));
    a = t + 1;
    add_line = __LINE__; b = t + u;
    pl::store(za.slice(0, n, 0, 16), a);
    pl::store(zb.slice(0, n, 0, 16), b);
  });
  auto za = pto::Tensor<float>::full({8, 16}, 2.5f), zb = pto::Tensor<float>::full({8, 16}, 2.5f);
  const auto za0 = copy_of(za), zb0 = copy_of(zb);
  auto x = pto::Tensor<float>::random({6, 16}, 7), y = pto::Tensor<float>::random({5, 16}, 8);
  k[{}](x, y, za, zb);
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'fused_rows_mismatch'", "pipe: V", PTO_AT(add_line));
  CHECK(bitwise_equal(za, za0));
  CHECK(bitwise_equal(zb, zb0));
  auto y6 = pto::Tensor<float>::random({6, 16}, 9);
  k[{}](x, y6, za, zb);
  pto::synchronize();
  for (int64_t i = 0; i < za.numel(); ++i) {
    CHECK(za[i] == (i < 6 * 16 ? static_cast<float>(x[i]) + 1 : 2.5f));
    CHECK(zb[i] == (i < 6 * 16 ? static_cast<float>(x[i]) + static_cast<float>(y6[i]) : 2.5f));
  }
  check_runtime_usable();
}

TEST_CASE("a forwarded store that ends a run of fused rows and fails its checks writes nothing") {
  // row_sum(s, t) and the store of t - s are one run (pto/backend/RowFusion.hpp): the store's
  // checks come before any row is computed or written, so an out-of-bounds region leaves z intact.
  int store_line = 0;
  const auto k = pl::jit({.name = "fused_store_oob"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int r0) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 16});
    auto s = pl::make_tile<float>(pl::Vec, {4, 1});
    auto out = pl::make_tile<float>(pl::Vec, {4, 16});
    pl::load(t, x.slice(0, 4, 0, 16));
    pl::row_sum(s, t);
    out = t - s;
    store_line = __LINE__; pl::store(z.slice(r0, 4, 0, 16), out);
  });
  auto x = pto::Tensor<float>::random({4, 16}, 6);
  auto z = pto::Tensor<float>::full({10, 16}, 2.5f);
  const auto z0 = copy_of(z);
  k[{}](x, z, int64_t{8});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'fused_store_oob'",
            "store out of bounds on tensor arg1: rows [8, 12) (offset 8, length 4) outside the tensor's 10 rows", "pipe: MTE3",
            PTO_AT(store_line));
  CHECK(bitwise_equal(z, z0));
  k[{}](x, z, int64_t{6});
  pto::synchronize();
  for (int64_t r = 0; r < 10; ++r) {
    for (int64_t c = 0; c < 16; ++c) {
      if (r < 6) {
        CHECK(z[r * 16 + c] == 2.5f);
        continue;
      }
      float lanes[8] = {};
      for (int64_t j = 0; j < 16; ++j) lanes[j % 8] += static_cast<float>(x[(r - 6) * 16 + j]);
      const float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
      CHECK(z[r * 16 + c] == static_cast<float>(x[(r - 6) * 16 + c]) - sum);
    }
  }
  check_runtime_usable();
}

TEST_CASE("a pl::range step of zero at run time is reported, never an endless loop") {
  int range_line = 0;
  const auto k = pl::jit({.name = "runtime_zero_step"}, [&](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int step) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    range_line = __LINE__; for (auto i : pl::range(0, 4, step)) {
      pl::load(t, x.slice(i * 8, 8));
      pl::store(z.slice(i * 8, 8), t);
    }
  });
  auto x = pto::Tensor<float>::random({32}, 9);
  auto z = pto::Tensor<float>::zeros({32});
  for (int64_t step : {0}) {
    CAPTURE(step);
    k[{.block_dim = 2}](x, z, step);
    CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'runtime_zero_step'",
              "pl::range needs a nonzero step, got " + std::to_string(step) + " at run time", "core: AIV 0", "pipe: S",
              PTO_AT(range_line));
  }
  CHECK(bitwise_equal(z, pto::Tensor<float>::zeros({32})));
  k[{.block_dim = 2}](x, z, int64_t{1});
  CHECK_NOTHROW(pto::synchronize());
  CHECK(bitwise_equal(x, z));
}

}  // namespace pto::error_test
