#include "RacePolicy.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace pto::emulator {

void apply_race_policy(const CompiledKernel& k, const LaunchProfile& prof) {
  if (prof.races.empty() || k.on_race == OnRace::report) return;
  if (k.on_race == OnRace::warn) {
    std::string out;
    {
      std::lock_guard lock(k.printed_races->mu);
      for (const RaceReport& r : prof.races) {
        if (k.printed_races->seen.insert(fmt::format("{} {} {}", r.kind, r.first_instr, r.second_instr)).second) {
          out += fmt::format("pto: warning: kernel '{}' ({}): {}\n", k.ir.name, k.ir.specialization, r.message());
        }
      }
    }
    if (!out.empty()) std::fputs(out.c_str(), stderr);
    return;
  }
  std::string reason = fmt::format("{} race{} (on_race = fail):", prof.races.size(), prof.races.size() == 1 ? "" : "s");
  for (const RaceReport& r : prof.races) reason += "\n  " + r.message();
  const RaceReport& first = prof.races.front();
  ErrorSite site{.kernel = k.ir.name, .specialization = k.ir.specialization, .core = first.core};
  if (first.second_instr >= 0 && first.second_instr < static_cast<int>(k.ir.instrs.size())) {
    const auto& info = k.ir.instrs[static_cast<size_t>(first.second_instr)];
    site.pipe = ir::pipe_name(info.pipe);
    site.instruction = fmt::format("#{} {}", first.second_instr, info.text);
    site.loc = info.loc;
  }
  throw UserError(reason, std::move(site));
}

}  // namespace pto::emulator
