// A first kernel in a project of its own: find_package(pto), link pto::pto, write a kernel.
#include <cstdio>

#include <pto/pto.hpp>

namespace pl = pto::lang;

int main() {
  const auto saxpy = pl::jit({.name = "saxpy", .auto_mutex = true}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile_group<float>(pl::Vec, {1024}, {0, 1});
    auto u = pl::make_tile_group<float>(pl::Vec, {1024}, {2, 3});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(x.numel(), 1024), pl::get_block_num())) {
      auto off = i * 1024;
      auto len = pl::min(1024, x.numel() - off);
      pl::load(t.current(), x.slice(off, len));
      pl::load(u.current(), y.slice(off, len));
      u.current() = t.current() * 3.0f + u.current();
      pl::store(y.slice(off, len), u.current());
      t.next();
      u.next();
    }
  });
  auto x = pto::Tensor<float>::random({10000}, 1), y = pto::Tensor<float>::random({10000}, 2);
  auto want = y;
  std::vector<float> expected(10000);
  for (int i = 0; i < 10000; ++i) expected[i] = x[i] * 3.0f + y[i];
  saxpy[{.block_dim = 4}](x, y);
  pto::synchronize();
  int bad = 0;
  for (int i = 0; i < 10000; ++i) bad += y[i] != expected[i];
  std::printf("saxpy from an installed PTO-JIT: %s (%.2f us simulated)\n", bad == 0 ? "ok" : "WRONG", pto::last_launch()->device_us);
  return bad == 0 ? 0 : 1;
}
