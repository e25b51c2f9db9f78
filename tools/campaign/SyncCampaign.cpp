#include "SyncCampaign.hpp"

#include <atomic>
#include <chrono>
#include <optional>

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <pto/backend/SyncRemoval.hpp>
#include <pto/runtime/Emulator.hpp>

namespace pto::campaign {
namespace {

/// The options every campaign run takes: the interpreter (no compile per mutant), races
/// reported only (never printed, never fatal), and the given mutation.
OptionOverrides overrides(int site) { return {.interpret = true, .remove_sync = site, .on_race = OnRace::report}; }

std::string first_race(const std::vector<RaceReport>& races) { return races.empty() ? "" : races.front().message(); }

/// One mutant: removes `site`, runs, and holds the checker against the audit.
Mutant run_mutant(const Subject& s, int site, const std::string& sync) {
  Mutant m{.subject = s.name, .site = site, .sync = sync};
  try {
    ScopedOptionOverrides scope(overrides(site));
    const LaunchProfile p = s.run();
    if (!p.audited) throw UserError("not audited: " + (p.warnings.empty() ? std::string("race checking is off") : p.warnings.back()), {});
    m.checker_races = p.races.size();
    m.audit_races = p.audit_races.size();
    const bool real = !p.audit_races.empty(), reported = !p.races.empty();
    m.verdict = real ? (reported ? Verdict::caught : Verdict::missed) : (reported ? Verdict::false_alarm : Verdict::redundant);
    m.detail = real && !reported ? "audit: " + first_race(p.audit_races) : reported && !real ? "checker: " + first_race(p.races) : "";
  } catch (const std::exception& e) {
    m.verdict = Verdict::error;
    m.detail = e.what();
  }
  return m;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::caught: return "caught";
    case Verdict::missed: return "missed";
    case Verdict::false_alarm: return "false alarm";
    case Verdict::redundant: return "redundant";
    case Verdict::error: return "error";
  }
  return "?";
}

Summary run(const std::vector<Subject>& subjects, const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  struct Audit {  // on for the campaign, off again however it ends
    Audit() { set_race_audit(true); }
    ~Audit() { set_race_audit(false); }
  } audit;
  Summary sum;
  sum.subjects = static_cast<int>(subjects.size());
  // Baselines and the sites of every subject (sequential: each compiles its kernel once).
  struct Job {
    const Subject* subject;
    int site;
    std::string sync;
  };
  std::vector<Job> jobs;
  for (const Subject& s : subjects) {
    try {
      ScopedOptionOverrides scope(overrides(-1));
      const LaunchProfile p = s.run();
      if (!p.audited) throw UserError("not audited: " + (p.warnings.empty() ? std::string("race checking is off") : p.warnings.back()), {});
      if (!p.races.empty() || !p.audit_races.empty()) {
        ++sum.baseline_failures;
        sum.baseline.push_back(fmt::format("{}: unmutated, the checker reports {} and the audit {} race(s): {}", s.name, p.races.size(),
                                           p.audit_races.size(), first_race(p.races.empty() ? p.audit_races : p.races)));
        continue;
      }
      const auto ck = s.compile();
      const std::vector<backend::SyncSite> sites = backend::removable_syncs(ck->ir);
      for (size_t i = 0; i < sites.size(); ++i) jobs.push_back({&s, static_cast<int>(i), sites[i].describe(ck->ir)});
    } catch (const std::exception& e) {
      ++sum.baseline_failures;
      sum.baseline.push_back(fmt::format("{}: unmutated, the run failed: {}", s.name, e.what()));
    }
  }
  sum.mutants = static_cast<int>(jobs.size());
  sum.results.resize(jobs.size());
  std::atomic<int> done{0}, bad{0};
  auto one = [&](size_t i) {
    Mutant& m = sum.results[i] = run_mutant(*jobs[i].subject, jobs[i].site, jobs[i].sync);
    if (m.verdict == Verdict::missed || m.verdict == Verdict::false_alarm) bad.fetch_add(1);
    const int d = done.fetch_add(1) + 1;
    if (options.progress) options.progress(d, sum.mutants, bad.load());
  };
  if (options.jobs == 1) {
    for (size_t i = 0; i < jobs.size(); ++i) one(i);
  } else {
    std::optional<tbb::global_control> limit;
    if (options.jobs > 1) limit.emplace(tbb::global_control::max_allowed_parallelism, options.jobs);
    tbb::parallel_for(size_t{0}, jobs.size(), one);
  }
  for (const Mutant& m : sum.results) {
    switch (m.verdict) {
      case Verdict::caught: ++sum.caught; break;
      case Verdict::missed: ++sum.missed; break;
      case Verdict::false_alarm: ++sum.false_alarms; break;
      case Verdict::redundant: ++sum.redundant; break;
      case Verdict::error: ++sum.errors; break;
    }
  }
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sum;
}

}  // namespace pto::campaign
