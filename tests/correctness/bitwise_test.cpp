// Bitwise operators and shifts on integer tiles (PyPTO Pro's and_/or_/xor_/not_/shl/shr; C++'s
// & | ^ ~ << >>), tile-tile, tile-scalar and destination-passing, against plain C++ with the
// shift rule of docs/semantics.md: the count is unsigned; at or past the width, << gives 0 and
// >> (arithmetic) the sign fill.
#include "common.hpp"

namespace pto::correctness {
namespace {

int32_t ref_shl(int32_t a, int32_t s) {
  const auto u = static_cast<uint32_t>(s);
  return u < 32 ? static_cast<int32_t>(static_cast<uint32_t>(a) << u) : 0;
}
int32_t ref_shr(int32_t a, int32_t s) {
  const auto u = static_cast<uint32_t>(s);
  return a >> (u < 32 ? u : 31);
}

template <class T>
T wrap(int32_t v) {
  return static_cast<T>(v);  // two's complement wrap (C++20)
}

}  // namespace

TEST_CASE_TEMPLATE("bitwise ops and shifts on integer tiles match plain C++ (counts past the width and negative included)", T, int32_t,
                   int8_t) {
  CAPTURE(type_name<T>());
  constexpr int64_t R = 7, C = 96;  // a tail in both dimensions against the 8 x 64 tiles
  const auto k = pl::jit({.name = "bitwise_" + type_name<T>()}, [](pl::Tensor<T> x, pl::Tensor<T> s, pl::Tensor<T> out) {
    auto a = pl::make_tile<T>(pl::Vec, {8, 64});
    auto n = pl::make_tile<T>(pl::Vec, {8, 64});
    auto z = pl::make_tile<T>(pl::Vec, {8, 64});
    for (auto c0 : pl::range(0, C, 64)) {
      auto cols = pl::min(64, C - c0);
      pl::load(a, x.slice(0, R, c0, cols));
      pl::load(n, s.slice(0, R, c0, cols));
      auto at = [&](int64_t k) { return out.slice(k * R, R, c0, cols); };
      z = a & n;
      pl::store(at(0), z);
      z = a | n;
      pl::store(at(1), z);
      z = a ^ n;
      pl::store(at(2), z);
      z = ~a;
      pl::store(at(3), z);
      z = a << n;
      pl::store(at(4), z);
      z = a >> n;
      pl::store(at(5), z);
      z = (a ^ 0x5a) >> 2;  // tile-scalar forms
      pl::store(at(6), z);
      pl::shl(z, a, 3);     // PyPTO Pro's destination-passing spellings
      pl::store(at(7), z);
      pl::and_(z, a, n);
      pl::or_(z, z, 1);
      pl::store(at(8), z);
      pl::not_(z, n);
      pl::xor_(z, z, a);
      pl::shr(z, z, 1);
      pl::store(at(9), z);
    }
  });
  auto x = test_data<T>({R, C}, 50, -128, 127, true);
  auto s = test_data<T>({R, C}, 51, -4, 40, false);  // counts: negative, in range, at and past the width
  auto out = Tensor<T>::full({10 * R, C}, T(77));
  const auto p = k[{.block_dim = 1}].run_sync(x, s, out);
  CHECK(p.races.empty());
  int64_t wrong = 0;
  for (int64_t i = 0; i < R * C; ++i) {
    const int32_t a = x[i], n = s[i];
    const int32_t want[10] = {a & n, a | n, a ^ n, ~a, ref_shl(a, n), ref_shr(a, n), ref_shr(a ^ 0x5a, 2), ref_shl(a, 3),
                              (a & n) | 1, ref_shr(static_cast<T>(~n) ^ a, 1)};
    for (int e = 0; e < 10; ++e) {
      const T got = out[e * R * C + i];
      if (got != wrap<T>(want[e])) {
        if (wrong < 5) MESSAGE("expr " << e << " element " << i << ": a " << a << " n " << n << " got " << int32_t(got) << " want " << int32_t(wrap<T>(want[e])));
        ++wrong;
      }
    }
  }
  CHECK(wrong == 0);
}

}  // namespace pto::correctness
