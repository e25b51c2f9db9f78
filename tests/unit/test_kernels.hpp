#pragma once
// Kernels shared by the unit tests.
#include <numeric>
#include <string>
#include <vector>

#include <pto/pto.hpp>

namespace pto::unit_test {

namespace pl = pto::lang;

/// z = x + y, tiles of `tile` elements with `buffers` slots per operand, strided over cores
/// (the same kernel as samples/01_vector_add).
template <class T>
auto make_vector_add(std::string name = "vector_add", int buffers = 2, int64_t tile = 1024, int opt_level = 2) {
  return pl::jit({.name = std::move(name), .opt_level = opt_level}, [buffers, tile](pl::Tensor<T> x, pl::Tensor<T> y, pl::Tensor<T> z) {
    pl::require(x.shape() == y.shape() && x.shape() == z.shape(), "x, y and z must have the same shape");
    const int64_t n = x.numel();
    const auto xf = x.view({n}), yf = y.view({n}), zf = z.view({n});  // any rank, seen as 1-D
    std::vector<int> slots(buffers);
    std::iota(slots.begin(), slots.end(), 0);
    auto xs = pl::make_tile_group<T>(pl::Vec, {tile}, slots);
    auto ys = pl::make_tile_group<T>(pl::Vec, {tile}, slots);
    auto zs = pl::make_tile_group<T>(pl::Vec, {tile}, slots);
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, tile), pl::get_block_num())) {
      auto off = t * tile;
      auto len = pl::min(tile, n - off);
      pl::load(xs.current(), xf.slice(off, len));
      pl::load(ys.current(), yf.slice(off, len));
      zs.current() = xs.current() + ys.current();
      pl::store(zf.slice(off, len), zs.current());
      xs.next();
      ys.next();
      zs.next();
    }
  });
}

}  // namespace pto::unit_test
