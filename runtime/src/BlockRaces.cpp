#include "pto/runtime/BlockRaces.hpp"

#include <algorithm>
#include <limits>
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
  int tensor;
  int epoch;
};

/// A sync_all between the two: both cores take part and passed different numbers of them.
bool apart(const Entry& a, const Entry& b) { return a.epoch >= 0 && b.epoch >= 0 && a.epoch != b.epoch; }

bool sweep_order(const Entry& a, const Entry& b) { return std::tie(a.tensor, a.touch.lo) < std::tie(b.tensor, b.touch.lo); }

/// Sorts `all` in sweep order, `runs` the starts of its runs (one a core). A core's accesses
/// usually come in order (a stream's tiles): the runs are then merged in pairs, linear per round,
/// ties in core order (vector_add 16M, 8 cores' 2048 stores: std::sort was 0.24% of the timed
/// benchmark's samples beside 0.33% for the rest of the check; merged, the whole check is 0.39%).
void sort_runs(std::vector<Entry>& all, std::vector<size_t>& runs) {
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto from = all.begin() + static_cast<std::ptrdiff_t>(runs[i]);
    const auto to = i + 1 < runs.size() ? all.begin() + static_cast<std::ptrdiff_t>(runs[i + 1]) : all.end();
    if (!std::is_sorted(from, to, sweep_order)) return std::sort(all.begin(), all.end(), sweep_order);
  }
  thread_local std::vector<Entry> merged;
  while (runs.size() > 1) {
    merged.resize(all.size());
    size_t kept = 0;
    for (size_t i = 0; i < runs.size(); i += 2) {
      const size_t lo = runs[i], mid = i + 1 < runs.size() ? runs[i + 1] : all.size(), hi = i + 2 < runs.size() ? runs[i + 2] : all.size();
      auto at = [&](size_t j) { return all.begin() + static_cast<std::ptrdiff_t>(j); };
      std::merge(at(lo), at(mid), at(mid), at(hi), merged.begin() + static_cast<std::ptrdiff_t>(lo), sweep_order);
      runs[kept++] = lo;
    }
    runs.resize(kept);
    all.swap(merged);
  }
}

std::string describe(const CompiledKernel& k, const Entry& e, const std::function<std::string(int)>& core_name) {
  return ir::describe_instr(k.ir, e.touch.instr, fmt::format("{} on {}", ir::pipe_name(static_cast<ir::Pipe>(e.pipe)), core_name(e.core)));
}

}  // namespace

std::vector<RaceReport> find_block_races(const CompiledKernel& k, std::span<const CoreModel* const> cores, int per_block,
                                         const std::function<std::string(int core)>& core_name, std::span<const int> memory_of,
                                         size_t max_reports) {
  std::vector<RaceReport> out;
  std::map<std::tuple<std::string, int, int>, size_t> index;  // (kind, first instr, second instr) -> report
  // Only tensors some core writes can race (the others are read by every block at will): their
  // accesses are gathered in one pass into a buffer kept between launches, ordered by tensor and
  // first element, and swept tensor by tensor.
  std::vector<bool> written(k.ir.tensors.size(), false);
  for (const CoreModel* m : cores) {
    if (!m) continue;
    m->for_each_gm_span([&](const GmSpan& s) { written[s.tensor] = written[s.tensor] || s.write; });
  }
  thread_local std::vector<Entry> all;
  thread_local std::vector<size_t> runs;  // where each core's entries begin
  all.clear();
  runs.clear();
  for (size_t c = 0; c < cores.size(); ++c) {
    if (!cores[c]) continue;
    runs.push_back(all.size());
    cores[c]->for_each_gm_span([&](const GmSpan& s) {
      if (written[s.tensor]) all.push_back({s.touch, s.write, s.pipe, static_cast<int>(c), s.tensor, s.epoch});
    });
  }
  sort_runs(all, runs);
  const size_t blocks = cores.size() / static_cast<size_t>(std::max(1, per_block)) + 1;
  for (auto from = all.begin(); from != all.end();) {
    const int t = from->tensor;
    const auto to = std::find_if(from, all.end(), [&](const Entry& e) { return e.tensor != t; });
    const std::span<const Entry> entries(from, to);
    from = to;
    // Entries whose range may still reach the next ones, in sweep order, with how many each block
    // has there and the lowest end among them: the list is pruned only when some entry has ended,
    // and scanned only when another block has one (a block's repeated accesses to its own part of
    // a workspace pile up there and never race with each other).
    std::vector<const Entry*> active;
    std::vector<size_t> active_of_block(blocks, 0);
    int64_t first_end = std::numeric_limits<int64_t>::max();
    for (const Entry& e : entries) {
      if (e.touch.lo >= first_end) {
        first_end = std::numeric_limits<int64_t>::max();
        std::erase_if(active, [&](const Entry* a) {
          const bool ended = a->touch.hi <= e.touch.lo;
          if (ended) {
            --active_of_block[static_cast<size_t>(a->core / per_block)];
          } else {
            first_end = std::min(first_end, a->touch.hi);
          }
          return ended;
        });
      }
      const auto block = static_cast<size_t>(e.core / per_block);
      auto join = [&] {
        active.push_back(&e);
        ++active_of_block[block];
        first_end = std::min(first_end, e.touch.hi);
      };
      if (active_of_block[block] == active.size()) {  // only this block's: nothing to compare
        join();
        continue;
      }
      for (const Entry* a : active) {
        if (!(a->write || e.write) || a->core / per_block == e.core / per_block || apart(*a, e) || !a->touch.overlaps(e.touch)) continue;
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
        r.resource = gm_memory_name(&k, t, memory_of);
        r.first_instr = first->touch.instr;
        r.second_instr = second->touch.instr;
        r.first = describe(k, *first, core_name);
        r.second = describe(k, *second, core_name);
        r.count = 1;
        r.between_blocks = true;
        out.push_back(std::move(r));
      }
      join();
    }
  }
  return out;
}

}  // namespace pto
