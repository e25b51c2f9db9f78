// PyPTO Pro's gather, gatherb, gathermask, scatter, fillpad, sort32, mrgsort and mrgsort2
// (pto/lang/Rearrange.hpp) against plain C++, on the shapes of PyPTO Pro's documented examples
// (docs/zh/pypto_pro/api/SIMD-API/operation/memory_vector_computation/...) and on tails; every
// result is compared bit for bit (the routines move elements, they do not compute).
#include <bit>
#include <numeric>
#include <random>

#include "common.hpp"

namespace pto::correctness {
namespace {

template <class T>
bool bits_equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
int64_t count_unequal(const Tensor<T>& got, const std::vector<T>& want) {
  int64_t wrong = 0;
  for (int64_t i = 0; i < got.numel(); ++i) wrong += !bits_equal(got[i], want[static_cast<size_t>(i)]);
  return wrong;
}

/// src [R, C] of T; each row reversed by indices, as gather.md's example (row r: 128r + 127, ...),
/// or any other index pattern, and with an offset.
template <class T>
void check_gather(int64_t rows, int64_t cols, int64_t offset, uint64_t seed) {
  CAPTURE(type_name<T>());
  CAPTURE(offset);
  const auto k = pl::jit({.name = "gather_" + type_name<T>()}, [=](pl::Tensor<T> src, pl::Tensor<int32_t> indices, pl::Tensor<T> dst) {
    auto s = pl::make_tile<T>(pl::Vec, {rows, cols});
    auto idx = pl::make_tile<int32_t>(pl::Vec, {rows, cols});
    auto tmp = pl::make_tile<int32_t>(pl::Vec, {rows, cols});
    auto d = pl::make_tile<T>(pl::Vec, {rows, cols});
    pl::load(s, src, {0, 0});
    pl::load(idx, indices, {0, 0});
    pl::gather(d, s, idx, tmp, {.offset = offset});
    pl::store(dst, d, {0, 0});
  });
  auto src = Tensor<T>::random({rows, cols}, seed, -100, 100);
  auto indices = Tensor<int32_t>::zeros({rows, cols});
  std::mt19937 rng(static_cast<uint32_t>(seed));
  const int64_t n = rows * cols;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t reversed = r * cols + cols - 1 - c;
      const int64_t any = static_cast<int64_t>(rng() % static_cast<uint32_t>(n - offset));
      indices[r * cols + c] = static_cast<int32_t>((r % 2 == 0 ? std::min(reversed, n - 1 - offset) : any));
    }
  }
  auto dst = Tensor<T>::zeros({rows, cols});
  k[{.block_dim = 1}].run_sync(src, indices, dst);
  std::vector<T> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(i)] = src[indices[i] + offset];
  CHECK(count_unequal(dst, want) == 0);
}

}  // namespace

TEST_CASE("gather(out, src, idx, tmp[, offset]): out[i, j] = src_flat[idx[i, j] + offset], as gather.md's example ([64, 128], "
          "reversed rows) and random indices, on every dtype") {
  check_gather<half>(64, 128, 0, 1);
  check_gather<half>(64, 128, 16, 2);
  check_gather<float>(16, 64, 0, 3);
  check_gather<bfloat16>(8, 32, 5, 4);
  check_gather<int32_t>(8, 16, 0, 5);
  check_gather<int8_t>(4, 64, 1, 6);
}

TEST_CASE("gather with every index inside takes one pass (AVX-512 for 4-byte elements where the host has it): rows of 40 "
          "(two steps of 16 and a tail), negative indices that the offset brings inside, and the first and last element") {
  check_gather<float>(8, 40, 3, 7);
  check_gather<int32_t>(3, 24, 0, 8);
  constexpr int64_t kRows = 4, kCols = 40, kOffset = 8;
  const auto k = pl::jit({.name = "gather_negative"}, [](pl::Tensor<float> src, pl::Tensor<int32_t> indices, pl::Tensor<float> dst) {
    auto s = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    auto idx = pl::make_tile<int32_t>(pl::Vec, {kRows, kCols});
    auto d = pl::make_tile<float>(pl::Vec, {kRows, kCols});
    pl::load(s, src, {0, 0});
    pl::load(idx, indices, {0, 0});
    pl::gather(d, s, idx, {.offset = kOffset});
    pl::store(dst, d, {0, 0});
  });
  auto src = Tensor<float>::random({kRows, kCols}, 9, -100, 100);
  auto indices = Tensor<int32_t>::zeros({kRows, kCols});
  const int64_t n = kRows * kCols;
  for (int64_t i = 0; i < n; ++i) indices[i] = static_cast<int32_t>((i * 37) % n - kOffset);  // -8 .. n - 9: all inside
  indices[0] = -kOffset;                                                                       // src's first element
  indices[n - 1] = static_cast<int32_t>(n - 1 - kOffset);                                      // and its last
  auto dst = Tensor<float>::zeros({kRows, kCols});
  k[{.block_dim = 1}].run_sync(src, indices, dst);
  std::vector<float> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(i)] = src[indices[i] + kOffset];
  CHECK(count_unequal(dst, want) == 0);
  CHECK(dst[0] == src[0]);
  CHECK(dst[n - 1] == src[n - 1]);
}

TEST_CASE("gather over a tail: out takes idx's valid extent; an index past src's valid elements stops the core with a clear "
          "error and nothing is stored") {
  const auto k = pl::jit({.name = "gather_tail"}, [](pl::Tensor<float> src, pl::Tensor<int32_t> indices, pl::Tensor<float> dst) {
    auto s = pl::make_tile<float>(pl::Vec, {8, 16});
    auto idx = pl::make_tile<int32_t>(pl::Vec, {8, 16});
    auto d = pl::make_tile<float>(pl::Vec, {8, 16});
    pl::load(s, src.slice(0, src.dim(0), 0, 16));
    pl::load(idx, indices.slice(0, indices.dim(0), 0, 8));
    pl::gather(d, s, idx);
    pl::store(dst.slice(0, indices.dim(0), 0, 8), d);
  });
  auto src = Tensor<float>::random({5, 16}, 7);
  auto indices = Tensor<int32_t>::zeros({3, 8});
  for (int64_t i = 0; i < 24; ++i) indices[i] = static_cast<int32_t>((i * 37) % 80);
  auto dst = Tensor<float>::full({3, 8}, -1.0f);
  k[{.block_dim = 1}].run_sync(src, indices, dst);
  std::vector<float> want(24);
  for (int64_t i = 0; i < 24; ++i) want[static_cast<size_t>(i)] = src[indices[i]];
  CHECK(count_unequal(dst, want) == 0);

  indices[5] = 80;  // row 5 of an 8 x 16 tile: outside the 5 valid rows
  auto before = copy_of(dst);
  try {
    k[{.block_dim = 1}].run_sync(src, indices, dst);
    FAIL("no error");
  } catch (const UserError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.find("gather: index 80 (element 5 of the index tile) is outside the 80 elements it may address") != std::string::npos);
    CHECK(what.find("pipe: V") != std::string::npos);
  }
  CHECK(bitwise_equal(dst, before));
}

TEST_CASE("gatherb(out, src, offsets): 32-byte blocks at byte offsets, identity as gatherb.md's example and permuted") {
  const auto k = pl::jit({.name = "gatherb"}, [](pl::Tensor<half> src, pl::Tensor<int32_t> offsets, pl::Tensor<half> dst) {
    auto s = pl::make_tile<half>(pl::Vec, {64, 128});
    auto o = pl::make_tile<int32_t>(pl::Vec, {64, 8});
    auto d = pl::make_tile<half>(pl::Vec, {64, 128});
    pl::load(s, src, {0, 0});
    pl::load(o, offsets, {0, 0});
    pl::gatherb(d, s, o);
    pl::store(dst, d, {0, 0});
  });
  auto src = Tensor<half>::random({64, 128}, 8, -10, 10);
  for (bool identity : {true, false}) {
    CAPTURE(identity);
    auto offsets = Tensor<int32_t>::zeros({64, 8});
    for (int64_t r = 0; r < 64; ++r) {
      for (int64_t b = 0; b < 8; ++b) offsets[r * 8 + b] = static_cast<int32_t>(identity ? 256 * r + 32 * b : 32 * ((r * 13 + b * 5) % 512));
    }
    auto dst = Tensor<half>::zeros({64, 128});
    k[{.block_dim = 1}].run_sync(src, offsets, dst);
    std::vector<half> want(64 * 128);
    for (int64_t r = 0; r < 64; ++r) {
      for (int64_t b = 0; b < 8; ++b) {
        for (int64_t e = 0; e < 16; ++e) want[static_cast<size_t>(r * 128 + b * 16 + e)] = src[offsets[r * 8 + b] / 2 + e];
      }
    }
    CHECK(count_unequal(dst, want) == 0);
  }
}

TEST_CASE("gathermask(out, src, pattern_mode=1..7) selects even/odd columns, one of every 4, or all, per row; odd column counts") {
  for (int64_t cols : {128, 37}) {
    for (int mode = 1; mode <= 7; ++mode) {
      CAPTURE(cols);
      CAPTURE(mode);
      const int64_t stride = mode <= 2 ? 2 : (mode <= 6 ? 4 : 1), phase = mode <= 2 ? mode - 1 : (mode <= 6 ? mode - 3 : 0);
      const int64_t out_cols = (cols - phase + stride - 1) / stride;
      const auto k = pl::jit({.name = "gathermask"}, [=](pl::Tensor<float> src, pl::Tensor<float> dst) {
        auto s = pl::make_tile<float>(pl::Vec, {16, 128});
        auto d = pl::make_tile<float>(pl::Vec, {16, 128});
        pl::load(s, src.slice(0, 16, 0, cols));
        pl::gathermask(d, s, {.pattern_mode = mode});
        pl::store(dst.slice(0, 16, 0, out_cols), d);
      });
      auto src = Tensor<float>::random({16, cols}, 9);
      auto dst = Tensor<float>::zeros({16, out_cols});
      k[{.block_dim = 1}].run_sync(src, dst);
      std::vector<float> want;
      for (int64_t r = 0; r < 16; ++r) {
        for (int64_t c = phase; c < cols; c += stride) want.push_back(src[r * cols + c]);
      }
      CHECK(count_unequal(dst, want) == 0);
    }
  }
}

TEST_CASE("scatter(out, src, idx): out_flat[idx[i, j]] = src[i, j], a full reversal as scatter.md's example; untouched "
          "elements keep their values; the later of two equal indices wins") {
  const auto k = pl::jit({.name = "scatter"}, [](pl::Tensor<float> src, pl::Tensor<int32_t> indices, pl::Tensor<float> dst) {
    auto s = pl::make_tile<float>(pl::Vec, {64, 128});
    auto idx = pl::make_tile<int32_t>(pl::Vec, {64, 128});
    auto d = pl::make_tile<float>(pl::Vec, {64, 128});
    pl::load(d, dst, {0, 0});  // what the scatter does not touch
    pl::load(s, src.slice(0, src.dim(0), 0, 128));
    pl::load(idx, indices.slice(0, indices.dim(0), 0, 128));
    pl::scatter(d, s, idx);
    pl::store(dst, d, {0, 0});
  });
  auto src = Tensor<float>::zeros({64, 128});
  for (int64_t i = 0; i < 64 * 128; ++i) src[i] = 1.0f + 0.25f * static_cast<float>(i);
  auto indices = Tensor<int32_t>::zeros({64, 128});
  for (int64_t i = 0; i < 64 * 128; ++i) indices[i] = static_cast<int32_t>(8191 - i);
  auto dst = Tensor<float>::zeros({64, 128});
  k[{.block_dim = 1}].run_sync(src, indices, dst);
  CHECK(dst[0] == 2048.75f);  // scatter.md: dst row 0 = [2048.75 2048.5 ...]
  CHECK(dst[128] == 2016.75f);
  std::vector<float> want(64 * 128);
  for (int64_t i = 0; i < 64 * 128; ++i) want[static_cast<size_t>(8191 - i)] = src[i];
  CHECK(count_unequal(dst, want) == 0);

  // 3 rows of src into a prefilled tile, with a repeated index.
  auto part = Tensor<float>::random({3, 128}, 10);
  auto part_idx = Tensor<int32_t>::zeros({3, 128});
  for (int64_t i = 0; i < 384; ++i) part_idx[i] = static_cast<int32_t>((i * 7) % 1000);
  part_idx[300] = part_idx[10];
  auto filled = Tensor<float>::random({64, 128}, 11);
  std::vector<float> expect(filled.data(), filled.data() + filled.numel());
  for (int64_t i = 0; i < 384; ++i) expect[static_cast<size_t>(part_idx[i])] = part[i];
  k[{.block_dim = 1}].run_sync(part, part_idx, filled);
  CHECK(count_unequal(filled, expect) == 0);
}

namespace {

/// The tile width of T: 8 columns, or a 32-byte row for narrower types (the UB row alignment).
template <class T>
constexpr int64_t fill_cols() {
  return std::max<int64_t>(8, 32 / static_cast<int64_t>(sizeof(T)));
}

template <class T>
auto make_fillpad_kernel(pl::TilePad pad, pl::FillPadMode mode, int64_t out_cols) {
  constexpr int64_t W = fill_cols<T>();
  return pl::jit({.name = "fillpad_" + type_name<T>()}, [=](pl::Tensor<T> x, pl::Tensor<T> z) {
    auto src = pl::make_tile<T>(pl::Vec, {8, W}, mode == pl::FillPadMode::INPLACE ? pad : pl::TilePad::Null);
    pl::set_validshape(src, 5, 7);
    pl::load(src, x, {0, 0});  // fillpad.md: set_validshape before the load gives the 5 x 7 region
    if (mode == pl::FillPadMode::INPLACE) {
      pl::fillpad(src, src, {.mode = mode});
      pl::store(z, src, {0, 0});
    } else {
      auto dst = pl::make_tile<T>(pl::Vec, {8, out_cols}, pad);
      pl::fillpad(dst, src, {.mode = mode});
      pl::store(z, dst, {0, 0});
    }
  });
}

/// `wider`: EXPAND into twice the width.
template <class T>
void check_fillpad(pl::TilePad pad, pl::FillPadMode mode, bool wider, T pad_value) {
  CAPTURE(type_name<T>());
  CAPTURE(static_cast<int>(mode));
  constexpr int64_t W = fill_cols<T>();
  const int64_t out_cols = wider ? 2 * W : W;
  auto x = Tensor<T>::random({8, W}, 12, -50, 50);
  auto z = Tensor<T>::zeros({8, out_cols});
  make_fillpad_kernel<T>(pad, mode, out_cols)[{.block_dim = 1}].run_sync(x, z);
  std::vector<T> want(static_cast<size_t>(8 * out_cols));
  for (int64_t r = 0; r < 8; ++r) {
    for (int64_t c = 0; c < out_cols; ++c) want[static_cast<size_t>(r * out_cols + c)] = r < 5 && c < 7 ? x[r * W + c] : pad_value;
  }
  CHECK(count_unequal(z, want) == 0);
}

}  // namespace

TEST_CASE("fillpad(out, src, mode): src's valid part and the destination's pad value elsewhere; NORMAL as fillpad.md's example "
          "(int32 [8, 8], valid [5, 7], zero), EXPAND into [8, 16], INPLACE; max and min are +-inf for floats") {
  check_fillpad<int32_t>(pl::TilePad::Zero, pl::FillPadMode::NORMAL, false, 0);
  check_fillpad<int32_t>(pl::TilePad::Max, pl::FillPadMode::EXPAND, true, std::numeric_limits<int32_t>::max());
  check_fillpad<float>(pl::TilePad::Min, pl::FillPadMode::EXPAND, true, -std::numeric_limits<float>::infinity());
  check_fillpad<half>(pl::TilePad::Max, pl::FillPadMode::INPLACE, false, half(std::numeric_limits<float>::infinity()));
  check_fillpad<bfloat16>(pl::TilePad::Min, pl::FillPadMode::EXPAND, true, bfloat16(-std::numeric_limits<float>::infinity()));
  check_fillpad<int8_t>(pl::TilePad::Min, pl::FillPadMode::NORMAL, false, std::numeric_limits<int8_t>::min());
}

namespace {

struct Rec {
  float value;
  uint32_t index;
};
bool rec_before(const Rec& a, const Rec& b) {
  const bool an = std::isnan(a.value), bn = std::isnan(b.value);
  if (an != bn) return bn;
  if (!an && a.value != b.value) return a.value > b.value;
  return a.index < b.index;
}

/// sort32's reference: per row, each group of 32 sorted (greatest first, NaN last, smaller index first).
std::vector<Rec> sort32_reference(const Tensor<float>& src, int64_t rows, int64_t cols, const std::vector<uint32_t>& idx) {
  std::vector<Rec> out;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t g = 0; g < cols; g += 32) {
      std::vector<Rec> group;
      for (int64_t c = g; c < std::min(cols, g + 32); ++c) group.push_back({src[r * cols + c], idx[static_cast<size_t>(c)]});
      std::stable_sort(group.begin(), group.end(), rec_before);
      out.insert(out.end(), group.begin(), group.end());
    }
  }
  return out;
}

std::vector<Rec> records_of(const Tensor<float>& t) {
  std::vector<Rec> out(static_cast<size_t>(t.numel() / 2));
  std::memcpy(out.data(), t.data(), out.size() * sizeof(Rec));
  return out;
}

bool same_records(const std::vector<Rec>& a, const std::vector<Rec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!bits_equal(a[i].value, b[i].value) || a[i].index != b[i].index) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("sort32(dst, src, idx): each group of 32 sorted greatest first into [value, index] records, ties by the smaller index, "
          "NaN last; an idx row shared by every row; a 48-column tail; f16 records are [value, 0, index]") {
  for (int64_t cols : {64, 48}) {
    CAPTURE(cols);
    const auto k = pl::jit({.name = "sort32"}, [=](pl::Tensor<float> src, pl::Tensor<int32_t> idx, pl::Tensor<float> dst) {
      auto s = pl::make_tile<float>(pl::Vec, {4, 64});
      auto i = pl::make_tile<int32_t>(pl::Vec, {1, 64});
      auto d = pl::make_tile<float>(pl::Vec, {4, 128});
      auto tmp = pl::make_tile<float>(pl::Vec, {4, 64});
      pl::load(s, src.slice(0, 4, 0, cols));
      pl::load(i, idx.slice(0, 1, 0, cols));
      pl::sort32(d, s, i, tmp);
      pl::store(dst.slice(0, 4, 0, 2 * cols), d);
    });
    auto src = Tensor<float>::random({4, cols}, 13, -4, 4);
    for (int64_t e = 0; e < src.numel(); e += 5) src[e] = std::round(src[e]);  // ties
    src[3] = std::numeric_limits<float>::quiet_NaN();
    std::vector<uint32_t> ids(static_cast<size_t>(cols));
    auto idx = Tensor<int32_t>::zeros({1, cols});
    for (int64_t c = 0; c < cols; ++c) idx[c] = static_cast<int32_t>(ids[static_cast<size_t>(c)] = static_cast<uint32_t>(1000 + c));
    auto dst = Tensor<float>::zeros({4, 2 * cols});
    k[{.block_dim = 1}].run_sync(src, idx, dst);
    CHECK(same_records(records_of(dst), sort32_reference(src, 4, cols, ids)));
  }

  const auto kh = pl::jit({.name = "sort32_f16"}, [](pl::Tensor<half> src, pl::Tensor<int32_t> idx, pl::Tensor<half> dst) {
    auto s = pl::make_tile<half>(pl::Vec, {1, 32});
    auto i = pl::make_tile<int32_t>(pl::Vec, {1, 32});
    auto d = pl::make_tile<half>(pl::Vec, {1, 128});
    pl::load(s, src, {0, 0});
    pl::load(i, idx, {0, 0});
    pl::sort32(d, s, i);
    pl::store(dst, d, {0, 0});
  });
  auto src = Tensor<half>::random({1, 32}, 14, -8, 8);
  auto idx = Tensor<int32_t>::zeros({1, 32});
  std::iota(idx.data(), idx.data() + 32, 0);
  auto dst = Tensor<half>::zeros({1, 128});
  kh[{.block_dim = 1}].run_sync(src, idx, dst);
  std::vector<int> order(32);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return static_cast<float>(src[a]) > static_cast<float>(src[b]); });
  int64_t wrong = 0;
  for (int i = 0; i < 32; ++i) {
    uint16_t words[4];
    std::memcpy(words, dst.data() + 4 * i, 8);
    wrong += !bits_equal(dst[4 * i], src[order[static_cast<size_t>(i)]]);
    wrong += words[1] != 0;
    uint32_t index;
    std::memcpy(&index, words + 2, 4);
    wrong += index != static_cast<uint32_t>(order[static_cast<size_t>(i)]);
  }
  CHECK(wrong == 0);
}

TEST_CASE("sort32's order on the values that compare oddly: -0 and +0 tie (the smaller index first), infinities at the ends, "
          "NaNs with any payload or sign last, subnormals, a value and an index given twice (their order kept)") {
  const auto k = pl::jit({.name = "sort32_specials"}, [](pl::Tensor<float> src, pl::Tensor<int32_t> idx, pl::Tensor<float> dst) {
    auto s = pl::make_tile<float>(pl::Vec, {1, 32});
    auto i = pl::make_tile<int32_t>(pl::Vec, {1, 32});
    auto d = pl::make_tile<float>(pl::Vec, {1, 64});
    pl::load(s, src, {0, 0});
    pl::load(i, idx, {0, 0});
    pl::sort32(d, s, i);
    pl::store(dst, d, {0, 0});
  });
  const float inf = std::numeric_limits<float>::infinity(), tiny = std::numeric_limits<float>::denorm_min();
  const std::array<float, 32> values = {-0.0f, 0.0f, 1.0f, -1.0f, inf, -inf, std::bit_cast<float>(0x7fc00001u), std::bit_cast<float>(0xffc00000u),
                                        tiny, -tiny, 0.0f, -0.0f, 3.5f, 3.5f, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                                        std::numeric_limits<float>::min(), -std::numeric_limits<float>::min(), 2.0f, -2.0f, inf, -inf,
                                        std::bit_cast<float>(0x7f800001u), 1e-30f, -1e-30f, 7.0f, 7.0f, 0.5f, -0.5f, 1e30f, -1e30f, 0.0f};
  auto src = Tensor<float>::zeros({1, 32});
  auto idx = Tensor<int32_t>::zeros({1, 32});
  std::vector<uint32_t> ids(32);
  for (int64_t c = 0; c < 32; ++c) {
    src[c] = values[static_cast<size_t>(c)];
    // indices out of position order, one given twice (columns 12 and 13 hold 3.5 with index 40), and
    // large ones (uint32 order: 0x80000000 and above after the small ones)
    ids[static_cast<size_t>(c)] = c == 13 ? 40u : c % 3 == 0 ? 0x80000000u + static_cast<uint32_t>(c) : static_cast<uint32_t>(64 - c);
    idx[c] = static_cast<int32_t>(ids[static_cast<size_t>(c)]);
  }
  ids[12] = 40u, idx[12] = 40;
  auto dst = Tensor<float>::zeros({1, 64});
  k[{.block_dim = 1}].run_sync(src, idx, dst);
  CHECK(same_records(records_of(dst), sort32_reference(src, 1, 32, ids)));
}

TEST_CASE("sort32 then mrgsort (4 blocks of 32 records) then mrgsort2 of two sorted lists: a whole sort and a top-k, as "
          "the sort32 -> mrgsort -> mrgsort2 flow of PyPTO Pro's docs; exhausted stops at the first list to run out") {
  const auto k = pl::jit({.name = "sort_flow"}, [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<int32_t> idx,
                                                     pl::Tensor<float> sorted_a, pl::Tensor<float> top, pl::Tensor<float> all,
                                                     pl::Tensor<float> early) {
    auto sa = pl::make_tile<float>(pl::Vec, {1, 128});
    auto sb = pl::make_tile<float>(pl::Vec, {1, 32});
    auto i = pl::make_tile<int32_t>(pl::Vec, {1, 128});
    auto ra = pl::make_tile<float>(pl::Vec, {1, 256});
    auto rb = pl::make_tile<float>(pl::Vec, {1, 64});
    auto ma = pl::make_tile<float>(pl::Vec, {1, 256});
    auto d = pl::make_tile<float>(pl::Vec, {1, 64});
    auto tmp = pl::make_tile<float>(pl::Vec, {1, 320});
    pl::load(sa, a, {0, 0});
    pl::load(sb, b, {0, 0});
    pl::load(i, idx, {0, 0});
    pl::sort32(ra, sa, i);
    pl::sort32(rb, sb, i);
    pl::mrgsort(ma, ra, {.block_len = 64});  // 4 blocks of 64 f32 = 32 records each
    pl::store(sorted_a, ma, {0, 0});
    pl::mrgsort2(ma, rb, d, tmp);  // dst: the first 32 records of 160
    pl::store(top, d, {0, 0});
    pl::store(all, tmp, {0, 0});
    auto d2 = pl::make_tile<float>(pl::Vec, {1, 320});
    auto tmp2 = pl::make_tile<float>(pl::Vec, {1, 320});
    pl::mrgsort2(ma, rb, d2, tmp2, {.exhausted = true});
    pl::store(early, d2, {0, 0});  // its valid extent: the records merged before rb ran out
  });
  auto a = Tensor<float>::random({1, 128}, 15, -3, 3);
  auto b = Tensor<float>::random({1, 32}, 16, -3, 3);
  for (int64_t e = 0; e < 128; e += 9) a[e] = 1.0f;
  b[4] = 1.0f;
  auto idx = Tensor<int32_t>::zeros({1, 128});
  std::iota(idx.data(), idx.data() + 128, 0);
  auto sorted_a = Tensor<float>::zeros({1, 256}), top = Tensor<float>::zeros({1, 64}), all = Tensor<float>::zeros({1, 320});
  auto early = Tensor<float>::full({1, 320}, -7.0f);
  k[{.block_dim = 1}].run_sync(a, b, idx, sorted_a, top, all, early);
  std::vector<Rec> ra, rb;
  for (int64_t c = 0; c < 128; ++c) ra.push_back({a[c], static_cast<uint32_t>(c)});
  for (int64_t c = 0; c < 32; ++c) rb.push_back({b[c], static_cast<uint32_t>(c)});
  std::stable_sort(ra.begin(), ra.end(), rec_before);
  std::stable_sort(rb.begin(), rb.end(), rec_before);
  CHECK(same_records(records_of(sorted_a), ra));
  // The merge takes src0's record first among equal records (the same value and index).
  std::vector<Rec> merged;
  std::merge(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(merged), rec_before);
  CHECK(same_records(records_of(all), merged));
  CHECK(same_records(records_of(top), std::vector<Rec>(merged.begin(), merged.begin() + 32)));
  // exhausted: up to and including rb's last record, then nothing (the rest of `early` untouched).
  size_t stop = 0, taken_b = 0;
  while (taken_b < rb.size()) taken_b += merged[stop].value == rb[taken_b].value && merged[stop].index == rb[taken_b].index ? 1 : 0, ++stop;
  const auto got = records_of(early);
  CHECK(same_records(std::vector<Rec>(got.begin(), got.begin() + static_cast<int64_t>(stop)), std::vector<Rec>(merged.begin(), merged.begin() + static_cast<int64_t>(stop))));
  CHECK(early[static_cast<int64_t>(2 * stop)] == -7.0f);
}

TEST_CASE("a routine whose destination is also an operand reads it as it was: gather in place through two names of one "
          "slot (g.current() and g[0]) and scatter into its own index tile") {
  const auto k = pl::jit({.name = "routine_in_place"}, [](pl::Tensor<int32_t> x, pl::Tensor<int32_t> z, pl::Tensor<int32_t> w) {
    auto g = pl::make_tile_group<int32_t>(pl::Vec, {4, 32}, {0, 1});
    auto t = g.next();  // slot 0
    pl::load(t, x, {0, 0});
    pl::gather(g[0], g.current(), t);  // idx, src and out are one slot
    pl::store(z, t, {0, 0});
    auto u = pl::make_tile<int32_t>(pl::Vec, {4, 32});
    pl::load(u, x, {0, 0});
    pl::scatter(u, u, u);  // u_flat[u[i]] = u[i], read before written
    pl::store(w, u, {0, 0});
  });
  auto x = Tensor<int32_t>::zeros({4, 32});
  for (int64_t i = 0; i < 128; ++i) x[i] = static_cast<int32_t>((i * 45 + 7) % 128);  // a permutation
  auto z = Tensor<int32_t>::zeros({4, 32}), w = Tensor<int32_t>::zeros({4, 32});
  k[{.block_dim = 1}].run_sync(x, z, w);
  std::vector<int32_t> want_z(128), want_w(128);
  for (int64_t i = 0; i < 128; ++i) want_z[static_cast<size_t>(i)] = x[x[i]];
  for (int64_t i = 0; i < 128; ++i) want_w[static_cast<size_t>(x[i])] = x[i];
  CHECK(count_unequal(z, want_z) == 0);
  CHECK(count_unequal(w, want_w) == 0);
}

template <class T>
void check_transpose(int64_t rows, int64_t cols, int64_t valid_rows, int64_t valid_cols, int block_dim, uint64_t seed) {
  CAPTURE(type_name<T>());
  CAPTURE(rows);
  CAPTURE(cols);
  // x [B * rows x cols]: each block transposes its rows x cols tile, of which valid_rows x valid_cols
  // are loaded (a tail), into z [B * cols x rows]; the rest of z keeps its values.
  const auto k = pl::jit({.name = "transpose_" + type_name<T>()}, [=](pl::Tensor<T> x, pl::Tensor<T> z) {
    auto s = pl::make_tile<T>(pl::Vec, {rows, cols});
    auto d = pl::make_tile<T>(pl::Vec, {cols, rows});
    for (auto b : pl::range(pl::get_block_idx(), x.dim(0) / rows, pl::get_block_num())) {
      pl::load(s, x.slice(b * rows, valid_rows, 0, valid_cols));
      pl::transpose(d, s);
      pl::store(z.slice(b * cols, pl::valid_rows(d), 0, pl::valid_cols(d)), d);
    }
  });
  const int64_t blocks = 3;
  auto x = Tensor<T>::random({blocks * rows, cols}, seed, -50, 50);
  auto z = Tensor<T>::full({blocks * cols, rows}, T(7));
  const LaunchProfile p = k[{.block_dim = block_dim}].run_sync(x, z);
  CHECK(p.races.empty());
  int64_t wrong = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = 0; r < rows; ++r) {
        const T want = c < valid_cols && r < valid_rows ? x[(b * rows + r) * cols + c] : T(7);
        wrong += !bits_equal(z[(b * cols + c) * rows + r], want);
      }
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("transpose(dst, src): dst[c, r] = src[r, c] over src's valid extent, which dst takes transposed; every dtype, full "
          "tiles and tails, idle cores") {
  check_transpose<float>(16, 32, 16, 32, 2, 1);
  check_transpose<float>(8, 16, 5, 11, 5, 2);  // a tail, and idle cores (3 tiles on 5 cores)
  check_transpose<half>(32, 16, 32, 16, 1, 3);
  check_transpose<bfloat16>(16, 64, 9, 64, 3, 4);
  check_transpose<int32_t>(8, 8, 8, 3, 2, 5);
  check_transpose<int8_t>(32, 64, 17, 33, 2, 6);
  check_transpose<float>(24, 24, 19, 21, 2, 7);    // 8 x 8 blocks in registers, then the last columns and rows
  check_transpose<int32_t>(16, 24, 16, 24, 1, 8);  // 4-byte integers through the same blocks
}

TEST_CASE("transpose in place of a square tile reads the source before writing it; a transpose whose result exceeds dst stops "
          "the core with the result's extent and dst's capacity, nothing stored") {
  const auto k = pl::jit({.name = "transpose_in_place"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto t = pl::make_tile<float>(pl::Vec, {16, 16});
    pl::load(t, x, {0, 0});
    pl::transpose(t, t);
    pl::store(z, t, {0, 0});
  });
  auto x = Tensor<float>::random({16, 16}, 9);
  auto z = Tensor<float>::zeros({16, 16});
  k[{.block_dim = 1}].run_sync(x, z);
  int64_t wrong = 0;
  for (int64_t r = 0; r < 16; ++r) {
    for (int64_t c = 0; c < 16; ++c) wrong += z[c * 16 + r] != x[r * 16 + c];
  }
  CHECK(wrong == 0);

  const auto narrow = pl::jit({.name = "transpose_too_big"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto s = pl::make_tile<float>(pl::Vec, {8, 32});
    auto d = pl::make_tile<float>(pl::Vec, {16, 8});  // 32 rows needed
    pl::load(s, x, {0, 0});
    pl::transpose(d, s);
    pl::store(z, d, {0, 0});
  });
  auto x2 = Tensor<float>::random({8, 32}, 10);
  auto z2 = Tensor<float>::full({16, 8}, 3.0f);
  const auto z20 = copy_of(z2);
  std::string msg;
  try {
    narrow[{.block_dim = 1}].run_sync(x2, z2);
  } catch (const UserError& e) {
    msg = e.what();
  }
  CHECK(msg.find("transpose") != std::string::npos);
  CHECK(msg.find("the result has 32 rows but the destination tile holds 16") != std::string::npos);
  CHECK(bitwise_equal(z2, z20));
}

template <class T>
T iota_value(int64_t v) {
  if constexpr (std::is_same_v<T, int32_t>) return static_cast<int32_t>(static_cast<uint32_t>(v));
  else if constexpr (std::is_same_v<T, int8_t>) return static_cast<int8_t>(static_cast<uint8_t>(v));
  else return T(static_cast<float>(v));  // nearest even, through float (exact below 2^24)
}

template <class T>
void check_iota(int64_t rows, int64_t cols, int64_t start, int block_dim) {
  CAPTURE(type_name<T>());
  CAPTURE(rows);
  CAPTURE(cols);
  CAPTURE(start);
  // Each of 3 blocks writes iota(start) of its rows x cols tile into its rows of z; idle cores
  // (block_dim > 3) write nothing, and the other elements of z keep their values.
  const auto k = pl::jit({.name = "iota_" + type_name<T>()}, [=](pl::Tensor<T> z) {
    auto t = pl::make_tile<T>(pl::Vec, {rows, cols});
    for (auto b : pl::range(pl::get_block_idx(), z.dim(0) / rows, pl::get_block_num())) {
      pl::iota(t, start);
      pl::store(z.slice(b * rows, rows, 0, cols), t);
    }
  });
  auto z = Tensor<T>::full({3 * rows, cols}, T(7));
  const LaunchProfile p = k[{.block_dim = block_dim}].run_sync(z);
  CHECK(p.races.empty());
  int64_t wrong = 0;
  for (int64_t b = 0; b < 3; ++b) {
    for (int64_t i = 0; i < rows * cols; ++i) wrong += !bits_equal(z[b * rows * cols + i], iota_value<T>(start + i));
  }
  CHECK(wrong == 0);
}

TEST_CASE("iota(dst, start): dst[r, c] = start + r * cols + c over the whole tile, converted as a result is written (integers "
          "wrap, floats round to nearest even); every dtype, idle cores") {
  check_iota<float>(8, 16, 0, 2);
  check_iota<float>(4, 64, -100, 5);              // idle cores: 3 tiles on 5 cores
  check_iota<half>(16, 256, 100, 3);              // up to 4195: past 2048 half rounds to even
  check_iota<bfloat16>(2, 256, 0, 1);             // past 256 bf16 rounds to even
  check_iota<int32_t>(8, 8, (int64_t{1} << 31) - 10, 2);  // wraps past INT32_MAX
  check_iota<int8_t>(4, 96, -5, 2);               // wraps past 127
}

TEST_CASE("a {1, n} iota broadcasts down the rows of a tile expression: every row gets its column indices, with tails") {
  const auto k = pl::jit({.name = "iota_broadcast"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    auto idx = pl::make_tile<float>(pl::Vec, {1, 64});
    auto t = pl::make_tile<float>(pl::Vec, {8, 64});
    pl::iota(idx);
    const int64_t rows = x.dim(0), cols = x.dim(1);
    for (auto b : pl::range(pl::get_block_idx(), pl::ceil_div(rows, 8), pl::get_block_num())) {
      auto nr = pl::min(8, rows - b * 8);
      pl::load(t, x.slice(b * 8, nr, 0, cols));
      t = t * 2.0f + idx;
      pl::store(z.slice(b * 8, nr, 0, cols), t);
    }
  });
  auto x = Tensor<float>::random({21, 50}, 12);
  auto z = Tensor<float>::zeros({21, 50});
  k[{.block_dim = 4}].run_sync(x, z);
  int64_t wrong = 0;
  for (int64_t r = 0; r < 21; ++r) {
    for (int64_t c = 0; c < 50; ++c) wrong += z[r * 50 + c] != x[r * 50 + c] * 2.0f + static_cast<float>(c);
  }
  CHECK(wrong == 0);
}

}  // namespace pto::correctness
