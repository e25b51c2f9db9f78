#include <fmt/format.h>

#include "pto/backend/Passes.hpp"

namespace pto::backend {

void plan_memory(ir::Kernel& k, const ChipProfile& chip) {
  std::array<int64_t, 6> used{};
  for (auto& g : k.groups) {
    const auto& lim = chip.limits(g.space);
    const int64_t bytes = g.elems() * static_cast<int64_t>(dtype_size(g.dtype));
    g.slot_bytes = (bytes + lim.align - 1) / lim.align * lim.align;
    auto& top = used[static_cast<size_t>(g.space)];
    g.offset = top;
    top += g.slot_bytes * g.depth;
  }
  for (auto space : {ir::MemSpace::Vec, ir::MemSpace::Mat, ir::MemSpace::Left, ir::MemSpace::Right, ir::MemSpace::Acc}) {
    const int64_t need = used[static_cast<size_t>(space)];
    const int64_t cap = chip.limits(space).bytes;
    if (need <= cap) continue;
    std::string detail;
    SourceLoc first;
    for (const auto& g : k.groups) {
      if (g.space != space) continue;
      if (!first.known()) first = g.loc;
      detail += fmt::format("\n    {} {}x{}[{}x{}] at {}: {} x {} B = {} B", g.name, g.depth, dtype_name(g.dtype), g.rows,
                            g.cols, g.loc.str(), g.depth, g.slot_bytes, g.depth * g.slot_bytes);
    }
    throw UserError(fmt::format("tiles in {} need {} B but the {} profile gives {} B ({} B over); shrink the tiles "
                                "or the group depth:{}",
                                ir::mem_space_name(space), need, chip.name, cap, need - cap, detail),
                    ErrorSite{.kernel = k.name, .specialization = k.specialization, .loc = first});
  }
}

}  // namespace pto::backend
