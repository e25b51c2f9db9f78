// PyPTO Pro's getval / setval (pto/lang/ElemAccess.hpp): one element of a Vec tile or a GM tensor
// read into a scalar or written from one on the scalar pipe, against plain C++. The examples of
// docs/zh/pypto_pro/api/SIMD-API/operation/.../getval.md and setval.md (a [64, 128] FP16 tile, a
// [2] FP32 tensor), every dtype, runtime offsets, the conversions of setval, scalars read from GM
// steering the kernel, and what the race checker says about the scalar pipe.
#include <random>

#include "common.hpp"

namespace pto::correctness {
namespace {

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("getval.md / setval.md: value = getval(tile_a, 0); setval(tile_a, 1, value) on a [64, 128] FP16 tile group, and "
          "scale = getval(scale_tensor, 0); setval(scale_tensor, 1, scale) on a [2] FP32 tensor outside any section") {
  const auto k = pl::jit({.name = "getval_setval_doc"}, [](pl::Tensor<half> a, pl::Tensor<float> scale_tensor) {
    auto scale = pl::getval(scale_tensor, 0);
    pl::setval(scale_tensor, 1, scale);
    pl::section_vector([&] {
      auto tile_a = pl::make_tile_group<half>(pl::Vec, {64, 128}, {0, 1});
      auto cur = tile_a.next();
      pl::load(cur, a, {0, 0});
      auto value = pl::getval(cur, 0);
      pl::setval(cur, 1, value);
      pl::store(a, cur, {0, 0});
    });
  });
  auto a = Tensor<half>::random({64, 128}, 11, -4, 4);
  const auto a0 = copy_of(a);
  auto s = Tensor<float>::zeros({2});
  s[0] = 0.3125f;
  s[1] = -7.0f;
  const LaunchProfile p = k[{.block_dim = 1}].run_sync(a, s);
  CHECK(p.races.empty());
  CHECK(s[1] == 0.3125f);
  CHECK(same_bits(a[1], a0[0]));
  int64_t changed = 0;
  for (int64_t i = 0; i < a.numel(); ++i) changed += i != 1 && !same_bits(a[i], a0[i]);
  CHECK(changed == 0);
}

template <class T>
void check_reverse_by_elements(int64_t rows, int64_t cols, uint64_t seed) {
  CAPTURE(type_name<T>());
  // Element by element at runtime offsets: dst_flat[n - 1 - i] = src_flat[i], over the declared
  // shape, whatever the valid extent (the load covers only the first row).
  const auto k = pl::jit({.name = "reverse_elems_" + type_name<T>()}, [=](pl::Tensor<T> src, pl::Tensor<T> dst) {
    auto s = pl::make_tile<T>(pl::Vec, {rows, cols});
    auto d = pl::make_tile<T>(pl::Vec, {rows, cols});
    pl::load(s, src, {0, 0});
    d = 0;
    const int64_t n = rows * cols;
    for (auto i : pl::range(0, n)) pl::setval(d, n - 1 - i, pl::getval(s, i));
    pl::store(dst, d, {0, 0});
  });
  auto src = Tensor<T>::random({rows, cols}, seed, -100, 100);
  auto dst = Tensor<T>::zeros({rows, cols});
  const LaunchProfile p = k[{.block_dim = 1}].run_sync(src, dst);
  CHECK(p.races.empty());
  int64_t wrong = 0;
  const int64_t n = rows * cols;
  for (int64_t i = 0; i < n; ++i) wrong += !same_bits(dst[n - 1 - i], src[i]);
  CHECK(wrong == 0);
}

TEST_CASE("getval / setval at runtime offsets move every dtype's elements bit for bit (reversing a tile element by element)") {
  check_reverse_by_elements<float>(4, 16, 1);
  check_reverse_by_elements<half>(2, 32, 2);
  check_reverse_by_elements<bfloat16>(2, 16, 3);
  check_reverse_by_elements<int32_t>(3, 8, 4);
  check_reverse_by_elements<int8_t>(2, 32, 5);
}

TEST_CASE("setval converts as a tile expression's result: integers wrap into i8 and i32, become the nearest f16 / bf16, a floating "
          "constant or a pl::Float rounds to nearest even; getval of an integer is a pl::Int (sign-extended)") {
  const auto k = pl::jit({.name = "setval_convert"}, [](pl::Tensor<int8_t> o8, pl::Tensor<int32_t> o32, pl::Tensor<half> oh,
                                                       pl::Tensor<bfloat16> ob, pl::Tensor<float> f, pl::Tensor<int32_t> big) {
    auto t8 = pl::make_tile<int8_t>(pl::Vec, {1, 32});
    auto t32 = pl::make_tile<int32_t>(pl::Vec, {1, 8});
    auto th = pl::make_tile<half>(pl::Vec, {1, 16});
    auto tb = pl::make_tile<bfloat16>(pl::Vec, {1, 16});
    t8 = 0;
    t32 = 0;
    th = 0;
    tb = 0;
    const pl::Int b = pl::getval(big, 0);  // 2^31 - 1 read as an i64
    pl::setval(t8, 0, 300);                // wraps to 44
    pl::setval(t8, 1, -129);               // wraps to 127
    pl::setval(t8, 2, b);                  // wraps to -1
    pl::setval(t32, 0, b + 1);             // wraps to INT32_MIN
    pl::setval(t32, 1, b * 2);             // 2^32 - 2 wraps to -2
    pl::setval(th, 0, 2049);               // the nearest f16 (ties to even): 2048
    pl::setval(th, 1, 0.1);                // nearest even f16 of 0.1
    pl::setval(th, 2, pl::getval(f, 0));   // a pl::Float from GM, rounded to f16
    pl::setval(tb, 0, 257);                // bf16: 256
    pl::setval(tb, 1, pl::getval(f, 0));
    pl::setval(f, 1, 2.5f);
    pl::setval(f, 2, b);                   // an integer into f32: the nearest float, 2^31
    pl::store(o8, t8, {0, 0});
    pl::store(o32, t32, {0, 0});
    pl::store(oh, th, {0, 0});
    pl::store(ob, tb, {0, 0});
  });
  auto o8 = Tensor<int8_t>::zeros({1, 32});
  auto o32 = Tensor<int32_t>::zeros({1, 8});
  auto oh = Tensor<half>::zeros({1, 16});
  auto ob = Tensor<bfloat16>::zeros({1, 16});
  auto f = Tensor<float>::zeros({4});
  f[0] = 1.00048828125f + 1.0f / 65536;  // between two f16 values, nearer the upper one
  auto big = Tensor<int32_t>::full({1}, INT32_MAX);
  const LaunchProfile p = k[{.block_dim = 1}].run_sync(o8, o32, oh, ob, f, big);
  CHECK(p.races.empty());
  CHECK(o8[0] == 44);
  CHECK(o8[1] == 127);
  CHECK(o8[2] == -1);
  CHECK(o32[0] == INT32_MIN);
  CHECK(o32[1] == -2);
  CHECK(static_cast<float>(oh[0]) == 2048.0f);
  CHECK(same_bits(oh[1], half(0.1f)));
  CHECK(same_bits(oh[2], half(f[0])));
  CHECK(static_cast<float>(ob[0]) == 256.0f);
  CHECK(same_bits(ob[1], bfloat16(f[0])));
  CHECK(f[1] == 2.5f);
  CHECK(f[2] == 2147483648.0f);
}

TEST_CASE("scalars read with getval steer the kernel: a count from GM bounds a runtime loop and a scale from a tile broadcasts into "
          "a tile expression") {
  const auto k = pl::jit({.name = "getval_steers"}, [](pl::Tensor<int32_t> count, pl::Tensor<float> params, pl::Tensor<float> x,
                                                      pl::Tensor<float> y) {
    const pl::Int n = pl::getval(count, 0);  // rows to process, decided at run time
    auto p = pl::make_tile<float>(pl::Vec, {1, 8});
    auto t = pl::make_tile<float>(pl::Vec, {1, 64});
    pl::load(p, params, {0, 0});
    pl::pipe_barrier(pl::Pipe::ALL);
    const pl::Float scale = pl::getval(p, 0);
    const pl::Float shift = pl::getval(p, 1);
    for (auto r : pl::range(0, n)) {
      pl::load(t, x, {r, 0});
      t = t * scale + shift;
      pl::store(y, t, {r, 0});
    }
  });
  auto count = Tensor<int32_t>::full({1}, 5);
  auto params = Tensor<float>::zeros({1, 8});
  params[0] = 1.5f;
  params[1] = -0.25f;
  auto x = Tensor<float>::random({8, 64}, 21, -2, 2);
  auto y = Tensor<float>::full({8, 64}, 9.0f);
  const LaunchProfile p = k[{.block_dim = 1}].run_sync(count, params, x, y);
  CHECK(p.races.empty());
  int64_t wrong = 0;
  for (int64_t r = 0; r < 8; ++r) {
    for (int64_t c = 0; c < 64; ++c) {
      const float want = r < 5 ? x[r * 64 + c] * 1.5f + -0.25f : 9.0f;
      wrong += y[r * 64 + c] != want;
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("the race checker sees the scalar pipe: getval of a tile MTE2 loads, unsynchronised, is a RAW race between MTE2 and S, "
          "as is getval of GM an earlier store wrote; a barrier orders both") {
  for (const bool synced : {false, true}) {
    CAPTURE(synced);
    const auto k = pl::jit({.name = synced ? "getval_synced" : "getval_racy", .auto_mutex = false, .on_race = pto::OnRace::report},
                           [=](pl::Tensor<float> x, pl::Tensor<float> y) {
                             auto t = pl::make_tile<float>(pl::Vec, {1, 8});
                             pl::load(t, x, {0, 0});
                             if (synced) pl::pipe_barrier(pl::Pipe::ALL);
                             pl::setval(y, 3, pl::getval(t, 2));
                             if (synced) pl::pipe_barrier(pl::Pipe::ALL);
                             pl::store(y, t, {0, 0});
                             if (synced) pl::pipe_barrier(pl::Pipe::ALL);
                             pl::setval(y, 0, pl::getval(y, 1));
                           });
    auto x = Tensor<float>::random({1, 8}, 31);
    auto y = Tensor<float>::zeros({1, 8});
    const LaunchProfile p = k[{.block_dim = 1}].run_sync(x, y);
    if (synced) {
      CHECK(p.races.empty());
      CHECK(y[0] == x[1]);
      CHECK(y[3] == x[3]);  // the store came after the setval
    } else {
      bool tile_race = false, gm_race = false;
      for (const auto& r : p.races) {
        const std::string m = r.message();
        INFO(m);
        tile_race |= r.kind == "RAW" && m.find("MTE2") != std::string::npos && m.find("getval") != std::string::npos;
        gm_race |= m.find("MTE3") != std::string::npos && m.find("getval") != std::string::npos;
      }
      CHECK(tile_race);
      CHECK(gm_race);
    }
  }
}

TEST_CASE("getval of a GM element beside a stored block, inside the block's linear span but outside its rows' columns, is no race; "
          "inside the block it is") {
  for (const bool inside : {false, true}) {
    CAPTURE(inside);
    const auto k = pl::jit({.name = inside ? "getval_in_block" : "getval_beside_block", .auto_mutex = false, .on_race = pto::OnRace::report},
                           [=](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
                             auto t = pl::make_tile<float>(pl::Vec, {4, 8});
                             pl::load(t, x, {0, 0});
                             pl::pipe_barrier(pl::Pipe::ALL);
                             pl::store(y.slice(0, 4, 0, 8), t);       // rows 0..3, columns 0..7 of a 4 x 64 tensor
                             pl::setval(z, 0, pl::getval(y, inside ? 64 + 3 : 64 + 40));  // row 1: column 3 or 40
                           });
    auto x = Tensor<float>::random({4, 8}, 33);
    auto y = Tensor<float>::full({4, 64}, 2.0f);
    auto z = Tensor<float>::zeros({1});
    const LaunchProfile p = k[{.block_dim = 1}].run_sync(x, y, z);
    CHECK(p.races.empty() == !inside);
  }
}

TEST_CASE("set_vec_mask / reset_mask / set_mask_count / set_mask_norm are accepted and, as PyPTO Pro documents for tile "
          "instructions, change nothing (reset_mask.md's example)") {
  const auto k = pl::jit({.name = "mask_noops"}, [](pl::Tensor<float> a, pl::Tensor<float> b, pl::Tensor<float> out) {
    pl::section_vector([&] {
      auto ta = pl::make_tile_group<float>(pl::Vec, {64, 64}, {0});
      auto tb = pl::make_tile_group<float>(pl::Vec, {64, 64}, {1});
      auto to = pl::make_tile_group<float>(pl::Vec, {64, 64}, {2});
      pl::load(ta.current(), a, {0, 0});
      pl::load(tb.current(), b, {0, 0});
      pl::set_vec_mask(0, 0xFFFFFFFF);
      pl::set_mask_count();
      pl::set_mask_norm();
      pl::reset_mask();
      pl::add(to.current(), ta.current(), tb.current());
      pl::store(out, to.current(), {0, 0});
    });
  });
  auto a = Tensor<float>::random({64, 64}, 41), b = Tensor<float>::random({64, 64}, 42);
  auto out = Tensor<float>::zeros({64, 64});
  k[{.block_dim = 1}].run_sync(a, b, out);
  int64_t wrong = 0;
  for (int64_t i = 0; i < out.numel(); ++i) wrong += out[i] != a[i] + b[i];
  CHECK(wrong == 0);
}

}  // namespace pto::correctness
