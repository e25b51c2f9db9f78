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
  for (auto _ : state) {
    k[{.block_dim = 8}](in.x, in.idx, in.z);
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems);
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
  for (auto _ : state) {
    k[{.block_dim = 8}](in.x, t);
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems);
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
  for (auto _ : state) {
    k[{.block_dim = 8}](in.x, h);
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems / 2);
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
  state.SetItemsProcessed(state.iterations() * kElems / 2);
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

void BM_Sort32Emulated(benchmark::State& state) {
  static const auto k = pl::jit({.name = "bench_sort32"}, [](pl::Tensor<float> x, pl::Tensor<int32_t> idx, pl::Tensor<float> out) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    auto i = pl::make_tile<int32_t>(pl::Vec, {1, kTileCols});
    auto d = pl::make_tile<float>(pl::Vec, {kTileRows, 2 * kTileCols});
    pl::load(i, idx.slice(0, 1, 0, kTileCols));
    for (auto t : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(t * kTileRows, kTileRows, 0, kTileCols));
      pl::sort32(d, s, i);
      pl::store(out.slice(t * kTileRows, kTileRows, 0, 2 * kTileCols), d);
    }
  });
  auto& in = Inputs::get();
  auto idx = pto::Tensor<int32_t>::zeros({1, kTileCols});
  for (int64_t c = 0; c < kTileCols; ++c) idx[c] = static_cast<int32_t>(c);
  auto out = pto::Tensor<float>::zeros({kRows, 2 * kTileCols});
  k[{.block_dim = 8}].run_sync(in.x, idx, out);
  for (int64_t row = 0; row < kRows; row += 61) {  // each group: its values sorted, as records
    for (int64_t g = 0; g < kTileCols; g += 32) {
      std::vector<SortRecord> want;
      for (int64_t c = g; c < g + 32; ++c) want.push_back({in.x[row * kTileCols + c], static_cast<uint32_t>(c)});
      std::stable_sort(want.begin(), want.end(), sorts_before);
      for (int64_t j = 0; j < 32; ++j) {
        const float v = out[row * 2 * kTileCols + 2 * (g + j)];
        uint32_t index;
        std::memcpy(&index, &out[row * 2 * kTileCols + 2 * (g + j) + 1], 4);
        if (v != want[static_cast<size_t>(j)].value || index != want[static_cast<size_t>(j)].index) state.SkipWithError("wrong sort32");
      }
    }
  }
  for (auto _ : state) {
    k[{.block_dim = 8}](in.x, idx, out);
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
BENCHMARK(BM_Sort32Emulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_Sort32Native(benchmark::State& state) {
  auto& in = Inputs::get();
  std::vector<SortRecord> out(static_cast<size_t>(kElems));
  for (auto _ : state) {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kRows, kTileRows), [&](const auto& r) {
      for (int64_t row = r.begin(); row < r.end(); ++row) {
        for (int64_t g = 0; g < kTileCols; g += 32) {
          SortRecord* group = out.data() + row * kTileCols + g;
          for (int64_t c = 0; c < 32; ++c) group[c] = {in.x[row * kTileCols + g + c], static_cast<uint32_t>(g + c)};
          std::sort(group, group + 32, sorts_before);
        }
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
BENCHMARK(BM_Sort32Native)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// A whole sort of each row of 128 (sort32, then mrgsort of its four sorted blocks of 32 records),
// as a top-k: emulated as above, against a TBB loop sorting each row's 128 records with std::sort.
void BM_SortRowsEmulated(benchmark::State& state) {
  static const auto k = pl::jit({.name = "bench_sort_rows"}, [](pl::Tensor<float> x, pl::Tensor<int32_t> idx, pl::Tensor<float> out) {
    auto s = pl::make_tile<float>(pl::Vec, {kTileRows, kTileCols});
    auto i = pl::make_tile<int32_t>(pl::Vec, {1, kTileCols});
    auto blocks = pl::make_tile<float>(pl::Vec, {kTileRows, 2 * kTileCols});
    auto d = pl::make_tile<float>(pl::Vec, {kTileRows, 2 * kTileCols});
    pl::load(i, idx.slice(0, 1, 0, kTileCols));
    for (auto t : pl::range(pl::get_block_idx(), kTiles, pl::get_block_num())) {
      pl::load(s, x.slice(t * kTileRows, kTileRows, 0, kTileCols));
      pl::sort32(blocks, s, i);
      pl::mrgsort(d, blocks, {.block_len = 64});  // four blocks of 32 records (64 floats) a row
      pl::store(out.slice(t * kTileRows, kTileRows, 0, 2 * kTileCols), d);
    }
  });
  auto& in = Inputs::get();
  auto idx = pto::Tensor<int32_t>::zeros({1, kTileCols});
  for (int64_t c = 0; c < kTileCols; ++c) idx[c] = static_cast<int32_t>(c);
  auto out = pto::Tensor<float>::zeros({kRows, 2 * kTileCols});
  k[{.block_dim = 8}].run_sync(in.x, idx, out);
  for (int64_t row = 0; row < kRows; row += 61) {
    std::vector<SortRecord> want;
    for (int64_t c = 0; c < kTileCols; ++c) want.push_back({in.x[row * kTileCols + c], static_cast<uint32_t>(c)});
    std::sort(want.begin(), want.end(), sorts_before);
    for (int64_t j = 0; j < kTileCols; ++j) {
      uint32_t index;
      std::memcpy(&index, &out[row * 2 * kTileCols + 2 * j + 1], 4);
      if (out[row * 2 * kTileCols + 2 * j] != want[static_cast<size_t>(j)].value || index != want[static_cast<size_t>(j)].index) {
        state.SkipWithError("wrong sort");
      }
    }
  }
  for (auto _ : state) {
    k[{.block_dim = 8}](in.x, idx, out);
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
BENCHMARK(BM_SortRowsEmulated)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

void BM_SortRowsNative(benchmark::State& state) {
  auto& in = Inputs::get();
  std::vector<SortRecord> out(static_cast<size_t>(kElems));
  for (auto _ : state) {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kRows, kTileRows), [&](const auto& r) {
      for (int64_t row = r.begin(); row < r.end(); ++row) {
        SortRecord* recs = out.data() + row * kTileCols;
        for (int64_t c = 0; c < kTileCols; ++c) recs[c] = {in.x[row * kTileCols + c], static_cast<uint32_t>(c)};
        std::sort(recs, recs + kTileCols, sorts_before);
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kElems);
}
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
  for (auto _ : state) {
    k[{.block_dim = 8}](in.x, p);
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems);
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
  for (auto _ : state) {
    k[{.block_dim = 8}](in.x, y);
    pto::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kElems);
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
