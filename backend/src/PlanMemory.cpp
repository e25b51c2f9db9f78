#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pto/backend/Passes.hpp"

namespace pto::backend {
namespace {

struct Range {
  int64_t lo, hi;  // bytes [lo, hi) of a memory
  int group;
};

ErrorSite group_site(const ir::Kernel& k, const ir::TileGroup& g) {
  return ErrorSite{.kernel = k.name, .specialization = k.specialization, .loc = g.loc};
}

/// A placed group (PyPTO Pro's addrs=): aligned, a constant step of at least its size, inside
/// its memory. Sets offset and slot_bytes; returns the bytes of its slots.
std::vector<Range> place_given(const ir::Kernel& k, ir::TileGroup& g, int index, int64_t size, const ChipProfile& chip) {
  const auto& lim = chip.limits(g.space);
  const char* mem = ir::mem_space_name(g.space);
  for (int64_t a : g.addrs) {
    PTO_USER_CHECK(a % lim.align == 0, group_site(k, g))
        << "tile " << g.name << " placed at byte " << a << " of " << mem << ", not a multiple of its " << lim.align << " B alignment";
    PTO_USER_CHECK(a + size <= lim.bytes, group_site(k, g))
        << "tile " << g.name << " placed at byte " << a << " of " << mem << " needs " << size << " B up to byte " << a + size
        << ", past the " << lim.bytes << " B the " << chip.name << " profile gives " << mem;
  }
  const int64_t step = g.depth > 1 ? g.addrs[1] - g.addrs[0] : size;
  for (int s = 1; s < g.depth; ++s) {
    PTO_USER_CHECK(g.addrs[static_cast<size_t>(s)] - g.addrs[static_cast<size_t>(s) - 1] == step && step >= size, group_site(k, g))
        << "the addrs of tile group " << g.name << " must rise by one constant step of at least its slot size (" << size
        << " B); got " << fmt::format("{}", fmt::join(g.addrs, ", "));
  }
  g.offset = g.addrs[0];
  g.slot_bytes = step;
  std::vector<Range> out;
  for (int64_t a : g.addrs) out.push_back({a, a + size, index});
  return out;
}

/// Two tiles at the same address see one set of bytes in their own layouts. The emulator keeps each
/// tile's elements in row-major order, which is the chip's order when both are ND, or both are the
/// same layout and shape, or both are one row or column of ND/DN (a [n, 1] DN tile and its [1, n]
/// ND view); any other pair would read the bytes in an order the emulator does not reproduce.
void check_alias(const ir::Kernel& k, const ir::TileGroup& a, const ir::TileGroup& b) {
  auto line = [](const ir::TileGroup& g) { return !ir::is_fractal(g.layout) && (g.rows == 1 || g.cols == 1); };
  const bool same = (a.layout == b.layout && a.rows == b.rows && a.cols == b.cols) ||
                    (a.layout == ir::Layout::ND && b.layout == ir::Layout::ND) || (line(a) && line(b));
  PTO_USER_CHECK(same, group_site(k, b))
      << "tiles " << a.name << " (" << ir::layout_name(a.layout) << " " << a.rows << "x" << a.cols << ") and " << b.name << " ("
      << ir::layout_name(b.layout) << " " << b.rows << "x" << b.cols << ") alias the same bytes of " << ir::mem_space_name(b.space)
      << " in different layouts: the chip reads the bytes of one in the other's order, which the emulator (keeping each tile's "
         "elements in logical order) does not model; alias tiles of one layout and shape, two ND tiles, or a [n, 1] DN tile and "
         "its [1, n] ND view";
}

}  // namespace

void plan_memory(ir::Kernel& k, const ChipProfile& chip) {
  std::array<std::vector<Range>, 6> taken;  // per space: the bytes placed so far
  // Placed groups first: their addresses are the kernel's; an overlap of two is an alias when the
  // slots start at the same byte (on purpose), otherwise reported as a warning.
  for (size_t i = 0; i < k.groups.size(); ++i) {
    auto& g = k.groups[i];
    if (g.addrs.empty()) continue;
    const int64_t size = g.bytes();
    auto& mine = taken[static_cast<size_t>(g.space)];
    for (const Range& r : place_given(k, g, static_cast<int>(i), size, chip)) {
      for (const Range& o : mine) {
        if (o.group == r.group || r.lo >= o.hi || o.lo >= r.hi) continue;
        if (r.lo == o.lo) {
          check_alias(k, k.groups[static_cast<size_t>(o.group)], g);
          continue;
        }
        k.warnings.push_back(fmt::format("tiles {} and {} overlap at bytes [{}, {}) of {} without starting at the same address: an "
                                         "accidental overlap? (tiles placed at the same address alias on purpose)",
                                         k.groups[static_cast<size_t>(o.group)].name, g.name, std::max(r.lo, o.lo), std::min(r.hi, o.hi),
                                         ir::mem_space_name(g.space)));
      }
      mine.push_back(r);
    }
  }
  // The others, in order, each at the lowest aligned offset clear of everything placed so far.
  std::array<int64_t, 6> need{};
  for (size_t i = 0; i < k.groups.size(); ++i) {
    auto& g = k.groups[i];
    if (!g.addrs.empty()) continue;
    const auto& lim = chip.limits(g.space);
    const int64_t bytes = g.bytes();
    g.slot_bytes = (bytes + lim.align - 1) / lim.align * lim.align;
    const int64_t total = g.slot_bytes * g.depth;
    auto& mine = taken[static_cast<size_t>(g.space)];
    int64_t at = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (const Range& r : mine) {
        if (at < r.hi && r.lo < at + total) {
          at = (r.hi + lim.align - 1) / lim.align * lim.align;
          moved = true;
        }
      }
    }
    g.offset = at;
    mine.push_back({at, at + total, static_cast<int>(i)});
    need[static_cast<size_t>(g.space)] = std::max(need[static_cast<size_t>(g.space)], at + total);
  }
  for (auto space : {ir::MemSpace::Vec, ir::MemSpace::Mat, ir::MemSpace::Left, ir::MemSpace::Right, ir::MemSpace::Acc}) {
    const int64_t used = need[static_cast<size_t>(space)];
    const int64_t cap = chip.limits(space).bytes;
    if (used <= cap) continue;
    std::string detail;
    SourceLoc first;
    for (const auto& g : k.groups) {
      if (g.space != space) continue;
      if (!first.known()) first = g.loc;
      detail += fmt::format("\n    {} {}x{}[{}x{}] at {}: {} x {} B = {} B{}", g.name, g.depth, dtype_name(g.dtype), g.rows, g.cols, g.loc.str(),
                            g.depth, g.slot_bytes, g.depth * g.slot_bytes, g.addrs.empty() ? "" : fmt::format(" (placed at {})", g.offset));
    }
    throw UserError(fmt::format("tiles in {} need {} B but the {} profile gives {} B ({} B over); shrink the tiles "
                                "or the group depth:{}",
                                ir::mem_space_name(space), used, chip.name, cap, used - cap, detail),
                    ErrorSite{.kernel = k.name, .specialization = k.specialization, .loc = first});
  }
}

}  // namespace pto::backend
