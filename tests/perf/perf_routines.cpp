// Vector-routine benchmarks (label perf, not in the default test run): gather of f32 tiles by an
// index tile (a permutation inside each 64 x 128 tile), transpose, gathermask, sort32 and a whole
// row sort (sort32 + mrgsort) and fillpad of the same tiles,
// emulated on 8 blocks with timing and race checking on, against plain C++ TBB loops doing the same
// (ratios printed: native time / emulated time); and atomic-add stores against plain ones.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <pto/pto.hpp>

#include "RatioReporter.hpp"

namespace pl = pto::lang;

namespace {

constexpr int64_t kTileRows = 64, kTileCols = 128, kTiles = 64, kRows = kTiles * kTileRows;
constexpr int64_t kElems = kRows * kTileCols;

struct Inputs {
  pto::Tensor<float> x = pto::Tensor<float>::random({kRows, kTileCols}, 1);
  pto::Tensor<int32_t> idx = pto::Tensor<int32_t>::zeros({kRows, kTileCols});
  pto::Tensor<float> z = pto::Tensor<float>::zeros({kRows, kTileCols});
  std::vector<int64_t> flat;  // the native loop's absolute indices
  Inputs() {
    std::mt19937 rng(7);
    std::vector<int32_t> perm(kTileRows * kTileCols);
    for (int64_t t = 0; t < kTiles; ++t) {
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int32_t>(i);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (size_t i = 0; i < perm.size(); ++i) idx[t * kTileRows * kTileCols + static_cast<int64_t>(i)] = perm[i];
    }
    flat.resize(kElems);
    for (int64_t i = 0; i < kElems; ++i) flat[static_cast<size_t>(i)] = i / (kTileRows * kTileCols) * (kTileRows * kTileCols) + idx[i];
  }
  static Inputs& get() {
    static Inputs in;
    return in;
  }
};

/// Times `launch` (a launch and a synchronize each iteration), kElems items an iteration.
template <class Launch>
void time_launches(benchmark::State& state, const Launch& launch) {
  for (auto _ : state) {
    launch();
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}

void BM_GatherEmulated(benchmark::State& state) {
  static const auto k = pl::jit({.name = "bench_gather"}, [](pl::Tensor<float> x, pl::Tensor<int32_t> idx, pl::Tensor<float> z) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    auto i = pl::make_tile<int32_t>(pl::Vec, {kTileRows, kTileCols});
    auto d = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    for (auto t : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(t * kTileRows, kTileRows, 0, kTileCols));
      pl::load(i, idx.slice(t * kTileRows, kTileRows, 0, kTileCols));
      pl::gather(d, s, i);
      pl::store(z.slice(t * kTileRows, kTileRows, 0, kTileCols), d);
    }
  });
  auto& in = Inputs::get();
  k[{.block_dim = 8}].run_sync(in.x, in.idx, in.z);
  for (int64_t e = 0; e < kElems; e += 4099) {
    if (in.z[e] != in.x[in.flat[static_cast<size_t>(e)]]) state.SkipWithError("wrong gather");
  }
  time_launches(state, [&] { k[{.block_dim = 8}](in.x, in.idx, in.z); });
}
BENCHMARK(BM_GatherEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_GatherNative(benchmark::State& state) {
  auto& in = Inputs::get();
  for (auto _ : state) {
    const float* x = in.x.data();
    const int64_t* f = in.flat.data();
    float* z = in.z.data();
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kElems, 1 << 14), [&](const auto& r) {
      for (int64_t i = r.begin(); i < r.end(); ++i) z[i] = x[f[i]];
    });
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
BENCHMARK(BM_GatherNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// Transpose of each 64 x 128 f32 tile of x into a 128 x 64 tile of t (PyPTO Pro's transpose):
// emulated as above, against a TBB loop over the tiles.
void BM_TransposeEmulated(benchmark::State& state) {
  static const auto k = pl::jit({.name = "bench_transpose"}, [](pl::Tensor<float> x, pl::Tensor<float> t) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    auto d = pl::make_tile<float>(pl::Vec, {kTileCols, kTileRows});
    for (auto i : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(i * kTileRows, kTileRows, 0, kTileCols));
      pl::transpose(d, s);
      pl::store(t.slice(i * kTileCols, kTileCols, 0, kTileRows), d);
    }
  });
  auto& in = Inputs::get();
  auto t = pto::Tensor<float>::zeros({kTiles * kTileCols, kTileRows});
  k[{.block_dim = 8}].run_sync(in.x, t);
  for (int64_t e = 0; e < kElems; e += 4099) {  // t's tile i, row c, column r holds x's tile i, row r, column c
    const int64_t i = e / (kTileRows * kTileCols), c = e / kTileRows % kTileCols, r = e % kTileRows;
    if (t[e] != in.x[(i * kTileRows + r) * kTileCols + c]) state.SkipWithError("wrong transpose");
  }
  time_launches(state, [&] { k[{.block_dim = 8}](in.x, t); });
}
BENCHMARK(BM_TransposeEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_TransposeNative(benchmark::State& state) {
  auto& in = Inputs::get();
  auto t = pto::Tensor<float>::zeros({kTiles * kTileCols, kTileRows});
  for (auto _ : state) {
    const float* x = in.x.data();
    float* out = t.data();
    tbb::parallel_for(int64_t{0}, kTiles, [&](int64_t i) {
      const float* s = x + i * kTileRows * kTileCols;
      float* d = out + i * kTileRows * kTileCols;
      for (int64_t r = 0; r < kTileRows; ++r) {
        for (int64_t c = 0; c < kTileCols; ++c) d[c * kTileRows + r] = s[r * kTileCols + c];
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
BENCHMARK(BM_TransposeNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// gathermask's even columns (pattern_mode 1) of each 64 x 128 f32 tile of x into a 64 x 64 tile
// of h, as de-interleaving pairs: emulated as above, against a TBB loop over the tiles.
void BM_GatherMaskEmulated(benchmark::State& state) {
  static const auto k = pl::jit({.name = "bench_gathermask"}, [](pl::Tensor<float> x, pl::Tensor<float> h) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    auto d = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols / 2});
    for (auto i : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(i * kTileRows, kTileRows, 0, kTileCols));
      pl::gathermask(d, s, {.pattern_mode = 1});
      pl::store(h.slice(i * kTileRows, kTileRows, 0, kTileCols / 2), d);
    }
  });
  auto& in = Inputs::get();
  auto h = pto::Tensor<float>::zeros({kRows, kTileCols / 2});
  k[{.block_dim = 8}].run_sync(in.x, h);
  for (int64_t e = 0; e < h.numel(); e += 997) {
    if (h[e] != in.x[e / (kTileCols / 2) * kTileCols + e % (kTileCols / 2) * 2]) state.SkipWithError("wrong gathermask");
  }
  time_launches(state, [&] { k[{.block_dim = 8}](in.x, h); });
}
BENCHMARK(BM_GatherMaskEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_GatherMaskNative(benchmark::State& state) {
  auto& in = Inputs::get();
  auto h = pto::Tensor<float>::zeros({kRows, kTileCols / 2});
  for (auto _ : state) {
    const float* x = in.x.data();
    float* out = h.data();
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kRows, kTileRows), [&](const auto& r) {
      for (int64_t row = r.begin(); row < r.end(); ++row) {
        for (int64_t c = 0; c < kTileCols / 2; ++c) out[row * (kTileCols / 2) + c] = x[row * kTileCols + 2 * c];
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
BENCHMARK(BM_GatherMaskNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// sort32 of each 64 x 128 f32 tile of x (each row's groups of 32 sorted greatest first into
// [value, index] records, the indices a shared row 0..127), as a top-k's first step: emulated as
// above, against a TBB loop sorting the same groups with std::sort (no buffer to allocate; the
// indices in a group are distinct, so an unstable sort gives the same order).
struct SortRecord {
  float value;
  uint32_t index;
};
bool sorts_before(const SortRecord& a, const SortRecord& b) {  // greatest first, NaN last, smaller index first
  const bool an = std::isnan(a.value), bn = std::isnan(b.value);
  if (an != bn) return bn;
  if (!an && a.value != b.value) return a.value > b.value;
  return a.index < b.index;
}

/// Whether `out` holds, for every 61st row of x, each group of `group` columns as [value, index]
/// records sorted in the documented order (the index being the column).
bool sorted_in_groups(const pto::Tensor<float>& x, const pto::Tensor<float>& out, int64_t group) {
  for (int64_t row = 0; row < kRows; row += 61) {
    for (int64_t g = 0; g < kTileCols; g += group) {
      std::vector<SortRecord> want;
      for (int64_t c = g; c < g + group; ++c) want.push_back({x[row * kTileCols + c], static_cast<uint32_t>(c)});
      std::stable_sort(want.begin(), want.end(), sorts_before);
      for (int64_t j = 0; j < group; ++j) {
        const float* rec = &out[row * 2 * kTileCols + 2 * (g + j)];
        uint32_t index;
        std::memcpy(&index, rec + 1, 4);
        if (rec[0] != want[static_cast<size_t>(j)].value || index != want[static_cast<size_t>(j)].index) return false;
      }
    }
  }
  return true;
}

/// The emulated side of the sorts: sort32 of each tile, and with kMerge mrgsort of each row's four
/// sorted blocks of 32 records into one of 128.
template <bool kMerge>
void sort_emulated(benchmark::State& state) {
  static const auto k = pl::jit({.name = kMerge ? "bench_sort_rows" : "bench_sort32"}, [](pl::Tensor<float> x, pl::Tensor<int32_t> idx,
                                                                                           pl::Tensor<float> out) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    auto i = pl::make_tile<int32_t>(pl::Vec, {1, kTileCols});
    auto blocks = pl::make_tile<float>(pl::Vec, {kTileRows, 2 * kTileCols});
    auto d = pl::make_tile<float>(pl::Vec, {kTileRows, 2 * kTileCols});
    pl::load(i, idx.slice(0, 1, 0, kTileCols));
    for (auto t : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(t * kTileRows, kTileRows, 0, kTileCols));
      pl::sort32(kMerge ? blocks : d, s, i);
      if (kMerge) pl::mrgsort(d, blocks, {.block_len = 64});  // four blocks of 32 records (64 floats) a row
      pl::store(out.slice(t * kTileRows, kTileRows, 0, 2 * kTileCols), d);
    }
  });
  auto& in = Inputs::get();
  auto idx = pto::Tensor<int32_t>::zeros({1, kTileCols});
  for (int64_t c = 0; c < kTileCols; ++c) idx[c] = static_cast<int32_t>(c);
  auto out = pto::Tensor<float>::zeros({kRows, 2 * kTileCols});
  k[{.block_dim = 8}].run_sync(in.x, idx, out);
  if (!sorted_in_groups(in.x, out, kMerge ? kTileCols : 32)) state.SkipWithError("wrong sort");
  time_launches(state, [&] { k[{.block_dim = 8}](in.x, idx, out); });
}
void BM_Sort32Emulated(benchmark::State& state) { sort_emulated<false>(state); }
BENCHMARK(BM_Sort32Emulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

/// The native side of the sorts: a TBB loop over the rows of x, each row's groups of `group`
/// [value, index] records sorted with std::sort.
void sort_groups_native(benchmark::State& state, int64_t group) {
  auto& in = Inputs::get();
  std::vector<SortRecord> out(static_cast<size_t>(kElems));
  for (auto _ : state) {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kRows, kTileRows), [&](const auto& r) {
      for (int64_t row = r.begin(); row < r.end(); ++row) {
        for (int64_t g = 0; g < kTileCols; g += group) {
          SortRecord* recs = out.data() + row * kTileCols + g;
          for (int64_t c = 0; c < group; ++c) recs[c] = {in.x[row * kTileCols + g + c], static_cast<uint32_t>(g + c)};
          std::sort(recs, recs + group, sorts_before);
        }
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
void BM_Sort32Native(benchmark::State& state) { sort_groups_native(state, 32); }
BENCHMARK(BM_Sort32Native)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// A whole sort of each row of 128 (sort32, then mrgsort of its four sorted blocks of 32 records),
// as a top-k: emulated as above, against a TBB loop sorting each row's 128 records with std::sort.
void BM_SortRowsEmulated(benchmark::State& state) { sort_emulated<true>(state); }
BENCHMARK(BM_SortRowsEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_SortRowsNative(benchmark::State& state) { sort_groups_native(state, kTileCols); }
BENCHMARK(BM_SortRowsNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// fillpad of each tile loaded as 60 x 120 of a 64 x 128 f32 tile: the rest padded with -inf (as
// before a row max over a ragged block): emulated as above, against a TBB loop writing the same.
constexpr int64_t kValidRows = 60, kValidCols = 120;
void BM_FillPadEmulated(benchmark::State& state) {
  static const auto k = pl::jit({.name = "bench_fillpad"}, [](pl::Tensor<float> x, pl::Tensor<float> p) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    auto d = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols}, pl::TilePad::Min);
    for (auto i : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(i * kTileRows, kValidRows, 0, kValidCols));
      pl::fillpad(d, s);
      pl::store(p.slice(i * kTileRows, kTileRows, 0, kTileCols), d);
    }
  });
  auto& in = Inputs::get();
  auto p = pto::Tensor<float>::zeros({kRows, kTileCols});
  k[{.block_dim = 8}].run_sync(in.x, p);
  for (int64_t e = 0; e < kElems; e += 101) {
    const int64_t r = e / kTileCols % kTileRows, c = e % kTileCols;
    const float want = r < kValidRows && c < kValidCols ? in.x[e] : -std::numeric_limits<float>::infinity();
    if (p[e] != want) state.SkipWithError("wrong fillpad");
  }
  time_launches(state, [&] { k[{.block_dim = 8}](in.x, p); });
}
BENCHMARK(BM_FillPadEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_FillPadNative(benchmark::State& state) {
  auto& in = Inputs::get();
  auto p = pto::Tensor<float>::zeros({kRows, kTileCols});
  for (auto _ : state) {
    const float* x = in.x.data();
    float* out = p.data();
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kRows, kTileRows), [&](const auto& r) {
      for (int64_t row = r.begin(); row < r.end(); ++row) {
        const bool valid_row = row % kTileRows < kValidRows;
        for (int64_t c = 0; c < kTileCols; ++c) {
          out[row * kTileCols + c] = valid_row && c < kValidCols ? x[row * kTileCols + c] : -std::numeric_limits<float>::infinity();
        }
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
BENCHMARK(BM_FillPadNative)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// A store that adds to GM atomically (PyPTO Pro's atomic=AtomicAdd, as a split-K matmul's
// partial sums): the 64 tiles of x added into 8 output tiles of y (8 adds into each, from every
// block), against the same kernel storing plainly (each output tile then overwritten 8 times).
template <bool kAtomic>
void BM_StoreAdd(benchmark::State& state) {
  static const auto k = pl::jit({.name = kAtomic ? "bench_store_atomic" : "bench_store_plain"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    for (auto i : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(i * kTileRows, kTileRows, 0, kTileCols));
      pl::store(y.slice(i / 8 * kTileRows, kTileRows, 0, kTileCols), s,
                {.atomic = kAtomic ? pl::AtomicType::AtomicAdd : pl::AtomicType::AtomicNone});
    }
  });
  auto& in = Inputs::get();
  auto y = pto::Tensor<float>::zeros({kTiles / 8 * kTileRows, kTileCols});
  if (kAtomic) {  // y's tile j is the sum of x's tiles 8j .. 8j + 7 (in any order: within float rounding)
    k[{.block_dim = 8}].run_sync(in.x, y);
    for (int64_t e = 0; e < y.numel(); e += 97) {
      const int64_t j = e / (kTileRows * kTileCols), at = e % (kTileRows * kTileCols);
      double want = 0;
      for (int64_t t = 8 * j; t < 8 * j + 8; ++t) want += in.x[t * kTileRows * kTileCols + at];
      if (std::abs(y[e] - want) > 1e-5 * (1 + std::abs(want))) state.SkipWithError("wrong atomic add");
    }
  }
  time_launches(state, [&] { k[{.block_dim = 8}](in.x, y); });
}
BENCHMARK(BM_StoreAdd<true>)->Name("BM_StoreAtomicAdd")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_StoreAdd<false>)->Name("BM_StorePlain")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  return pto::perf::run_with_ratios(argc, argv,
                                    {{"gather native/emulated", "BM_GatherNative/min_time:1.000/real_time", "BM_GatherEmulated/min_time:1.000/real_time"},
                                     {"transpose native/emulated", "BM_TransposeNative/min_time:1.000/real_time",
                                      "BM_TransposeEmulated/min_time:1.000/real_time"},
                                     {"gathermask native/emulated", "BM_GatherMaskNative/min_time:1.000/real_time",
                                      "BM_GatherMaskEmulated/min_time:1.000/real_time"},
                                     {"sort32 native/emulated", "BM_Sort32Native/min_time:1.000/real_time",
                                      "BM_Sort32Emulated/min_time:1.000/real_time"},
                                     {"sort32 + mrgsort (rows of 128) native/emulated", "BM_SortRowsNative/min_time:1.000/real_time",
                                      "BM_SortRowsEmulated/min_time:1.000/real_time"},
                                     {"fillpad native/emulated", "BM_FillPadNative/min_time:1.000/real_time",
                                      "BM_FillPadEmulated/min_time:1.000/real_time"},
                                     {"store plain / atomic add, emulated", "BM_StorePlain/min_time:1.000/real_time",
                                      "BM_StoreAtomicAdd/min_time:1.000/real_time"}});
}
