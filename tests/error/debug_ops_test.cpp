// Debugging aids: pl::printf, pl::pto_assert, pl::trap, pl::dump_data, and the instruction budget.
// Output is captured with pto::set_debug_sink and checked message by message: text, tags,
// deterministic order (simulated time, then core), and nothing lost when a launch fails.
#include "error_common.hpp"

#include <vector>

namespace {

using namespace pto::error_test;

/// Collects the debug messages of the launches run while it lives.
struct Captured {
  std::vector<pto::DebugMessage> messages;
  Captured() {
    pto::set_debug_sink([this](const pto::DebugMessage& m) { messages.push_back(m); });
  }
  ~Captured() { pto::set_debug_sink(nullptr); }
  std::vector<std::string> texts() const {
    std::vector<std::string> out;
    for (const auto& m : messages) out.push_back(m.text);
    return out;
  }
};

TEST_CASE("printf formats its arguments and tags each message with kernel, block, core and simulated time") {
  int line = 0;
  const auto k = pl::jit({.name = "hello"}, [&](pl::Tensor<float> x, pl::Int n) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    line = __LINE__; pl::printf("block %d of %lld, n = {} (0x%x)", pl::get_block_idx(), pl::get_block_num(), n, n);
  });
  auto x = pto::Tensor<float>::random({64});
  Captured cap;
  k[{.block_dim = 3}](x, int64_t{255});
  pto::synchronize();
  REQUIRE(cap.messages.size() == 3);
  for (int b = 0; b < 3; ++b) {
    const auto& m = cap.messages[b];
    CHECK(m.text == "block " + std::to_string(b) + " of 3, n = 255 (0xff)");
    CHECK(m.kernel == "hello");
    CHECK(m.block == b);
    CHECK(m.core_kind == "AIV");
    CHECK(m.kind == "printf");
    CHECK(m.loc.str().ends_with(PTO_AT(line)));
    CHECK(m.time_us > 0);  // after the load was issued
    CHECK(m.str().starts_with("[hello block " + std::to_string(b) + " AIV " + std::to_string(b) + " @ "));
  }
}

TEST_CASE("debug output is ordered by simulated time, then core, whatever the host threads") {
  const auto k = pl::jit({.name = "order"}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {1024});
    // Block b loads b + 1 times before printing: later blocks print later in simulated time.
    for (auto i : pl::range(pl::get_block_idx() + 1)) {
      pl::load(t, x.slice(i * 0, 1024));
    }
    pl::printf("done %d", pl::get_block_idx());
  });
  auto x = pto::Tensor<float>::random({1024});
  std::vector<std::string> first;
  for (int threads : {1, 2}) {
    pto::set_host_threads(threads);
    Captured cap;
    k[{.block_dim = 6}](x);
    pto::synchronize();
    CHECK(cap.texts() == std::vector<std::string>{"done 0", "done 1", "done 2", "done 3", "done 4", "done 5"});
    for (size_t i = 1; i < cap.messages.size(); ++i) CHECK(cap.messages[i - 1].time_us < cap.messages[i].time_us);
  }
  pto::set_host_threads(0);
}

TEST_CASE("a bad printf format, a placeholder that does not fit its argument, or a wrong count is a trace-time error") {
  int line = 0;
  const auto bad_spec = pl::jit({.name = "bad_fmt"}, [&](pl::Tensor<float>) { line = __LINE__; pl::printf("x = %q", int64_t{1}); });
  auto x = pto::Tensor<float>::random({8});
  CHECK_HAS(user_error([&] { bad_spec[{}](x); }), "kernel 'bad_fmt'", "printf format \"x = %q\": unsupported conversion at \"%q\"",
            PTO_AT(line));
  const auto bad_kind = pl::jit({.name = "bad_kind"}, [&](pl::Tensor<float>) { line = __LINE__; pl::printf("x = %f", int64_t{1}); });
  CHECK_HAS(user_error([&] { bad_kind[{}](x); }),
            "printf format \"x = %f\": placeholder 1 (%f) takes a float but argument 1 is an integer", PTO_AT(line));
  const auto bad_count = pl::jit({.name = "bad_count"}, [&](pl::Tensor<float>) { line = __LINE__; pl::printf("%d and %d", int64_t{1}); });
  CHECK_HAS(user_error([&] { bad_count[{}](x); }), "printf format \"%d and %d\" has 2 placeholders but 1 arguments", PTO_AT(line));
  check_runtime_usable();
}

TEST_CASE("printf with %f/%e/%g of runtime and trace-time floats, widths and precisions, %p of a tensor, and {} of a float") {
  const auto k = pl::jit({.name = "floats"}, [](pl::Tensor<float> x, pl::Float eps, pl::Int n) {
    pl::printf("eps %f %.3e %g|%8.2f|%-6d|%05x|{}", eps, eps, 0.5, eps, n, n, eps);
    pl::printf("x at %p, %%, {{}}", x);
  });
  auto x = pto::Tensor<float>::random({8});
  Captured cap;
  k[{.block_dim = 1}](x, 1.25f, int64_t{42});
  pto::synchronize();
  REQUIRE(cap.messages.size() == 2);
  CHECK(cap.messages[0].text == "eps 1.250000 1.250e+00 0.5|    1.25|42    |0002a|1.25");
  char want[64];
  std::snprintf(want, sizeof want, "x at %#llx, %%, {}", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(x.data())));
  CHECK(cap.messages[1].text == want);
}

TEST_CASE("pto_assert logs a failed condition and goes on; fatal_assert makes it an error that keeps GM intact") {
  auto make = [](bool fatal) {
    return pl::jit({.name = fatal ? "assert_fatal" : "assert_log", .fatal_assert = fatal},
                   [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Int limit) {
      auto t = pl::make_tile<float>(pl::Vec, {64});
      pl::load(t, x.slice(0, 64));
      pl::pto_assert(pl::get_block_idx() < limit, "block %d is over the limit %d", pl::get_block_idx(), limit);
      t = t * 2.0f;
      pl::store(y.slice(pl::get_block_idx() * 64, 64), t);
    });
  };
  auto x = pto::Tensor<float>::random({64}, 2);
  auto y = pto::Tensor<float>::full({4 * 64}, -1.0f);
  {
    Captured cap;
    make(false)[{.block_dim = 4}](x, y, int64_t{2});
    pto::synchronize();
    REQUIRE(cap.messages.size() == 2);
    CHECK(cap.messages[0].text.find("assertion failed at") != std::string::npos);
    CHECK(cap.messages[0].text.ends_with("block 2 is over the limit 2"));
    CHECK(cap.messages[1].text.ends_with("block 3 is over the limit 2"));
    for (int64_t i = 0; i < 4 * 64; ++i) CHECK(y[i] == 2.0f * x[i % 64]);  // every block went on
  }
  auto y2 = pto::Tensor<float>::full({4 * 64}, -1.0f);
  const auto y0 = copy_of(y2);
  Captured cap;
  make(true)[{.block_dim = 1}](x, y2, int64_t{0});
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'assert_fatal'", "assertion failed (JitOptions::fatal_assert is on)",
            "core: AIV 0", "pipe: S");
  CHECK(cap.messages.size() == 1);  // the message was delivered before the error
  CHECK(bitwise_equal(y2, y0));         // the store after the assertion never ran
  check_runtime_usable();
}

TEST_CASE("trap stops the launch with an error naming the instruction; output before it is delivered") {
  int line = 0;
  const auto k = pl::jit({.name = "trapper"}, [&](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    pl::printf("before the trap");
    pl::if_(pl::get_block_idx() == 1, [&] {
      line = __LINE__; pl::trap();
    });
    pl::store(y.slice(pl::get_block_idx() * 64, 64), t);
  });
  auto x = pto::Tensor<float>::random({64});
  auto y = pto::Tensor<float>::full({128}, 7.0f);
  Captured cap;
  k[{.block_dim = 2}](x, y);
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'trapper'", "trap: the kernel called pl::trap()", "core: AIV 1",
            "instruction: #", "trap()", PTO_AT(line));
  REQUIRE(cap.messages.size() == 3);
  CHECK(cap.messages[0].text == "before the trap");
  CHECK(cap.messages[1].text == "before the trap");
  CHECK(cap.messages[2].text.starts_with("trap at "));
  CHECK(cap.messages[2].text.ends_with(PTO_AT(line)));
  CHECK(cap.messages[2].block == 1);
  for (int64_t i = 64; i < 128; ++i) CHECK(y[i] == 7.0f);  // block 1 stopped before its store
  check_runtime_usable();
}

TEST_CASE("dump_data prints a tile's valid region or a window of it") {
  const auto k = pl::jit({.name = "dump", .auto_mutex = true}, [](pl::Tensor<int32_t> x) {
    auto t = pl::make_tile<int32_t>(pl::Vec, {4, 8});
    pl::load(t, x.slice(0, 3, 0, 8));  // valid 3 x 8
    pl::dump_data(t);
    pl::dump_data(t, {1, 2}, {2, 3});
  });
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  auto x = pto::Tensor<int32_t>::from({3, 8}, v);
  Captured cap;
  const auto prof = k[{}].run_sync(x);
  CHECK(prof.races.empty());  // auto_mutex orders the dump (S) after the load (MTE2)
  REQUIRE(cap.messages.size() == 2);
  CHECK(cap.messages[0].text == "t0 (Vec 3x8 of 4x8 i32)\n  0 1 2 3 4 5 6 7\n  8 9 10 11 12 13 14 15\n  16 17 18 19 20 21 22 23");
  CHECK(cap.messages[1].text == "t0 (Vec 2x3 of 4x8 i32)\n  10 11 12\n  18 19 20");
}

TEST_CASE("a dump window outside the tile is an error") {
  const auto k = pl::jit({.name = "dump_oob"}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {4, 8});
    pl::load(t, x.slice(0, 4, 0, 8));
    pl::dump_data(t, {3, 0}, {2, 8});
  });
  auto x = pto::Tensor<float>::random({4, 8});
  k[{}](x);
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'dump_oob'", "dump_data of 5 rows into a tile of 4 rows");
  check_runtime_usable();
}

TEST_CASE("dump_data of a GM slice or a whole tensor prints it as the core sees it at that point; outside the tensor is an error") {
  const auto k = pl::jit({.name = "dump_gm", .auto_mutex = true}, [](pl::Tensor<int32_t> x, pl::Tensor<int32_t> y, pl::Tensor<float> z) {
    auto t = pl::make_tile<int32_t>(pl::Vec, {3, 8});
    pl::load(t, x.slice(0, 3, 0, 8));
    t = t * 10;
    pl::dump_data(y.slice(1, 2, 2, 3));  // before the store: y's initial values
    pl::store(y.slice(1, 3, 0, 8), t);
    pl::dump_data(y.slice(1, 2, 2, 3));  // after it
    pl::dump_data(z);
  });
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  auto x = pto::Tensor<int32_t>::from({3, 8}, v);
  auto y = pto::Tensor<int32_t>::full({4, 8}, -1);
  auto z = pto::Tensor<float>::from({3}, {0.5f, -2.0f, 8.0f});
  Captured cap;
  k[{}].run_sync(x, y, z);
  REQUIRE(cap.messages.size() == 3);
  CHECK(cap.messages[0].text == "arg1 (GM 2x3 of 4x8 i32)\n  -1 -1 -1\n  -1 -1 -1");
  CHECK(cap.messages[1].text == "arg1 (GM 2x3 of 4x8 i32)\n  20 30 40\n  100 110 120");
  CHECK(cap.messages[2].text == "arg2 (GM 1x3 of 1x3 f32)\n  0.5 -2 8");

  int line = 0;
  const auto oob = pl::jit({.name = "dump_gm_oob"}, [&](pl::Tensor<int32_t> y) { line = __LINE__; pl::dump_data(y.slice(3, 2, 0, 8)); });
  const std::string msg = user_error([&] { oob[{}].run_sync(y); });
  CHECK_HAS(msg, "kernel 'dump_gm_oob'", "out of bounds on tensor arg0", PTO_AT(line));
  check_runtime_usable();
}

TEST_CASE("a runaway kernel exhausts its instruction budget and stops with an error, not a hang") {
  int line = 0;
  const auto k = pl::jit({.name = "runaway", .instruction_budget = 1000}, [&](pl::Tensor<float> x, pl::Int n) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    line = __LINE__; for (auto i : pl::range(n)) {
      pl::load(t, x.slice(i * 0, 8));
    }
  });
  auto x = pto::Tensor<float>::random({8});
  k[{}](x, int64_t{1} << 62);
  CHECK_HAS(user_error([] { pto::synchronize(); }), "kernel 'runaway'", "instruction budget exceeded: the core ran more than 1000 instructions",
            "pipe: S", PTO_AT(line));
  k[{}](x, int64_t{10});  // 10 iterations x 2 instructions fit
  pto::synchronize();
  check_runtime_usable();
}

}  // namespace
