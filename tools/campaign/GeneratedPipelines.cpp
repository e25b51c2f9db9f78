// The campaign's generated subjects: multi-buffered vector pipelines
//   x --MTE2--> in --V--> mid_1 .. mid_k --V--> out --MTE3--> z    (tiles strided over the blocks)
// ordered by auto_mutex, by the flags a hand-written kernel sets (as sample 01's sync=manual), or
// by pipe_barrier(ALL) after each step; optionally in place (z is x: one buffer passed twice), and
// optionally a second phase after a sync_all in which each block reads a tile of z another block
// wrote and stores it, scaled, into w.
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "SyncCampaign.hpp"

namespace pto::campaign {
namespace {

namespace pl = pto::lang;
using pl::Pipe;

enum class Style { automatic, flags, barriers };
const char* style_name(Style s) { return s == Style::automatic ? "auto_mutex" : s == Style::flags ? "flags" : "barriers"; }

struct Pipeline {
  int64_t n = 1024, tile = 256;
  int depth = 2, stages = 1, block_dim = 2;
  Style style = Style::automatic;
  bool two_phase = false;
  bool in_place = false;

  std::string name() const {
    return fmt::format("pipeline n={} tile={} depth={} stages={} block_dim={} {}{}{}", n, tile, depth, stages, block_dim, style_name(style),
                       in_place ? " in place" : "", two_phase ? " +sync_all phase" : "");
  }
};

auto make_kernel(const Pipeline& c) {
  const JitOptions options{.name = "campaign_pipeline", .auto_mutex = c.style == Style::automatic};
  return pl::jit(options, [c](pl::Tensor<float> x, pl::Tensor<float> z, pl::Tensor<float> w) {
    const int64_t tiles = (c.n + c.tile - 1) / c.tile;
    std::vector<int> slots(static_cast<size_t>(c.depth));
    std::iota(slots.begin(), slots.end(), 0);
    auto in = pl::make_tile_group<float>(pl::Vec, {c.tile}, slots);
    auto out = pl::make_tile_group<float>(pl::Vec, {c.tile}, slots);
    std::vector<pl::TileGroup<float>> mids;
    for (int k = 1; k < c.stages; ++k) mids.push_back(pl::make_tile_group<float>(pl::Vec, {c.tile}, slots));
    const bool flags = c.style == Style::flags, barriers = c.style == Style::barriers;
    if (flags) {
      for (int s = 0; s < c.depth; ++s) {
        pl::set_flag(Pipe::V, Pipe::MTE2, s);
        pl::set_flag(Pipe::MTE3, Pipe::V, s);
      }
    }
    for (auto t : pl::range(pl::get_block_idx(), pl::Int(tiles), pl::get_block_num())) {
      auto off = t * c.tile;
      auto len = pl::min(c.tile, c.n - off);
      auto s = in.slot();
      if (flags) pl::wait_flag(Pipe::V, Pipe::MTE2, s);
      pl::load(in.current(), x.slice(off, len));
      if (flags) {
        pl::set_flag(Pipe::MTE2, Pipe::V, s);
        pl::wait_flag(Pipe::MTE2, Pipe::V, s);
        pl::wait_flag(Pipe::MTE3, Pipe::V, s);
      }
      if (barriers) pl::pipe_barrier(Pipe::ALL);
      for (size_t k = 0; k < mids.size(); ++k) {
        if (k == 0) {
          mids[k].current() = in.current() * 2.0f + 1.0f;
        } else {
          mids[k].current() = mids[k - 1].current() - in.current();
        }
      }
      if (mids.empty()) {
        out.current() = in.current() * in.current();
      } else {
        out.current() = mids.back().current() + in.current();
      }
      if (flags) {
        pl::set_flag(Pipe::V, Pipe::MTE2, s);
        pl::set_flag(Pipe::V, Pipe::MTE3, s);
        pl::wait_flag(Pipe::V, Pipe::MTE3, s);
      }
      if (barriers) pl::pipe_barrier(Pipe::ALL);
      pl::store(z.slice(off, len), out.current());
      if (flags) pl::set_flag(Pipe::MTE3, Pipe::V, s);
      if (barriers) pl::pipe_barrier(Pipe::ALL);
      in.next();
      out.next();
      for (auto& m : mids) m.next();
    }
    if (flags) {
      for (int s = 0; s < c.depth; ++s) {
        pl::wait_flag(Pipe::V, Pipe::MTE2, s);
        pl::wait_flag(Pipe::MTE3, Pipe::V, s);
      }
    }
    if (!c.two_phase) return;
    // Phase 2: tile t of w from tile t + 1 of z, which another block (or this one) stored.
    pl::sync_all();
    auto back = pl::make_tile_group<float>(pl::Vec, {c.tile}, {0});
    for (auto t : pl::range(pl::get_block_idx(), pl::Int(tiles), pl::get_block_num())) {
      auto src = ((t + 1) % tiles) * c.tile;
      auto len = pl::min(c.tile, c.n - src);
      pl::load(back.current(), z.slice(src, len));
      if (c.style != Style::automatic) pl::pipe_barrier(Pipe::ALL);
      back.current() = back.current() * 0.5f;
      if (c.style != Style::automatic) pl::pipe_barrier(Pipe::ALL);
      pl::store(w.slice(t * c.tile, len), back.current());
      if (c.style != Style::automatic) pl::pipe_barrier(Pipe::ALL);
    }
  });
}

}  // namespace

std::vector<Subject> generated_subjects(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  std::vector<Subject> out;
  for (int i = 0; i < count; ++i) {
    Pipeline c;
    c.tile = 64 * (1 + pick(4));
    c.n = c.tile * (1 + pick(12)) - (pick(2) ? pick(static_cast<int>(c.tile)) : 0);
    c.depth = 1 + pick(3);
    c.stages = 1 + pick(3);
    c.block_dim = 1 + pick(4);
    c.style = static_cast<Style>(pick(3));
    c.two_phase = pick(2) == 1;
    c.in_place = pick(4) == 0;
    // Phase 2 stores tile t of w with the length of tile t + 1 of z: keep the tail in the last
    // tile by giving phase 2 whole tiles only.
    if (c.two_phase) c.n = c.n / c.tile * c.tile;
    if (c.n <= 0) c.n = c.tile;
    const uint64_t data = seed + static_cast<uint64_t>(i);
    Subject s;
    s.name = c.name();
    // Each run gets fresh tensors (mutants run side by side; an in-place run rewrites x).
    s.run = [c, data] {
      auto in = Tensor<float>::random({c.n}, data), z = Tensor<float>::zeros({c.n}), w = Tensor<float>::zeros({c.n});
      return make_kernel(c)[{.block_dim = c.block_dim}].run_sync(in, c.in_place ? in : z, w);
    };
    s.compile = [c, data] {
      auto x = Tensor<float>::random({c.n}, data), z = Tensor<float>::zeros({c.n}), w = Tensor<float>::zeros({c.n});
      return make_kernel(c)[{.block_dim = c.block_dim}].compile(x, c.in_place ? x : z, w);
    };
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace pto::campaign
