#pragma once
// Sample 01: z = x + y over a 1-D tensor.
//
// The work is cut into tiles of `tile` elements; tile t goes to core t % block_dim (strided
// assignment, so every core gets an even share). Each core keeps `buffers` slots per operand
// in its UB (a tile group): while one slot is being added the next can already be loading —
// double buffering. The last tile of the tensor may be short (a tail): the load sets the tile's
// valid length and the add and store follow it.
#include <numeric>

#include "../common/Sample.hpp"
#include "../common/native/NativeKernels.hpp"
#include "../common/native/NativeRows.hpp"

namespace pto::samples::vector_add {

namespace pl = pto::lang;

struct Params {
  int buffers = 2;                     // slots per tile group: 1 = single, 2 = double buffering
  int64_t tile = 8192;                 // elements per tile
  SyncMode sync = SyncMode::automatic; // auto_mutex, hand-written flags, or none (racy on purpose)
  std::string chip = "a2";
  bool timing = true;                  // simulate pipe timing and check races (off: functional only)
  bool race_check = true;              // with timing: check races (off: timing only)
};

template <class T>
auto make_kernel(Params p) {
  return pl::jit(jit_options("vector_add", p.sync, p.chip, p.timing, p.race_check), [p](pl::Tensor<T> x, pl::Tensor<T> y, pl::Tensor<T> z) {
    pl::require(x.shape() == y.shape() && x.shape() == z.shape(), "x, y and z must have the same shape");
    pl::require(x.rank() == 1, "vector_add takes 1-D tensors");
    const int64_t n = x.numel();                                       // trace-time constant
    std::vector<int> slots(p.buffers);
    std::iota(slots.begin(), slots.end(), 0);
    auto xs = pl::make_tile_group<T>(pl::Vec, {p.tile}, slots);       // (tile) x buffers
    auto ys = pl::make_tile_group<T>(pl::Vec, {p.tile}, slots);
    auto zs = pl::make_tile_group<T>(pl::Vec, {p.tile}, slots);
    const bool manual = p.sync == SyncMode::manual;
    using pl::Pipe;
    if (manual) {  // every slot starts free: prime the "slot released" flags
      for (int s = 0; s < p.buffers; ++s) {
        pl::set_flag(Pipe::V, Pipe::MTE2, s);   // x/y slot s may be loaded
        pl::set_flag(Pipe::MTE3, Pipe::V, s);   // z slot s may be written
      }
    }
    for (auto t : pl::range(pl::get_block_idx(), pl::ceil_div(n, p.tile), pl::get_block_num())) {
      auto off = t * p.tile;
      auto len = pl::min(p.tile, n - off);                            // tail tile: shorter
      auto s = xs.slot();                                             // the slot = the event id
      if (manual) pl::wait_flag(Pipe::V, Pipe::MTE2, s);              // WAR: the add that read x/y[s] is done
      pl::load(xs.current(), x.slice(off, len));
      pl::load(ys.current(), y.slice(off, len));
      if (manual) {
        pl::set_flag(Pipe::MTE2, Pipe::V, s);                         // RAW: x/y[s] loaded
        pl::wait_flag(Pipe::MTE2, Pipe::V, s);
        pl::wait_flag(Pipe::MTE3, Pipe::V, s);                        // WAR: the store that read z[s] is done
      }
      zs.current() = xs.current() + ys.current();                     // one fused vector instruction
      if (manual) {
        pl::set_flag(Pipe::V, Pipe::MTE2, s);                         // x/y[s] free again
        pl::set_flag(Pipe::V, Pipe::MTE3, s);                         // RAW: z[s] computed
        pl::wait_flag(Pipe::V, Pipe::MTE3, s);
      }
      pl::store(z.slice(off, len), zs.current());
      if (manual) pl::set_flag(Pipe::MTE3, Pipe::V, s);               // z[s] free again
      xs.next();
      ys.next();
      zs.next();
    }
    if (manual) {  // drain: consume the flags still set, so every transfer has finished
      for (int s = 0; s < p.buffers; ++s) {
        pl::wait_flag(Pipe::V, Pipe::MTE2, s);
        pl::wait_flag(Pipe::MTE3, Pipe::V, s);
      }
    }
  });
}

/// Plain C++: each element computed in float (int32 for integers), rounded once to T.
template <class T>
void reference(const Tensor<T>& x, const Tensor<T>& y, Tensor<T>& z) {
  for (int64_t i = 0; i < x.numel(); ++i) {
    if constexpr (std::is_integral_v<T>) {
      z[i] = static_cast<T>(static_cast<int32_t>(x[i]) + static_cast<int32_t>(y[i]));
    } else {
      z[i] = T(static_cast<float>(x[i]) + static_cast<float>(y[i]));
    }
  }
}

/// What `pto tune vector_add` searches (block_dim up to a2's 48 AIV cores).
struct Tunables {
  BOOST_HANA_DEFINE_STRUCT(Tunables,
    (KeyValues<int, 1, 2, 4, 8, 16, 24, 32, 40, 48>, block_dim),
    (KeyField<int, 1, 4>, buffers),
    (KeyValues<int, 1024, 2048, 4096, 8192, 16384>, tile));
};

inline SampleInfo sample() {
  SampleInfo info;
  info.name = "vector_add";
  info.about = "z = x + y, double-buffered tiles spread over cores, tails";
  info.default_shape = {1 << 20};
  info.tunables = tune_space_of<Tunables>();
  info.prepare = [](const SampleArgs& a) {
    return dispatch_float_dtype(a.dtype, [&]<class T>() {
      PTO_USER_CHECK(a.shape.size() == 1, ErrorSite{}) << "vector_add takes a 1-D --shape N";
      Params p{static_cast<int>(a.param("buffers", 2)), a.param("tile", 8192), parse_sync(a.text_param("sync", "auto")), a.chip};
      PTO_USER_CHECK(p.buffers >= 1 && p.buffers <= 16, ErrorSite{}) << "--param buffers must be 1..16";
      auto kernel = std::make_shared<decltype(make_kernel<T>(p))>(make_kernel<T>(p));
      auto x = Tensor<T>::random(a.shape, 1), y = Tensor<T>::random(a.shape, 2);
      auto z = Tensor<T>::zeros(a.shape);
      const int bd = a.block_dim;
      PreparedRun run;
      run.launch = [=] { (*kernel)[{.block_dim = bd}](x, y, z); };
      run.run_sync = [=] { return (*kernel)[{.block_dim = bd}].run_sync(x, y, z); };
      run.compile = [=] { return (*kernel)[{.block_dim = bd}].compile(x, y, z); };
      run.verify = [=] {
        auto want = Tensor<T>::zeros(a.shape);
        reference(x, y, want);
        Verdict v;
        v.max_abs_error = max_abs_diff(z, want);
        v.ok = v.max_abs_error == 0;  // one rounding in both: bit-exact
        return v;
      };
      run.native_about = "native::add_row on TBB (GCC -O3, AVX-512/AVX2 clones; half and bfloat16 widened to float 512 elements at a time "
                         "and rounded back, counted in its time)";
      run.native = [=]() mutable {
        native::for_each_chunk<T, 2>({x.data(), y.data()}, z.data(), x.numel(),
                                     [](const auto& in, float* out, int64_t n) { native::add_row(in[0], in[1], out, n); });
      };
      run.gm_bytes = 3 * static_cast<int64_t>(x.bytes());
      return run;
    });
  };
  return info;
}

}  // namespace pto::samples::vector_add
