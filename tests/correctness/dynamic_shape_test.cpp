// Dynamic dimensions (pl::Tensor<T, pl::DYNAMIC, ...>) against plain C++: one compiled kernel
// serves every extent, with tails in one or both dimensions and idle cores; static dimensions
// (declared or from the argument) stay in the key; getval/setval and tail reductions see
// the runtime extent; the simulated time equals the static kernel's for the same size; the race
// checker still finds overlapping writes.
#include <fmt/format.h>

#include "common.hpp"

namespace pto::correctness {
namespace {

/// Specialisations made in this process so far: compiled, interpreted or loaded from disk.
uint64_t specialisations() {
  const auto s = pto::runtime_stats();
  return s.compiles + s.disk_loads;
}

constexpr int64_t kTile = 256;

/// z = x * 2 + y over 1-D tensors of any length, in tiles of kTile with a tail.
template <class T, class Param>
auto axpy_body() {
  return [](Param x, Param y, Param z) {
    const pl::Int n = x.extent(0);
    auto xt = pl::make_tile<T>(pl::Vec, {kTile});
    auto yt = pl::make_tile<T>(pl::Vec, {kTile});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      const pl::Int len = pl::min(kTile, n - i * kTile);
      pl::load(xt, x.slice(i * kTile, len));
      pl::load(yt, y.slice(i * kTile, len));
      xt = xt * 2 + yt;
      pl::store(z.slice(i * kTile, len), xt);
    }
  };
}

}  // namespace

TEST_CASE_TEMPLATE("a 1-D pl::DYNAMIC tensor: one compiled kernel serves every length, with tails and idle cores", T, float, half,
                   int32_t) {
  const auto k = pl::jit({.name = "dyn_axpy_" + type_name<T>()}, axpy_body<T, pl::Tensor<T, pl::DYNAMIC>>());
  const uint64_t before = specialisations();
  for (int64_t n : {int64_t{1}, int64_t{37}, kTile, int64_t{1000}, 16 * kTile + 13}) {
    CAPTURE(n);
    auto x = pto::Tensor<T>::random({n}, 3, -8, 8);
    auto y = pto::Tensor<T>::random({n}, 4, -8, 8);
    auto z = pto::Tensor<T>::full({n}, T(9));
    k[{.block_dim = 8}](x, y, z);
    pto::synchronize();
    check_all(z, [&](int64_t i) { return narrow<T>(widen(narrow<T>(widen(x[i]) * 2)) + widen(y[i])); });
    const auto ck = k[{.block_dim = 8}].compile(x, y, z);
    CHECK(ck->ir.specialization == fmt::format("arg0:{0}[?], arg1:{0}[?], arg2:{0}[?]", type_name<T>()));
  }
  CHECK(specialisations() == before + 1);
}

TEST_CASE("2-D: dynamic rows with declared or argument-given static columns; the static extent stays in the key") {
  constexpr int64_t kRows = 8, kCols = 64;
  // y = x - (row maximum of x), rows in blocks of kRows with a tail block.
  auto body = [](auto x, auto y) {
    const pl::Int rows = x.extent(0);
    auto xt = pl::make_tile<float>(pl::Vec, {kRows, x.dim(1)});  // a static extent is a C++ number
    auto mt = pl::make_tile<float>(pl::Vec, {kRows, 1});
    for (auto b : pl::range(pl::get_block_idx(), pl::ceil_div(rows, kRows), pl::get_block_num())) {
      const pl::Int len = pl::min(kRows, rows - b * kRows);
      pl::load(xt, x.slice(b * kRows, len, 0, x.dim(1)));
      pl::row_max(mt, xt);
      xt = xt - mt;
      pl::store(y.slice(b * kRows, len, 0, x.dim(1)), xt);
    }
  };
  const auto declared = pl::jit({.name = "dyn_rows_declared"}, [&](pl::Tensor<float, pl::DYNAMIC, kCols> x,
                                                                  pl::Tensor<float, pl::DYNAMIC, kCols> y) { body(x, y); });
  const auto given = pl::jit({.name = "dyn_rows_given"}, [&](pl::Tensor<float, pl::DYNAMIC, pl::STATIC> x,
                                                            pl::Tensor<float, pl::DYNAMIC, pl::STATIC> y) { body(x, y); });
  const uint64_t before = specialisations();
  for (int64_t rows : {1, 7, 16, 45}) {
    CAPTURE(rows);
    auto x = pto::Tensor<float>::random({rows, kCols}, static_cast<uint64_t>(rows), -5, 5);
    for (const bool use_declared : {true, false}) {
      auto y = pto::Tensor<float>::full({rows, kCols}, 3.0f);
      if (use_declared) {
        declared[{.block_dim = 3}](x, y);
      } else {
        given[{.block_dim = 3}](x, y);
      }
      pto::synchronize();
      check_all(y, [&](int64_t i) {
        const int64_t r = i / kCols;
        float m = x.at(r, 0);
        for (int64_t c = 1; c < kCols; ++c) m = std::max(m, x.at(r, c));
        return x[i] - m;
      });
    }
  }
  CHECK(specialisations() == before + 2);  // one kernel each for every row count
  // A STATIC dimension taken from the argument is part of the key: other columns, another kernel.
  auto x = pto::Tensor<float>::random({5, 2 * kCols}, 2);
  auto y = pto::Tensor<float>::zeros({5, 2 * kCols});
  CHECK(given[{.block_dim = 1}].compile(x, y)->ir.specialization == "arg0:f32[?x128], arg1:f32[?x128]");
  CHECK(specialisations() == before + 3);
}

TEST_CASE_TEMPLATE("both dimensions dynamic: 2-D windows with tails in rows and columns; the row pitch is the launch's", T, float,
                   bfloat16) {
  constexpr int64_t kRows = 4, kCols = 32;
  const auto k = pl::jit({.name = "dyn_both_" + type_name<T>()}, [](pl::Tensor<T, pl::DYNAMIC, pl::DYNAMIC> x,
                                                                    pl::Tensor<T, pl::DYNAMIC, pl::DYNAMIC> y) {
    const pl::Int rows = x.extent(0), cols = x.extent(1);
    const pl::Int col_tiles = pl::ceil_div(cols, kCols);
    auto t = pl::make_tile<T>(pl::Vec, {kRows, kCols});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(rows, kRows) * col_tiles, pl::get_block_num())) {
      const pl::Int r = (i / col_tiles) * kRows, c = (i % col_tiles) * kCols;
      const pl::Int h = pl::min(kRows, rows - r), w = pl::min(kCols, cols - c);
      pl::load(t, x.slice(r, h, c, w));
      t = pl::abs(t) + 1;
      pl::store(y.slice(r, h, c, w), t);
    }
  });
  const uint64_t before = specialisations();
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {5, 70}, {8, 64}, {17, 130}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto x = pto::Tensor<T>::random({rows, cols}, static_cast<uint64_t>(rows * cols), -3, 3);
    auto y = pto::Tensor<T>::full({rows, cols}, T(-7.0f));
    k[{.block_dim = 4}](x, y);
    pto::synchronize();
    check_all(y, [&](int64_t i) { return narrow<T>(std::fabs(widen(x[i])) + 1); });
  }
  CHECK(specialisations() == before + 1);
}

TEST_CASE("getval / setval on a dynamic tensor: the runtime length bounds the offset; a static tensor beside it keeps its shape") {
  // out[0] = x[n - 1] + x[0] and out[1] = n, for any n.
  const auto k = pl::jit({.name = "dyn_elem"}, [](pl::Tensor<int32_t, pl::DYNAMIC> x, pl::Tensor<int32_t> out) {
    const pl::Int n = x.extent(0);
    pl::setval(out, 0, pl::getval(x, n - 1) + pl::getval(x, 0));
    pl::setval(out, 1, n);
  });
  const uint64_t before = specialisations();
  for (int64_t n : {1, 2, 999}) {
    auto x = pto::Tensor<int32_t>::random({n}, 7, -100, 100);
    auto out = pto::Tensor<int32_t>::zeros({2});
    k[{.block_dim = 1}](x, out);
    pto::synchronize();
    CHECK(out[0] == x[n - 1] + x[0]);
    CHECK(out[1] == n);
  }
  CHECK(specialisations() == before + 1);
}

TEST_CASE("a dynamic kernel's simulated time equals the static kernel's for the same size, and its profile counts the same bytes") {
  const auto dynamic = pl::jit({.name = "axpy_dynamic"}, axpy_body<float, pl::Tensor<float, pl::DYNAMIC>>());
  const auto fixed = pl::jit({.name = "axpy_static"}, axpy_body<float, pl::Tensor<float>>());
  for (int64_t n : {int64_t{1000}, 64 * kTile + 5}) {
    CAPTURE(n);
    auto x = pto::Tensor<float>::random({n}, 1);
    auto y = pto::Tensor<float>::random({n}, 2);
    auto z1 = pto::Tensor<float>::zeros({n});
    auto z2 = pto::Tensor<float>::zeros({n});
    const pto::LaunchProfile d = dynamic[{.block_dim = 8}].run_sync(x, y, z1);
    const pto::LaunchProfile s = fixed[{.block_dim = 8}].run_sync(x, y, z2);
    CHECK(bitwise_equal(z1, z2));
    CHECK(d.device_us == s.device_us);
    CHECK(d.gm_bytes == s.gm_bytes);
    CHECK(d.l2_hit_bytes == s.l2_hit_bytes);
  }
}

TEST_CASE("the race checker finds blocks writing overlapping windows of a dynamic tensor") {
  // Every block stores rows [b, b + 2) of a [rows, cols] tensor: neighbours overlap by a row.
  const auto k = pl::jit({.name = "dyn_overlap", .on_race = pto::OnRace::report},
                         [](pl::Tensor<float, pl::DYNAMIC, pl::DYNAMIC> x, pl::Tensor<float, pl::DYNAMIC, pl::DYNAMIC> y) {
                           auto t = pl::make_tile<float>(pl::Vec, {2, 64});
                           const pl::Int b = pl::get_block_idx();
                           pl::load(t, x.slice(b, 2, 0, x.extent(1)));
                           t = t + 1;
                           pl::store(y.slice(b, 2, 0, x.extent(1)), t);
                         });
  auto x = pto::Tensor<float>::random({5, 64}, 3);
  auto y = pto::Tensor<float>::zeros({5, 64});
  const pto::LaunchProfile p = k[{.block_dim = 4}].run_sync(x, y);
  REQUIRE_FALSE(p.races.empty());
  CHECK(p.races.front().between_blocks);
  CHECK(p.races.front().resource.find("arg1") != std::string::npos);
}

}  // namespace pto::correctness
