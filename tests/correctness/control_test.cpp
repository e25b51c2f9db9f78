// Control flow and data layout: pl::if_, nested pl::range, runtime pl::Int parameters and loop
// steps, Tensor::view, 2-D slices with column offsets, multi-slot tile groups, in-place tiles,
// large tensors, and launch ordering on streams.
#include "common.hpp"

namespace pto::correctness {
namespace {

uint64_t compiles() { return pto::runtime_stats().compiles; }

}  // namespace

TEST_CASE("pl::if_ with an else branch chooses per tile at run time") {
  constexpr int64_t tile = 256;
  const auto k = pl::jit({.name = "if_else"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    const int64_t n = x.numel();
    auto xs = pl::make_tile<float>(pl::Vec, {tile});
    auto zs = pl::make_tile<float>(pl::Vec, {tile});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, tile), pl::get_block_num())) {
      auto len = pl::min(tile, n - t * tile);
      pl::load(xs, x.slice(t * tile, len));
      pl::if_(t % 2 == 0, [&] { zs = xs * 2; }, [&] { zs = xs + 1; });
      pl::store(z.slice(t * tile, len), zs);
    }
  });
  for (int64_t n : {4099, 256 * 9}) {
    CAPTURE(n);
    auto x = test_data<float>({n}, 3, -8, 8);
    auto z = pto::Tensor<float>::zeros({n});
    k[{.block_dim = 4}](x, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return (i / tile) % 2 == 0 ? x[i] * 2.0f : x[i] + 1.0f; });
  }
}

TEST_CASE("pl::if_ without else skips whole tiles, leaving their output untouched") {
  constexpr int64_t tile = 128;
  const auto k = pl::jit({.name = "if_only"}, [](pl::Tensor<int32_t> x, pl::Tensor<int32_t> z) {
    const int64_t n = x.numel();
    auto xs = pl::make_tile<int32_t>(pl::Vec, {tile});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, tile), pl::get_block_num())) {
      pl::if_(t % 3 == 1 || t == 0, [&] {
        auto len = pl::min(tile, n - t * tile);
        pl::load(xs, x.slice(t * tile, len));
        xs = xs - 1;  // in place
        pl::store(z.slice(t * tile, len), xs);
      });
    }
  });
  const int64_t n = 3000;
  auto x = test_data<int32_t>({n}, 4, -1000, 1000);
  auto z = pto::Tensor<int32_t>::full({n}, -5);
  k[{.block_dim = 7}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) {
    const int64_t t = i / tile;
    return t % 3 == 1 || t == 0 ? wrap_sub(x[i], 1) : -5;
  });
}

TEST_CASE("nested pl::range over row and column blocks with 2-D slices at column offsets; loop variables broadcast as scalars") {
  constexpr int64_t rt = 8, ct = 64;
  const auto k = pl::jit({.name = "nested"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    const int64_t rows = x.dim(0), cols = x.dim(1);
    auto xs = pl::make_tile<float>(pl::Vec, {rt, ct});
    auto zs = pl::make_tile<float>(pl::Vec, {rt, ct});
    for (auto rb : pl::range(pl::get_block_idx(), pl::ceil_div(rows, rt), pl::get_block_num())) {
      for (auto cb : pl::range(pl::ceil_div(cols, ct))) {
        auto r0 = rb * rt, c0 = cb * ct;
        auto nr = pl::min(rt, rows - r0), nc = pl::min(ct, cols - c0);
        pl::load(xs, x.slice(r0, nr, c0, nc));
        zs = xs * 2 + (rb * 1000 + cb);
        pl::store(z.slice(r0, nr, c0, nc), zs);
      }
    }
  });
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{50, 200}, {16, 128}, {3, 8}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto x = test_data<float>({rows, cols}, 5, -8, 8);
    auto z = pto::Tensor<float>::zeros({rows, cols});
    k[{.block_dim = 3}](x, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) {
      const int64_t r = i / cols, c = i % cols;
      const float p = x[i] * 2.0f;
      return p + static_cast<float>((r / rt) * 1000 + c / ct);
    });
  }
}

TEST_CASE_TEMPLATE("pl::Int kernel parameters take host int64_t values at run time without recompiling", T, float, int32_t, half) {
  constexpr int64_t tile = 512;
  const auto k = pl::jit({.name = "scalar_params"}, [](pl::Tensor<T> x, pl::Tensor<T> z, pl::Int scale, pl::Int start, pl::Int count) {
    auto xs = pl::make_tile<T>(pl::Vec, {tile});
    auto zs = pl::make_tile<T>(pl::Vec, {tile});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(count, tile), pl::get_block_num())) {
      auto off = start + t * tile;
      auto len = pl::min(tile, count - t * tile);
      pl::load(xs, x.slice(off, len));
      zs = xs * scale - start;
      pl::store(z.slice(off, len), zs);
    }
  });
  const int64_t n = 5000;
  auto x = test_data<T>({n}, 6, -100, 100, false);
  struct Run {
    int64_t scale, start, count;
  };
  const uint64_t c0 = compiles();
  int run_index = 0;
  for (Run r : {Run{3, 16, 1000}, Run{-2, 800, 4200}, Run{1, 0, 5000}, Run{7, 4992, 8}, Run{5, 64, 0}}) {
    CAPTURE(r.scale);
    CAPTURE(r.start);
    CAPTURE(r.count);
    auto z = pto::Tensor<T>::full({n}, T(-3));
    k[{.block_dim = 5}](x, z, r.scale, r.start, r.count);
    pto::synchronize();
    check_all(z, [&](int64_t i) {
      if (i < r.start || i >= r.start + r.count) return T(-3);
      if constexpr (is_float_v<T>) {
        const float m = static_cast<float>(x[i]) * static_cast<float>(r.scale);
        return T(m - static_cast<float>(r.start));
      } else {
        return narrow<T>(wrap_sub(wrap_mul(widen(x[i]), static_cast<int32_t>(r.scale)), static_cast<int32_t>(r.start)));
      }
    });
    ++run_index;
  }
  CHECK(run_index == 5);
  CHECK(compiles() == c0 + 1);  // one specialisation for every scalar value
}

TEST_CASE("pl::range with a runtime step from a pl::Int parameter visits every step-th tile") {
  constexpr int64_t tile = 64;
  const auto k = pl::jit({.name = "runtime_step"}, [](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int step) {
    const int64_t n = x.numel();
    auto xs = pl::make_tile<float>(pl::Vec, {tile});
    for (auto t : pl::range(0, pl::ceil_div(n, tile), step)) {
      auto len = pl::min(tile, n - t * tile);
      pl::load(xs, x.slice(t * tile, len));
      pl::store(z.slice(t * tile, len), xs);
    }
  });
  const int64_t n = 1000;
  auto x = test_data<float>({n}, 7, -8, 8);
  for (int64_t step : {1, 2, 5, 100}) {
    CAPTURE(step);
    auto z = pto::Tensor<float>::full({n}, 42.0f);
    k[{.block_dim = 1}](x, z, step);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return (i / tile) % step == 0 ? x[i] : 42.0f; });
  }
}

TEST_CASE("pl::range(begin, end, step) visits what Python's range does, also with negative steps (PyPTO Pro code counts down)") {
  constexpr int64_t tile = 64, tiles = 16;
  const auto k = pl::jit({.name = "range_any_step"}, [](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int begin, pl::Int end,
                                                       pl::Int step) {
    auto xs = pl::make_tile<float>(pl::Vec, {tile});
    for (auto t : pl::range(begin, end, step)) {
      pl::load(xs, x.slice(t * tile, tile));
      pl::store(z.slice(t * tile, tile), xs);
    }
  });
  auto x = test_data<float>({tiles * tile}, 8, -8, 8);
  struct Case {
    int64_t begin, end, step;
  };
  for (const Case c : {Case{15, -1, -1}, Case{15, 0, -4}, Case{3, 9, 2}, Case{9, 3, 2}, Case{3, 9, -1}, Case{10, 10, -3}}) {
    CAPTURE(c.begin);
    CAPTURE(c.end);
    CAPTURE(c.step);
    std::vector<bool> visited(tiles, false);
    for (int64_t t = c.begin; c.step > 0 ? t < c.end : t > c.end; t += c.step) visited[static_cast<size_t>(t)] = true;
    auto z = pto::Tensor<float>::full({tiles * tile}, 42.0f);
    k[{.block_dim = 1}](x, z, c.begin, c.end, c.step);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return visited[static_cast<size_t>(i / tile)] ? x[i] : 42.0f; });
  }
}

TEST_CASE("pl::break_ and pl::continue_ leave the innermost pl::range at run time (PyPTO Pro's break / continue), also nested") {
  constexpr int64_t tile = 32, tiles = 12;
  // Outer loop over row blocks r; `stop` ends it; odd r are skipped. Inner loop over tiles t of
  // the row block: t == skip is skipped, t > r + 2 ends the inner loop only.
  const auto k = pl::jit({.name = "break_continue"}, [](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int stop, pl::Int skip) {
    auto xs = pl::make_tile<float>(pl::Vec, {1, tile});
    for (auto r : pl::range(0, 4)) {
      pl::if_(r == stop, [&] { pl::break_(); });
      pl::if_(r % 2 == 1, [&] { pl::continue_(); });
      for (auto t : pl::range(0, tiles)) {
        pl::if_(t == skip, [&] { pl::continue_(); });
        pl::if_(t > r + 2, [&] { pl::break_(); });
        pl::load(xs, x.slice(r, 1, t * tile, tile));
        pl::store(z.slice(r, 1, t * tile, tile), xs);
      }
    }
  });
  auto x = test_data<float>({4, tiles * tile}, 9, -8, 8);
  for (auto [stop, skip] : {std::pair<int64_t, int64_t>{9, 1}, {2, 0}, {0, 3}}) {
    CAPTURE(stop);
    CAPTURE(skip);
    auto z = pto::Tensor<float>::full({4, tiles * tile}, 42.0f);
    k[{.block_dim = 1}](x, z, stop, skip);
    pto::synchronize();
    check_all(z, [&](int64_t i) {
      const int64_t r = i / (tiles * tile), t = i % (tiles * tile) / tile;
      const bool copied = r < stop && r % 2 == 0 && t != skip && t <= r + 2;
      return copied ? x[i] : 42.0f;
    });
  }
}

TEST_CASE("Tensor::view reshapes 1-D to 2-D and 2-D to 1-D over the same memory") {
  SUBCASE("a 1-D tensor viewed as [rows, cols] is read by 2-D row blocks") {
    const auto k = pl::jit({.name = "view_1d_as_2d"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
      const int64_t rows = z.dim(0), cols = z.dim(1);
      const auto xv = x.view({rows, cols});
      CHECK(xv.rank() == 2);  // trace-time facts of the view
      CHECK(xv.dim(0) == rows);
      auto xs = pl::make_tile<float>(pl::Vec, {4, 24});
      for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, 4), pl::get_block_num())) {
        auto nr = pl::min(4, rows - t * 4);
        pl::load(xs, xv.slice(t * 4, nr, 0, cols));
        xs = xs + 1;
        pl::store(z.slice(t * 4, nr, 0, cols), xs);
      }
    });
    auto x = test_data<float>({13 * 21}, 8, -8, 8);
    auto z = pto::Tensor<float>::zeros({13, 21});
    k[{.block_dim = 2}](x, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return x[i] + 1.0f; });
  }
  SUBCASE("a 2-D tensor viewed as 1-D is read by 1-D tiles across row boundaries") {
    const auto k = pl::jit({.name = "view_2d_as_1d"}, [](pl::Tensor<half> x, pl::Tensor<half> z) {
      const int64_t n = x.numel();
      const auto xv = x.view({n});
      const auto zv = z.view({n});
      auto xs = pl::make_tile<half>(pl::Vec, {48});
      for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, 48), pl::get_block_num())) {
        auto len = pl::min(48, n - t * 48);
        pl::load(xs, xv.slice(t * 48, len));
        xs = -xs;
        pl::store(zv.slice(t * 48, len), xs);
      }
    });
    auto x = test_data<half>({17, 10}, 9, -8, 8);
    auto z = pto::Tensor<half>::zeros({17, 10});
    k[{.block_dim = 3}](x, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return half(-static_cast<float>(x[i])); });
  }
}

TEST_CASE_TEMPLATE("2-D slices with a column offset read and write a column band of each row", T, float, half, int8_t) {
  constexpr int64_t band = 2 * 32 / sizeof(T);  // two 32-byte blocks wide
  constexpr int64_t c0 = 32 / sizeof(T);        // starts one block into the row
  const auto k = pl::jit({.name = "column_band"}, [](pl::Tensor<T> x, pl::Tensor<T> z) {
    const int64_t rows = x.dim(0);
    auto xs = pl::make_tile<T>(pl::Vec, {5, band});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, 5), pl::get_block_num())) {
      auto nr = pl::min(5, rows - t * 5);
      pl::load(xs, x.slice(t * 5, nr, c0, band));
      xs = xs * 2;
      pl::store(z.slice(t * 5, nr, 2 * c0, band), xs);  // another column offset on the way out
    }
  });
  const int64_t rows = 23, cols = 5 * c0 + 3;  // an unaligned row pitch
  auto x = test_data<T>({rows, cols}, 10, -50, 50, false);
  auto z = pto::Tensor<T>::full({rows, cols}, T(9));
  k[{.block_dim = 4}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) {
    const int64_t r = i / cols, c = i % cols;
    if (c < 2 * c0 || c >= 2 * c0 + band) return T(9);
    const auto v = widen(x.at(r, c - c0));
    if constexpr (is_float_v<T>) return T(v * 2.0f);
    else return narrow<T>(wrap_mul(v, 2));
  });
}

TEST_CASE("tile groups of depth 1, 2 and 3 rotate their slots with next() and keep results right") {
  for (int depth : {1, 2, 3}) {
    CAPTURE(depth);
    const auto k = pl::jit({.name = "multi_slot"}, [depth](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
      const int64_t n = x.numel(), tile = 1000;
      std::vector<int> ids;
      for (int i = 0; i < depth; ++i) ids.push_back(i);
      auto xs = pl::make_tile_group<float>(pl::Vec, {tile}, ids);
      auto ys = pl::make_tile_group<float>(pl::Vec, {tile}, ids);
      auto zs = pl::make_tile_group<float>(pl::Vec, {tile}, ids);
      CHECK(xs.depth() == depth);
      for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, tile), pl::get_block_num())) {
        auto len = pl::min(tile, n - t * tile);
        pl::load(xs.current(), x.slice(t * tile, len));
        pl::load(ys.current(), y.slice(t * tile, len));
        zs.current() = xs.current() * ys.current() - xs.current();
        pl::store(z.slice(t * tile, len), zs.current());
        xs.next();
        ys.next();
        zs.next();
      }
    });
    auto x = test_data<float>({10007}, 11, -8, 8);
    auto y = test_data<float>({10007}, 12, -8, 8);
    auto z = pto::Tensor<float>::zeros({10007});
    k[{.block_dim = 2}](x, y, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { const float p = x[i] * y[i]; return p - x[i]; });
  }
}

TEST_CASE("previous() reads the slot filled before the last next(): z[i] = x[i] + x[i - tile]") {
  constexpr int64_t tile = 96;
  const auto k = pl::jit({.name = "previous_slot"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    const int64_t n = x.numel();
    auto xs = pl::make_tile_group<float>(pl::Vec, {tile}, {0, 1});
    auto zs = pl::make_tile<float>(pl::Vec, {tile});
    for (auto t : pl::range(0, pl::ceil_div(n, tile))) {
      auto len = pl::min(tile, n - t * tile);
      pl::load(xs.current(), x.slice(t * tile, len));
      pl::if_(t == 0, [&] { zs = xs.current(); }, [&] { zs = xs.current() + xs.previous(); });
      pl::store(z.slice(t * tile, len), zs);
      xs.next();
    }
  });
  const int64_t n = 1000;
  auto x = test_data<float>({n}, 13, -8, 8, false);
  auto z = pto::Tensor<float>::zeros({n});
  k[{.block_dim = 1}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) { return i < tile ? x[i] : x[i] + x[i - tile]; });
}

TEST_CASE("slots addressed by index with operator[] are independent tiles") {
  const auto k = pl::jit({.name = "slot_index"}, [](pl::Tensor<int32_t> x, pl::Tensor<int32_t> y, pl::Tensor<int32_t> z) {
    auto g = pl::make_tile_group<int32_t>(pl::Vec, {64}, {0, 1, 2});
    pl::load(g[0], x.slice(0, 64));
    pl::load(g[1], y.slice(0, 64));
    g[2] = g[0] * g[1];
    g[0] = g[2] - g[1];  // overwrites slot 0 only
    pl::store(z.slice(0, 64), g[0]);
  });
  auto x = test_data<int32_t>({64}, 14, -1000, 1000);
  auto y = test_data<int32_t>({64}, 15, -1000, 1000);
  auto z = pto::Tensor<int32_t>::zeros({64});
  k[{.block_dim = 1}](x, y, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) { return wrap_sub(wrap_mul(x[i], y[i]), y[i]); });
}

TEST_CASE("in-place updates and tile-to-tile copies") {
  const auto k = pl::jit({.name = "in_place"}, [](pl::Tensor<bfloat16> x, pl::Tensor<bfloat16> z) {
    const int64_t n = x.numel();
    auto a = pl::make_tile<bfloat16>(pl::Vec, {256});
    auto b = pl::make_tile<bfloat16>(pl::Vec, {256});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, 256), pl::get_block_num())) {
      auto len = pl::min(256, n - t * 256);
      pl::load(a, x.slice(t * 256, len));
      a = a * a + 1;  // reads and writes the same tile
      b = a;          // copy
      b = b - a * 0.5f;
      pl::store(z.slice(t * 256, len), b);
    }
  });
  auto x = test_data<bfloat16>({3001}, 16, -8, 8);
  auto z = pto::Tensor<bfloat16>::zeros({3001});
  k[{.block_dim = 4}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t i) {
    const float xf = x[i];
    const float sq = xf * xf;
    const bfloat16 a(sq + 1.0f);
    const float half_a = static_cast<float>(a) * 0.5f;
    return bfloat16(static_cast<float>(a) - half_a);
  });
}

TEST_CASE("tensors of 8 MiB and more (streamed stores) are written exactly, also with an unaligned row pitch") {
  SUBCASE("1-D, 2^21 + 3 floats") {
    const auto k = make_map_kernel<float, float>("big_1d", [](const Tile<float>& a, const Tile<float>& b) { return a * 2 - b; }, 8192);
    const int64_t n = (int64_t{1} << 21) + 3;
    auto x = pto::Tensor<float>::random({n}, 17);
    auto y = pto::Tensor<float>::random({n}, 18);
    auto z = pto::Tensor<float>::zeros({n});
    k[{.block_dim = 8}](x, y, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { const float p = x[i] * 2.0f; return p - y[i]; });
  }
  SUBCASE("2-D [2049, 1027] floats: rows start at every 4-byte offset modulo 16") {
    const auto k = pl::jit({.name = "big_2d"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
      const int64_t rows = x.dim(0), cols = x.dim(1);
      auto xs = pl::make_tile<float>(pl::Vec, {8, 1032});
      for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(rows, 8), pl::get_block_num())) {
        auto nr = pl::min(8, rows - t * 8);
        pl::load(xs, x.slice(t * 8, nr, 0, cols));
        xs = xs + 0.5f;
        pl::store(z.slice(t * 8, nr, 0, cols), xs);
      }
    });
    auto x = pto::Tensor<float>::random({2049, 1027}, 19);
    auto z = pto::Tensor<float>::zeros({2049, 1027});
    k[{.block_dim = 6}](x, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return x[i] + 0.5f; });
  }
}

TEST_CASE("launches queued on one stream run in order; user streams synchronise separately") {
  const auto scale = make_map_kernel<float, float>("chain_scale", [](const Tile<float>& a, const Tile<float>&) { return a * 3; });
  const auto add = make_map_kernel<float, float>("chain_add", [](const Tile<float>& a, const Tile<float>& b) { return a + b; });
  const int64_t n = 20000;
  auto x = test_data<float>({n}, 20, -8, 8, false);
  auto y = pto::Tensor<float>::zeros({n});
  auto z = pto::Tensor<float>::zeros({n});
  // y = 3x; z = y + x; y = 3z: each launch reads what the one before it wrote.
  for (pto::Stream* s : {static_cast<pto::Stream*>(nullptr), new pto::Stream()}) {
    scale[{.block_dim = 4, .stream = s}](x, x, y);
    add[{.block_dim = 4, .stream = s}](y, x, z);
    scale[{.block_dim = 4, .stream = s}](z, z, y);
    if (s) {
      s->synchronize();
    } else {
      pto::synchronize();
    }
    check_all(y, [&](int64_t i) {
      const float a = x[i] * 3.0f;
      const float b = a + x[i];
      return b * 3.0f;
    });
    delete s;
    std::fill(y.data(), y.data() + n, 0.0f);
  }
}

}  // namespace pto::correctness

namespace pto::correctness {

TEST_CASE("runtime pl::Int division and modulo follow C++ truncation; division by zero gives 0") {
  const auto k = pl::jit({.name = "scalar_div"}, [](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int a, pl::Int b) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    pl::load(t, x.slice(0, 8));
    t = t + (a / b) * 1000 + a % b;  // scalars broadcast to the tile
    pl::store(z.slice(0, 8), t);
  });
  auto x = pto::Tensor<float>::zeros({8});
  auto z = pto::Tensor<float>::zeros({8});
  struct Case {
    int64_t a, b, div, mod;
  };
  for (Case c : {Case{7, 2, 3, 1}, Case{-7, 2, -3, -1}, Case{7, -2, -3, 1}, Case{-7, -2, 3, -1}, Case{7, 0, 0, 0}, Case{0, 5, 0, 0}}) {
    CAPTURE(c.a);
    CAPTURE(c.b);
    k[{}](x, z, c.a, c.b);
    pto::synchronize();
    check_all(z, [&](int64_t) { return static_cast<float>(c.div * 1000 + c.mod); });
  }
}

TEST_CASE("runtime pl::Int division INT64_MIN / -1 wraps to INT64_MIN instead of trapping") {
  const auto k = pl::jit({.name = "scalar_div_overflow"}, [](pl::Tensor<float> x, pl::Tensor<float> z, pl::Int a, pl::Int b) {
    auto t = pl::make_tile<float>(pl::Vec, {8});
    pl::load(t, x.slice(0, 8));
    t = t + pl::min(a / b, 5) + a % b;
    pl::store(z.slice(0, 8), t);
  });
  auto x = pto::Tensor<float>::zeros({8});
  auto z = pto::Tensor<float>::zeros({8});
  k[{}](x, z, std::numeric_limits<int64_t>::min(), int64_t{-1});
  pto::synchronize();
  check_all(z, [](int64_t) { return static_cast<float>(std::numeric_limits<int64_t>::min()); });
}

}  // namespace pto::correctness
