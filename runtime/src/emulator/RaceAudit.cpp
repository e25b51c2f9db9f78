#include "RaceAudit.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace pto::emulator {
namespace {

constexpr int64_t kMaxReachBits = int64_t{1} << 31;  // accessing ops x ops: 256 MiB of reach sets

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/// A region as rows of byte intervals: row r (r0 <= r <= r1) is [r * w + c0, r * w + c1).
struct Rows {
  int64_t w, r0, r1, c0, c1;
  static Rows of(const AuditAccess& a) {
    const int64_t u = a.unit_bytes, lo = a.lo * u, hi = a.hi * u;
    if (a.width <= 0) return {1, 0, 0, lo, hi};  // one interval
    const int64_t w = a.width * u;
    const int64_t r0 = floor_div(lo, w), c0 = lo - r0 * w;
    const int64_t r1 = floor_div(hi - c0 - 1, w), c1 = hi - r1 * w;
    if (c1 > w) return {1, 0, 0, lo, hi};  // not a rectangle of the view: the whole range
    return {w, r0, r1, c0, c1};
  }
  /// Whether some row of `o` meets the interval [s, e).
  bool meets(int64_t s, int64_t e) const {
    const int64_t lo = std::max(r0, floor_div(s - c1, w) + 1), hi = std::min(r1, ceil_div(e - c0, w) - 1);
    return lo <= hi;
  }
};

bool overlap(const AuditAccess& a, const AuditAccess& b) {
  Rows x = Rows::of(a), y = Rows::of(b);
  if (x.c1 <= x.c0 || y.c1 <= y.c0) return false;
  if (x.r1 - x.r0 > y.r1 - y.r0) std::swap(x, y);
  for (int64_t r = x.r0; r <= x.r1; ++r) {
    if (y.meets(r * x.w + x.c0, r * x.w + x.c1)) return true;
  }
  return false;
}

struct Node {
  int core;
  const AuditAccess* access;
};

}  // namespace

AuditResult audit_races(const CompiledKernel& k, std::span<const CoreModel* const> cores, int per_block) {
  // Ops of every core, numbered launch-wide.
  std::vector<int64_t> base(cores.size() + 1, 0);
  for (size_t c = 0; c < cores.size(); ++c) base[c + 1] = base[c] + static_cast<int64_t>(cores[c]->trace().ops.size());
  const int64_t n = base.back();
  // The accesses, by memory: (scope, owner, key) with owner the core (tiles), block (shared
  // tiles) or nobody (GM). First, so that a launch past the limit builds nothing more.
  std::map<std::tuple<int, int, int64_t>, std::vector<Node>> by_memory;
  std::vector<int64_t> sources;  // ops that touched memory
  for (size_t c = 0; c < cores.size(); ++c) {
    for (const AuditAccess& a : cores[c]->accesses()) {
      const int owner = a.scope == 0 ? static_cast<int>(c) : a.scope == 1 ? static_cast<int>(c) / per_block : -1;
      by_memory[{a.scope, owner, a.key}].push_back({static_cast<int>(c), &a});
      sources.push_back(base[c] + a.op);
    }
  }
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  if (static_cast<int64_t>(sources.size()) * n > kMaxReachBits) {
    return {.skipped = fmt::format("the race audit is for small launches: {} accessing ops x {} ops is past its limit of {} reachability bits; "
                                   "use a smaller shape or block_dim",
                                   sources.size(), n, kMaxReachBits)};
  }
  // Successors: each op's recorded deps, and the next op of its pipe.
  std::vector<std::vector<int64_t>> next(static_cast<size_t>(n));
  for (size_t c = 0; c < cores.size(); ++c) {
    const timing::CoreTrace& t = cores[c]->trace();
    std::array<int64_t, kPipeCount> last;
    last.fill(-1);
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const timing::TimedOp& op = t.ops[i];
      const int64_t self = base[c] + static_cast<int64_t>(i);
      for (uint32_t d = 0; d < op.dep_count; ++d) {
        const timing::OpRef& r = t.deps[op.dep_begin + d];
        next[static_cast<size_t>(base[static_cast<size_t>(r.core)] + r.op)].push_back(self);
      }
      if (op.kind == timing::OpKind::Barrier) continue;  // on no pipe: ordered by its deps only
      if (last[op.pipe] >= 0) next[static_cast<size_t>(last[op.pipe])].push_back(self);
      last[op.pipe] = self;
    }
  }
  // What each accessing op reaches, breadth first.
  const size_t words = static_cast<size_t>((n + 63) / 64);
  std::vector<uint64_t> reach(sources.size() * words, 0);
  std::vector<int64_t> queue;
  for (size_t s = 0; s < sources.size(); ++s) {
    uint64_t* bits = reach.data() + s * words;
    queue.assign(1, sources[s]);
    while (!queue.empty()) {
      const int64_t v = queue.back();
      queue.pop_back();
      for (const int64_t w : next[static_cast<size_t>(v)]) {
        uint64_t& word = bits[static_cast<size_t>(w / 64)];
        if (word & (uint64_t{1} << (w % 64))) continue;
        word |= uint64_t{1} << (w % 64);
        queue.push_back(w);
      }
    }
  }
  auto reaches = [&](int64_t from, int64_t to) {
    const size_t s = static_cast<size_t>(std::lower_bound(sources.begin(), sources.end(), from) - sources.begin());
    return (reach[s * words + static_cast<size_t>(to / 64)] >> (to % 64)) & 1;
  };
  // Every conflicting pair that neither op reaches.
  std::map<std::tuple<std::string, std::string, int, int>, RaceReport> found;
  for (const auto& [memory, nodes] : by_memory) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (size_t j = i + 1; j < nodes.size(); ++j) {
        const Node &x = nodes[i], &y = nodes[j];
        const AuditAccess &a = *x.access, &b = *y.access;
        if (!a.write && !b.write) continue;
        if (a.atomic && b.atomic) continue;
        if (x.core == y.core && a.pipe == b.pipe) continue;  // program order
        const int64_t u = base[static_cast<size_t>(x.core)] + a.op, v = base[static_cast<size_t>(y.core)] + b.op;
        if (u == v || reaches(u, v) || reaches(v, u)) continue;
        if (!overlap(a, b)) continue;
        const char* kind = a.write && b.write ? "WAW" : a.write ? "RAW" : "WAR";
        const auto [scope, owner, key] = memory;
        const std::string resource = scope == 2   ? fmt::format("GM memory {}", -key - 1)
                                     : scope == 1 ? fmt::format("shared tile {} of block {}", key, owner)
                                                  : fmt::format("tile slot {} of core {}", key, owner);
        auto [it, fresh] = found.try_emplace({kind, resource, a.instr, b.instr});
        RaceReport& r = it->second;
        if (fresh) {
          r.kind = kind;
          r.core = x.core;
          r.resource = resource;
          r.first_instr = a.instr;
          r.second_instr = b.instr;
          r.between_blocks = x.core / per_block != y.core / per_block;
          r.first = ir::describe_instr(k.ir, a.instr, ir::pipe_name(static_cast<ir::Pipe>(a.pipe)));
          r.second = ir::describe_instr(k.ir, b.instr, ir::pipe_name(static_cast<ir::Pipe>(b.pipe)));
        }
        ++r.count;
      }
    }
  }
  AuditResult out{.audited = true};
  for (auto& [key, r] : found) out.races.push_back(std::move(r));
  return out;
}

}  // namespace pto::emulator
