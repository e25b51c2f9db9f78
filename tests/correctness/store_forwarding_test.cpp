// Store forwarding (pto/backend/StoreForwarding.hpp): which stores compute their tile expression
// straight into GM, and that results stay those of plain C++ whether a store is forwarded or not:
// tiles with tails on many cores, a store of part of the computed extent, a store shifted onto the
// region the expression reads, dynamic extents into tensors whose stores stream or not; and the
// stores that must still copy (a tile read again, a relu store, a debugging aid). An out-of-bounds
// forwarded store is in tests/error. The suite also runs on the interpreter, which always copies.
#include "common.hpp"

#include "pto/backend/LoadElision.hpp"
#include "pto/backend/StoreForwarding.hpp"
#include "../../samples/02_softmax/softmax.hpp"

namespace pto::correctness {
namespace {

template <class K, class... Args>
pto::backend::StoreForwarding forwarding_of(const K& k, int block_dim, const Args&... args) {
  return pto::backend::find_store_forwarding(k[{.block_dim = block_dim}].compile(args...)->ir);
}

constexpr int64_t R = 8, C = 64;  // the tiles of the 2-D kernels below

}  // namespace

TEST_CASE_TEMPLATE("forwarded stores: z = x * 2 - rowmax(x) over 2-D tiles with tails in both dimensions, on many cores", T, float, half,
                   int32_t) {
  constexpr int64_t rows = 37, cols = 200;
  const auto k = pl::jit({.name = "fwd_rowmax_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> z) {
    auto t = pl::make_tile<T>(pl::Vec, {R, C});
    auto red = pl::make_tile<T>(pl::Vec, {R, 1});
    auto out = pl::make_tile_group<T>(pl::Vec, {R, C}, {0, 1});
    const int64_t col_tiles = (cols + C - 1) / C, tiles = (rows + R - 1) / R * col_tiles;
    for (auto i : pl::range(pl::get_block_idx(), tiles, pl::get_block_num())) {
      auto r0 = i / col_tiles * R, c0 = i % col_tiles * C;
      auto nr = pl::min(R, rows - r0), nc = pl::min(C, cols - c0);
      pl::load(t, x.slice(r0, nr, c0, nc));
      pl::row_max(red, t);
      out.current() = t * 2 - red;
      pl::store(z.slice(r0, nr, c0, nc), out.current());
      out.next();
    }
  });
  auto x = pto::Tensor<T>::random({rows, cols}, 5, -100, 100);
  auto z = pto::Tensor<T>::full({rows, cols}, T(7));
  CHECK(forwarding_of(k, 5, x, z).stores.size() == 1);
  k[{.block_dim = 5}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t f) {
    const int64_t r = f / cols, c = f % cols, c0 = c / C * C, nc = std::min(C, cols - c0);
    auto m = widen(x[r * cols + c0]);
    for (int64_t j = 1; j < nc; ++j) m = std::max(m, widen(x[r * cols + c0 + j]));
    return narrow<T>(widen(x[f]) * 2 - m);  // x * 2 is exact in T
  });
}

TEST_CASE("a forwarded store of part of the computed extent writes that part only") {
  // The expression covers 8 x 64; the store takes 5 x 40 of it into the middle of a wider tensor.
  const auto k = pl::jit({.name = "fwd_part"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto out = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    out = t + 1;
    pl::store(z.slice(2, 5, 8, 40), out);
  });
  auto x = pto::Tensor<float>::random({R, C}, 3);
  auto z = pto::Tensor<float>::full({10, 72}, -9.f);
  CHECK(forwarding_of(k, 1, x, z).stores.size() == 1);
  k[{.block_dim = 1}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t f) {
    const int64_t r = f / 72, c = f % 72;
    const bool inside = r >= 2 && r < 7 && c >= 8 && c < 48;
    return inside ? static_cast<float>(x[(r - 2) * C + (c - 8)]) + 1 : -9.f;
  });
}

TEST_CASE("a forwarded store shifted one row onto the region its expression reads gives what the copy gives") {
  // x's rows 0..7 are read from GM (an elided load) and written, doubled, to rows 1..8 of x: row
  // 1 must be twice the old row 0, not twice a row already written.
  const auto k = pl::jit({.name = "fwd_shifted"}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto out = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    out = t * 2;
    pl::store(x.slice(1, R, 0, C), out);
  });
  auto x = pto::Tensor<float>::random({R + 1, C}, 4);
  const auto x0 = pto::test::copy_of(x);
  const auto ir = k[{.block_dim = 1}].compile(x)->ir;
  CHECK(pto::backend::find_load_elision(ir).loads.size() == 1);
  CHECK(forwarding_of(k, 1, x).stores.size() == 1);
  k[{.block_dim = 1}](x);
  pto::synchronize();
  check_all(x, [&](int64_t f) { return f < C ? x0[f] : x0[f - C] * 2; });
}

/// z = (x + 1) * 3 on a dynamic row count; with `through_ub` the sum goes into a tile first, so the
/// stored expression reads UB only, else it reads x's GM region (an elided load).
auto dynamic_kernel(bool through_ub) {
  return pl::jit({.name = through_ub ? "fwd_dyn_ub" : "fwd_dyn_gm"}, [through_ub](pl::Tensor<float, pl::DYNAMIC, pl::STATIC> x,
                                                                                 pl::Tensor<float, pl::DYNAMIC, pl::STATIC> z) {
    const pl::Int rows = x.extent(0);
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto u = pl::make_tile<float>(pl::Vec, {R, C});
    auto out = pl::make_tile<float>(pl::Vec, {R, C});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(rows, R), pl::get_block_num())) {
      auto nr = pl::min(R, rows - i * R);
      pl::load(t, x.slice(i * R, nr, 0, C));
      if (through_ub) {
        u = t + 1;
        out = u * 3;
      } else {
        out = (t + 1) * 3;
      }
      pl::store(z.slice(i * R, nr, 0, C), out);
    }
  });
}

TEST_CASE("forwarded stores with a dynamic row count, the expression reading GM or UB, into tensors that stream or not") {
  // A dynamic tensor's size decides at run time whether its stores stream past the host's caches
  // (then each row's whole lines are stored non-temporal; StoreForwarding.hpp).
  for (const bool through_ub : {true, false}) {
    const auto k = dynamic_kernel(through_ub);
    for (int64_t rows : {int64_t{1}, int64_t{13}, 4 * R, int64_t{(8 << 20) / (C * 4) + 5}}) {  // the last streams
      CAPTURE(through_ub);
      CAPTURE(rows);
      auto x = pto::Tensor<float>::random({rows, C}, 9, -50, 50);
      auto z = pto::Tensor<float>::zeros({rows, C});
      CHECK(forwarding_of(k, 3, x, z).stores.size() == 1);
      k[{.block_dim = 3}](x, z);
      pto::synchronize();
      check_all(z, [&](int64_t f) { return (static_cast<float>(x[f]) + 1) * 3; });
    }
  }
}

TEST_CASE_TEMPLATE("streaming forwarded stores: rows off the 64-byte lines, partial first and last lines, columns left alone", T, float, half,
                   int8_t) {
  // z is over kStreamingStoreBytes, so each row's whole 64-byte lines are stored non-temporal from
  // the registers and the columns before the first and after the last line plainly
  // (CodeGen::compute_rows). The rows' pitch is no multiple of 32 B, so they begin anywhere in a
  // line; three column tiles of TC columns start 32 B into each row, each stores TC - 3 of them,
  // and the columns between and around are never written.
  constexpr int64_t unit = 32 / static_cast<int64_t>(sizeof(T)), TR = 4, TC = 12 * unit, cols = unit + 3 * TC + 5;
  const int64_t rows = pto::kStreamingStoreBytes / (cols * static_cast<int64_t>(sizeof(T))) + 7;
  const auto k = pl::jit({.name = "fwd_stream_" + type_name<T>()}, [rows](pl::Tensor<T> x, pl::Tensor<T> z) {
    auto t = pl::make_tile<T>(pl::Vec, {TR, TC});
    auto out = pl::make_tile_group<T>(pl::Vec, {TR, TC}, {0, 1});
    const int64_t row_tiles = (rows + TR - 1) / TR;
    for (auto i : pl::range(pl::get_block_idx(), row_tiles * 3, pl::get_block_num())) {
      auto r0 = i / 3 * TR, c0 = unit + i % 3 * TC;
      auto nr = pl::min(TR, rows - r0);
      pl::load(t, x.slice(r0, nr, c0, TC - 3));
      out.current() = t * 2 + 1;
      pl::store(z.slice(r0, nr, c0, TC - 3), out.current());
      out.next();
    }
  });
  auto x = pto::Tensor<T>::random({rows, cols}, 31, -50, 50);
  auto z = pto::Tensor<T>::full({rows, cols}, T(7));
  REQUIRE(static_cast<int64_t>(z.bytes()) >= pto::kStreamingStoreBytes);
  CHECK(forwarding_of(k, 3, x, z).stores.size() == 1);
  k[{.block_dim = 3}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t f) {
    const int64_t c = f % cols - unit;
    if (c < 0 || c >= 3 * TC || c % TC >= TC - 3) return T(7);
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<uint8_t>(static_cast<int32_t>(x[f]) * 2 + 1));  // wraps
    } else {
      return narrow<T>(widen(x[f]) * 2 + 1);
    }
  });
}

TEST_CASE("a store is not forwarded when its tile is read again, when it applies relu, or when the kernel has a debugging aid") {
  // y is stored and then read by w's expression: y's store copies, w's is forwarded.
  const auto reread = pl::jit({.name = "fwd_reread"}, [](pl::Tensor<float> x, pl::Tensor<float> z1, pl::Tensor<float> z2) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto y = pl::make_tile<float>(pl::Vec, {R, C});
    auto w = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    y = t - 3;
    pl::store(z1.slice(0, R, 0, C), y);
    w = y * 2;
    pl::store(z2.slice(0, R, 0, C), w);
  });
  auto x = pto::Tensor<float>::random({R, C}, 21, -10, 10);
  auto z1 = pto::Tensor<float>::zeros({R, C}), z2 = pto::Tensor<float>::zeros({R, C});
  CHECK(forwarding_of(reread, 1, x, z1, z2).stores.size() == 1);
  reread[{.block_dim = 1}](x, z1, z2);
  pto::synchronize();
  check_all(z1, [&](int64_t f) { return static_cast<float>(x[f]) - 3; });
  check_all(z2, [&](int64_t f) { return (static_cast<float>(x[f]) - 3) * 2; });

  const auto relu = pl::jit({.name = "fwd_relu"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto y = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    y = t - 3;
    pl::store(z, y, {0, 0}, {.relu_pre_mode = pl::ReluPreMode::NormalRelu});
  });
  auto z = pto::Tensor<float>::zeros({R, C});
  CHECK(forwarding_of(relu, 1, x, z).stores.empty());
  relu[{.block_dim = 1}](x, z);
  pto::synchronize();
  check_all(z, [&](int64_t f) { return std::max(static_cast<float>(x[f]) - 3, 0.f); }, Tol{.zero_sign_free = true});

  const auto debug = pl::jit({.name = "fwd_printf"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto y = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    y = t - 3;
    pl::printf("block %d", pl::get_block_idx());
    pl::store(z.slice(0, R, 0, C), y);
  });
  CHECK(forwarding_of(debug, 1, x, z).stores.empty());
}

TEST_CASE_TEMPLATE("sample 02's softmax stores its last expression straight into GM, and matches the reference", T, float, half) {
  namespace sm = pto::samples::softmax;
  const auto k = sm::make_kernel<T>({});
  auto x = pto::Tensor<T>::random({301, 1000}, 17, -8, 8);
  auto y = pto::Tensor<T>::zeros({301, 1000}), want = pto::Tensor<T>::zeros({301, 1000});
  CHECK(forwarding_of(k, 6, x, y).stores.size() == 1);
  k[{.block_dim = 6}](x, y);
  pto::synchronize();
  sm::reference(x, want);
  int64_t bad = 0;
  for (int64_t f = 0; f < y.numel(); ++f) bad += std::abs(widen(y[f]) - widen(want[f])) > sm::tolerance<T>();
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("JitOptions::elide_copies = false: every load and store copies, and the results are the same bytes", T, float, half) {
  namespace sm = pto::samples::softmax;
  const auto with = sm::make_kernel<T>({});
  pto::JitOptions o = with.options();
  o.elide_copies = false;
  const auto without = with.with_options(o);
  auto x = pto::Tensor<T>::random({301, 1000}, 23, -8, 8);
  auto y1 = pto::Tensor<T>::zeros({301, 1000}), y0 = pto::Tensor<T>::zeros({301, 1000});
  const auto p1 = with[{.block_dim = 6}].run_sync(x, y1);
  const auto p0 = without[{.block_dim = 6}].run_sync(x, y0);
  CHECK(pto::test::bitwise_equal(y1, y0));
  CHECK(p1.device_us == p0.device_us);  // simulated time does not change
}

}  // namespace pto::correctness
