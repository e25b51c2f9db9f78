#include "pto/runtime/BlockRaces.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "pto/runtime/CompiledKernel.hpp"

namespace pto {
namespace {

struct Entry {
  Touch touch;
  bool write;
  int pipe;
  int core;
};

std::string describe(const CompiledKernel& k, const Entry& e, const std::function<std::string(int)>& core_name) {
  const auto& info = k.ir.instrs[e.touch.instr];
  return fmt::format("#{} {} [{} on {}] at {}", e.touch.instr, info.text, ir::pipe_name(static_cast<ir::Pipe>(e.pipe)),
                     core_name(e.core), info.loc.str());
}

}  // namespace

std::vector<RaceReport> find_block_races(const CompiledKernel& k, std::span<const CoreModel* const> cores, int per_block,
                                         const std::function<std::string(int core)>& core_name, size_t max_reports) {
  std::vector<RaceReport> out;
  std::map<std::tuple<std::string, int, int>, size_t> index;  // (kind, first instr, second instr) -> report
  const size_t tensors = k.ir.tensors.size();
  // Only tensors some core writes can race (the others are read by every block at will): count
  // their accesses first, so each is gathered into one buffer kept between launches.
  std::vector<bool> written(tensors, false);
  std::vector<size_t> count(tensors, 0);
  for (const CoreModel* m : cores) {
    if (!m) continue;
    for (const GmSpan& s : m->gm_spans()) {
      written[s.tensor] = written[s.tensor] || s.write;
      count[s.tensor] += 1;
    }
  }
  thread_local std::vector<Entry> entries;
  for (size_t t = 0; t < tensors; ++t) {
    if (!written[t]) continue;
    entries.clear();
    entries.reserve(count[t]);
    for (size_t c = 0; c < cores.size(); ++c) {
      if (!cores[c]) continue;
      for (const GmSpan& s : cores[c]->gm_spans()) {
        if (static_cast<size_t>(s.tensor) == t) entries.push_back({s.touch, s.write, s.pipe, static_cast<int>(c)});
      }
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.touch.lo < b.touch.lo; });
    std::vector<const Entry*> active;  // entries whose range may still reach the next ones
    for (const Entry& e : entries) {
      std::erase_if(active, [&](const Entry* a) { return a->touch.hi <= e.touch.lo; });
      for (const Entry* a : active) {
        if (!(a->write || e.write) || a->core / per_block == e.core / per_block || !a->touch.overlaps(e.touch)) continue;
        if (k.ir.instrs[a->touch.instr].atomic && k.ir.instrs[e.touch.instr].atomic) continue;  // atomic adds commute
        // Name the pair in core order: RAW when the lower block writes what the higher one reads.
        const Entry* first = a->core < e.core ? a : &e;
        const Entry* second = a->core < e.core ? &e : a;
        const std::string kind = first->write && second->write ? "WAW" : (first->write ? "RAW" : "WAR");
        const auto key = std::make_tuple(kind, first->touch.instr, second->touch.instr);
        if (auto it = index.find(key); it != index.end()) {
          out[it->second].count += 1;
          continue;
        }
        if (out.size() >= max_reports) continue;
        index[key] = out.size();
        RaceReport r;
        r.kind = kind;
        r.core = first->core;
        r.resource = fmt::format("GM tensor {}", k.ir.tensors[t].name);
        r.first_instr = first->touch.instr;
        r.second_instr = second->touch.instr;
        r.first = describe(k, *first, core_name);
        r.second = describe(k, *second, core_name);
        r.count = 1;
        r.between_blocks = true;
        out.push_back(std::move(r));
      }
      active.push_back(&e);
    }
  }
  return out;
}

}  // namespace pto
