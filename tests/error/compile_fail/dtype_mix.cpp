// Must NOT compile for PTO_CASE 1..10: cases 1-5 mix element types without pl::cast, 6 takes tanh of an int tile, 7 broadcasts a pl::Float into an int tile, 8 declares a double parameter, 9 shifts a float tile, 10 writes argmax indices into a half tile. Built by
// the error_* compile-fail tests in ../CMakeLists.txt, which expect the library's readable
// static_assert message. (PTO_CASE 0 is the same code with casts: it compiles.)
#include <pto/pto.hpp>

namespace pl = pto::lang;

#ifndef PTO_CASE
#define PTO_CASE 0
#endif

int main() {
  const auto k = pl::jit({.name = "mix"}, [](pl::Tensor<float> x, pl::Tensor<pto::half> y, pl::Tensor<float> z) {
    auto a = pl::make_tile<float>(pl::Vec, {64});
    auto b = pl::make_tile<pto::half>(pl::Vec, {64});
    auto c = pl::make_tile<float>(pl::Vec, {64});
    auto r = pl::make_tile<pto::half>(pl::Vec, {8, 1});
    pl::load(a, x.slice(0, 64));
    pl::load(b, y.slice(0, 64));
#if PTO_CASE == 0
    c = a + pl::cast<float>(b);
    c = pl::max(a, pl::cast<float>(b) * 2);
    c = pl::select(a < pl::cast<float>(b), a, a);
    c = pl::select(a < 0, a, pl::cast<float>(b));
    pl::row_sum(r, b);
#elif PTO_CASE == 1
    c = a + b;  // float + half
#elif PTO_CASE == 2
    c = pl::max(a, b * 2);  // float, half expression
#elif PTO_CASE == 3
    c = pl::select(a < b, a, a);  // comparing float with half
#elif PTO_CASE == 4
    c = pl::select(a < 0, a, b);  // branches of different types
#elif PTO_CASE == 5
    pl::row_sum(r, a);  // a float row sum into a half tile
#elif PTO_CASE == 6
    auto i = pl::make_tile<int32_t>(pl::Vec, {64});
    i = pl::tanh(i);  // transcendental of an integer tile
#elif PTO_CASE == 10
    pl::row_argmax(r, b);  // indices into a half tile
#elif PTO_CASE == 11
    auto i = pl::make_tile<int32_t>(pl::Vec, {64});
    i = pl::pow(i, i);  // pow of integer tiles
#endif
    pl::store(z.slice(0, 64), c);
    (void)r;
  });
  (void)k;
#if PTO_CASE == 7
  const auto kf = pl::jit({.name = "float_into_int"}, [](pl::Tensor<int32_t> x, pl::Float s) {
    auto t = pl::make_tile<int32_t>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    t = t * s;  // a runtime float scalar into an integer tile
    pl::store(x.slice(0, 64), t);
  });
  (void)kf;
#elif PTO_CASE == 8
  const auto kd = pl::jit({.name = "double_param"}, [](pl::Tensor<float> x, double d) { (void)x; (void)d; });  // not a kernel parameter type
  (void)kd;
#elif PTO_CASE == 9
  const auto kb = pl::jit({.name = "bitwise_float"}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {64});
    pl::load(t, x.slice(0, 64));
    t = t << 2;  // shifts and bitwise operators are for integer tiles
    pl::store(x.slice(0, 64), t);
  });
  (void)kb;
#elif PTO_CASE == 12
  const auto kr = pl::jit({.name = "six_dims"}, [](pl::Tensor<float, pl::DYNAMIC, 8, 8, 2, 2, 2> x) { (void)x; });  // 6 declared dims
  (void)kr;
#endif
  return 0;
}
