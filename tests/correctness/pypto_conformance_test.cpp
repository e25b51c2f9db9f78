// PyPTO Pro idioms that must mean here what they mean in PyPTO Pro, each run as PyPTO Pro code
// writes it and checked against plain C++.
#include "common.hpp"

namespace pto::correctness {
namespace {

constexpr int64_t kTile = 256;

/// A mix kernel whose vector section adds x + y in tiles shared among every AIV of the launch,
/// numbered the PyPTO Pro way (hicann/pypto vector-add tutorial):
///   range(get_block_idx() * get_subblock_num() + get_subblock_idx(), n_tiles, get_block_num() * get_subblock_num())
/// The cube section is empty work: it only makes the kernel a mix kernel. Each AIV also records
/// what get_block_idx / get_block_num / get_subblock_idx return, in its row of `ids`.
auto make_mix_vector_add(const std::string& chip) {
  return pl::jit({.name = "pypto_mix_vadd_" + chip, .auto_mutex = true, .chip = chip, .mode = pto::ir::KernelMode::Mix},
                 [](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z, pl::Tensor<float> zero8, pl::Tensor<float> ids) {
    const int64_t n = x.numel();
    pl::section_cube([&] {});
    pl::section_vector([&] {
      auto xs = pl::make_tile<float>(pl::Vec, {kTile});
      auto ys = pl::make_tile<float>(pl::Vec, {kTile});
      auto zs = pl::make_tile<float>(pl::Vec, {kTile});
      auto first = pl::get_block_idx() * pl::get_subblock_num() + pl::get_subblock_idx();
      auto stride = pl::get_block_num() * pl::get_subblock_num();
      for (auto t : pl::range(first, pl::ceil_div(n, kTile), stride)) {
        auto off = t * kTile;
        auto len = pl::min(kTile, n - off);
        pl::load(xs, x.slice(off, len));
        pl::load(ys, y.slice(off, len));
        zs = xs + ys;
        pl::store(z.slice(off, len), zs);
      }
      auto id = pl::make_tile<float>(pl::Vec, {1, 8});
      const pl::Int values[3] = {pl::get_block_idx(), pl::get_block_num(), pl::get_subblock_idx()};
      for (int v = 0; v < 3; ++v) {
        pl::load(id, zero8.slice(0, 1, 0, 8));
        id = id + values[v];
        pl::store(ids.slice(first, 1, v * 8, 8), id);
      }
    });
  });
}

}  // namespace

TEST_CASE("get_block_idx/get_block_num in a mix vector section are the block and block_dim, as in PyPTO Pro: "
          "the PyPTO Pro tile loop writes every element") {
  for (const std::string chip : {"a2", "a5"}) {
    for (int block_dim : {1, 3, 8}) {
      CAPTURE(chip);
      CAPTURE(block_dim);
      const int64_t n = 40000;  // 157 tiles, the last one a tail
      auto x = Tensor<float>::random({n}, 7), y = Tensor<float>::random({n}, 8);
      auto z = Tensor<float>::full({n}, -12345.0f);
      auto zero8 = Tensor<float>::zeros({1, 8});
      auto ids = Tensor<float>::full({2 * block_dim, 24}, -1.0f);
      auto k = make_mix_vector_add(chip);
      k[{.block_dim = block_dim}](x, y, z, zero8, ids);
      pto::synchronize();
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) wrong += z[i] != x[i] + y[i];
      CHECK(wrong == 0);
      for (int64_t v = 0; v < 2 * block_dim; ++v) {
        CAPTURE(v);
        CHECK(ids[v * 24 + 0] == static_cast<float>(v / 2));   // get_block_idx: the block
        CHECK(ids[v * 24 + 8] == static_cast<float>(block_dim));  // get_block_num: block_dim
        CHECK(ids[v * 24 + 16] == static_cast<float>(v % 2));  // get_subblock_idx
      }
    }
  }
}

TEST_CASE("auto_mutex is on by default, as in PyPTO Pro: a double-buffered kernel written without the option is race-free") {
  // The PyPTO Pro shape of a double-buffered elementwise kernel: tile groups of depth 2 and
  // `t = g.next()` per step, no flags, no JitOptions.
  const auto k = pl::jit({.name = "pypto_double_buffer"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    const int64_t n = x.numel();
    auto xs = pl::make_tile_group<float>(pl::Vec, {kTile}, {0, 1});
    auto zs = pl::make_tile_group<float>(pl::Vec, {kTile}, {0, 1});
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      auto off = t * kTile;
      auto len = pl::min(kTile, n - off);
      auto xt = xs.next();
      auto zt = zs.next();
      pl::load(xt, x.slice(off, len));
      zt = xt * 3.0f + 1.0f;
      pl::store(z.slice(off, len), zt);
    }
  });
  const int64_t n = 10000;
  auto x = Tensor<float>::random({n}, 3);
  auto z = Tensor<float>::zeros({n});
  const LaunchProfile p = k[{.block_dim = 4}].run_sync(x, z);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += z[i] != x[i] * 3.0f + 1.0f;
  CHECK(wrong == 0);
  INFO("first race: " << (p.races.empty() ? std::string("-") : p.races.front().message()));
  CHECK(p.races.empty());
}

TEST_CASE("a tile group's cursor starts on its last slot and next() returns the next tile, as in PyPTO Pro") {
  // Depth 3. Before any next(), current() is slot 2; step i loads tile i of x into g.next(),
  // which is slot i % 3. After the loop, slot s (by index) holds the last tile loaded into it.
  const auto k = pl::jit({.name = "pypto_cursor"}, [](pl::Tensor<float> x, pl::Tensor<float> out) {
    auto g = pl::make_tile_group<float>(pl::Vec, {1, 8}, {0, 1, 2});
    pl::load(g.current(), x.slice(0, 1, 0, 8));  // slot 2 := row 0
    for (auto i : pl::range(1, 5)) pl::load(g.next(), x.slice(i, 1, 0, 8));  // rows 1..4 into slots 0, 1, 2, 0
    for (int s = 0; s < 3; ++s) pl::store(out.slice(s, 1, 0, 8), g[s]);
    pl::store(out.slice(3, 1, 0, 8), g.current());  // the cursor: slot 0 (4 steps from slot 2)
  });
  auto x = Tensor<float>::random({5, 8}, 4);
  auto out = Tensor<float>::zeros({4, 8});
  k[{.block_dim = 1}].run_sync(x, out);
  const int64_t want_row[4] = {4, 2, 3, 4};  // slot 0: row 4 (after row 1), slot 1: row 2, slot 2: row 3 (after row 0)
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      CAPTURE(r);
      CHECK(out[r * 8 + c] == x[want_row[r] * 8 + c]);
    }
  }
}

}  // namespace pto::correctness
