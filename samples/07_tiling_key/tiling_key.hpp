#pragma once
// Sample 07: a TilingKey picks a specialised kernel on the host.
//
// y = x * 2 + 1 over a 1-D tensor. When the length is a multiple of the tile, every tile is full:
// the aligned specialisation moves whole tiles. Otherwise the generic specialisation computes
// each tile's valid length at run time and zero-pads the tile before loading it (so a short tail
// never exposes stale data to later instructions) — one extra vector instruction per tile. The
// host chooses the key from the shape; `if (key.aligned)` inside the kernel is plain C++, so each
// key value is its own kernel with no branch in the loop.
#include <numeric>

#include <boost/hana/define_struct.hpp>

#include "../common/Sample.hpp"
#include "../common/native/NativeKernels.hpp"
#include "../common/native/NativeRows.hpp"

namespace pto::samples::tiling_key {

namespace pl = pto::lang;

struct ScaleKey {
  BOOST_HANA_DEFINE_STRUCT(ScaleKey,
    (bool, aligned),                    // every tile is full: no tail handling
    (pto::KeyField<int, 1, 3>, buffers)); // tile-group depth, 1..3
};

inline constexpr int64_t kTile = 4096;

template <class T>
auto make_kernel(std::string chip = "a2") {
  return pl::jit({.name = "scale_bias", .auto_mutex = true, .chip = chip}, [](pl::Tensor<T> x, pl::Tensor<T> y) {
    pl::require(x.shape() == y.shape() && x.rank() == 1, "x and y are 1-D tensors of the same shape");
    const auto key = pl::tiling_key<ScaleKey>();       // trace-time constants
    const int64_t n = x.numel();
    pl::require(!key.aligned || n % kTile == 0, "the aligned key needs a length that is a multiple of the tile");
    std::vector<int> slots(key.buffers);
    std::iota(slots.begin(), slots.end(), 0);
    auto xs = pl::make_tile_group<T>(pl::Vec, {kTile}, slots);
    auto ys = pl::make_tile_group<T>(pl::Vec, {kTile}, slots);
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      auto off = t * kTile;
      if (key.aligned) {                               // specialised: whole tiles only
        pl::load(xs.current(), x.slice(off, kTile));
        ys.current() = xs.current() * 2.0f + 1.0f;
        pl::store(y.slice(off, kTile), ys.current());
      } else {                                         // generic: runtime length, zero-padded tile
        auto len = pl::min(kTile, n - off);
        xs.current() = 0.0f;
        pl::load(xs.current(), x.slice(off, len));
        ys.current() = xs.current() * 2.0f + 1.0f;
        pl::store(y.slice(off, len), ys.current());
      }
      xs.next();
      ys.next();
    }
  });
}

/// The key a host tiling function picks for this shape.
inline ScaleKey choose_key(int64_t n, int buffers = 2) { return ScaleKey{n % kTile == 0, buffers}; }

template <class T>
void reference(const Tensor<T>& x, Tensor<T>& y) {
  for (int64_t i = 0; i < x.numel(); ++i) y[i] = T(static_cast<float>(x[i]) * 2.0f + 1.0f);
}

/// What `pto tune tiling_key` searches: block_dim and the TilingKey's fields (aligned=0 forces the
/// generic path; 1 takes the fast path where the shape allows it).
struct Tunables {
  BOOST_HANA_DEFINE_STRUCT(Tunables,
    (KeyValues<int, 1, 2, 4, 8, 16, 24, 32, 40, 48>, block_dim),
    (KeyField<int, 1, 3>, buffers),
    (bool, aligned));
};

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "tiling_key";
  info.tunables = tune_space_of<Tunables>();
  info.about = "y = x * 2 + 1 with a TilingKey: aligned fast path versus generic tail path";
  info.default_shape = {1 << 20};
  info.prepare = [](const SampleArgs& a) {
    return dispatch_float_dtype(a.dtype, [&]<class T>() {
      PTO_USER_CHECK(a.shape.size() == 1, ErrorSite{}) << "tiling_key takes a 1-D --shape N";
      auto kernel = std::make_shared<decltype(make_kernel<T>())>(make_kernel<T>(a.chip));
      auto x = Tensor<T>::random(a.shape, 1);
      auto y = Tensor<T>::zeros(a.shape);
      // --param aligned=0 forces the generic path on any shape
      ScaleKey key = choose_key(x.numel(), static_cast<int>(a.param("buffers", 2)));
      if (a.param("aligned", 1) == 0) key.aligned = false;
      const int bd = a.block_dim;
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd, .tiling_key = key}](x, y); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd, .tiling_key = key}].run_sync(x, y); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd, .tiling_key = key}].compile(x, y); };
      run.verify = [=] {
        auto want = Tensor<T>::zeros(a.shape);
        reference(x, want);
        Verdict v;
        v.max_abs_error = max_abs_diff(y, want);
        v.ok = v.max_abs_error == 0;
        return v;
      };
      run.native_about = "native::affine_row (x * 2 + 1) on TBB (GCC -O3, AVX-512/AVX2 clones; half and bfloat16 widened to float 512 "
                         "elements at a time and rounded back, counted in its time)";
      run.native = [=]() mutable {
        native::for_each_chunk<T, 1>({x.data()}, y.data(), x.numel(),
                                     [](const auto& in, float* out, int64_t n) { native::affine_row(in[0], out, n, 2.0f, 1.0f); });
      };
      run.gm_bytes = 2 * static_cast<int64_t>(x.bytes());
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::tiling_key
