// Mixing element types without pl::cast does not compile. The forms that overload resolution
// rejects are checked here with requires-expressions; the tile operators, which reject a mix
// with a static_assert (a readable message, but a hard error), are checked by the compile-fail
// tests in compile_fail/ (see CMakeLists.txt).
#include "error_common.hpp"

#include <type_traits>

namespace pto::error_test {
namespace {

using pto::bfloat16;
using pto::half;

template <class Dst, class Src>
concept CanLoad = requires(const Dst& d, const Src& s) { pl::load(d, s); };
template <class Dst, class Src>
concept CanStore = requires(const Dst& d, const Src& s) { pl::store(d, s); };
template <class Dst, class Value>
concept CanAssign = requires(Dst& d, const Value& v) { d = v; };
template <class A, class B>
concept CanAdd = requires(const A& a, const B& b) { a + b; };
template <class A, class B>
concept CanCompare = requires(const A& a, const B& b) { a < b; };
template <class D, class A>
concept CanRowSum = requires(const D& d, const A& a) { pl::row_sum(d, a); };
template <class U, class A>
concept CanCast = requires(const A& a) { pl::cast<U>(a); };

// Loads and stores: the tile and the tensor slice must have one element type.
static_assert(CanLoad<pl::Tile<float>, pl::Slice<float>>);
static_assert(!CanLoad<pl::Tile<float>, pl::Slice<half>>);
static_assert(!CanLoad<pl::Tile<half>, pl::Slice<bfloat16>>);
static_assert(!CanLoad<pl::Tile<int8_t>, pl::Slice<int32_t>>);
static_assert(CanStore<pl::Slice<half>, pl::Tile<half>>);
static_assert(!CanStore<pl::Slice<float>, pl::Tile<half>>);
static_assert(!CanStore<pl::Slice<int32_t>, pl::Tile<float>>);
// A float or int32 (Acc) tile may be stored into a half, bfloat16, int8 (or, from int32, float)
// tensor: FIX converts on the way out (lang::FixConversion; from Vec it is a trace-time error).
static_assert(CanStore<pl::Slice<half>, pl::Tile<float>>);
static_assert(CanStore<pl::Slice<bfloat16>, pl::Tile<float>>);
static_assert(CanStore<pl::Slice<int8_t>, pl::Tile<float>>);
static_assert(CanStore<pl::Slice<float>, pl::Tile<int32_t>>);
static_assert(!CanStore<pl::Slice<int32_t>, pl::Tile<half>>);

// Assignment: a tile takes an expression or tile of its own type (or a C++ number to fill).
static_assert(CanAssign<pl::Tile<float>, pl::TExpr<float>>);
static_assert(CanAssign<pl::Tile<float>, pl::Tile<float>>);
static_assert(CanAssign<pl::Tile<half>, float>);
static_assert(!CanAssign<pl::Tile<float>, pl::TExpr<half>>);
static_assert(!CanAssign<pl::Tile<float>, pl::Tile<half>>);
static_assert(!CanAssign<pl::Tile<int32_t>, pl::TExpr<float>>);
static_assert(!CanAssign<pl::Tile<bfloat16>, pl::TExpr<half>>);

// A 16-bit float value is not a C++ number operand: it must be a tile or be converted.
static_assert(CanAdd<pl::Tile<half>, float>);
static_assert(!CanAdd<pl::Tile<half>, half>);
static_assert(!CanAdd<pl::Tile<float>, bfloat16>);
static_assert(!CanCompare<pl::Tile<half>, half>);

// Row reductions write the source's type or float, nothing else.
static_assert(CanRowSum<pl::Tile<float>, pl::Tile<float>>);
static_assert(CanRowSum<pl::Tile<float>, pl::Tile<half>>);

// pl::cast is the way between types.
static_assert(CanCast<float, pl::Tile<half>>);
static_assert(CanCast<int8_t, pl::TExpr<float>>);
static_assert(std::is_same_v<decltype(pl::cast<half>(std::declval<pl::Tile<float>>())), pl::TExpr<half>>);

}  // namespace

TEST_CASE("the same kernel with pl::cast where the compile-fail tests mix dtypes compiles and runs") {
  // The positive control of compile_fail/dtype_mix.cpp.
  const auto k = pl::jit({.name = "cast_mix"}, [](pl::Tensor<float> x, pl::Tensor<half> y, pl::Tensor<float> z) {
    auto a = pl::make_tile<float>(pl::Vec, {64});
    auto b = pl::make_tile<half>(pl::Vec, {64});
    auto c = pl::make_tile<float>(pl::Vec, {64});
    pl::load(a, x.slice(0, 64));
    pl::load(b, y.slice(0, 64));
    c = pl::select(a < pl::cast<float>(b), a + pl::cast<float>(b), pl::max(a, pl::cast<float>(b) * 2));
    pl::store(z.slice(0, 64), c);
  });
  auto x = pto::Tensor<float>::random({64}, 1, -2, 2);
  auto y = pto::Tensor<half>::random({64}, 2, -2, 2);
  auto z = pto::Tensor<float>::zeros({64});
  k[{}](x, y, z);
  pto::synchronize();
  int bad = 0;
  for (int64_t i = 0; i < 64; ++i) {
    const float a = x[i], b = y[i];
    bad += z[i] != (a < b ? a + b : std::fmax(a, b * 2));
  }
  CHECK(bad == 0);
}

}  // namespace pto::error_test
