#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "Progress.hpp"
#include "SyncCampaign.hpp"

namespace pto::cli {

int campaign_command(const CampaignOptions& o) {
  std::vector<campaign::Subject> subjects;
  if (o.samples) subjects = campaign::sample_subjects();
  auto generated = campaign::generated_subjects(o.generated, o.seed);
  subjects.insert(subjects.end(), std::make_move_iterator(generated.begin()), std::make_move_iterator(generated.end()));
  PTO_USER_CHECK(!subjects.empty(), ErrorSite{}) << "campaign: nothing to run (--no-samples with --generated 0)";
  std::optional<Progress> progress;  // the mutants are counted once the baselines ran
  std::mutex mu;
  campaign::Options options{.jobs = o.jobs};
  options.progress = [&](int done, int total, int bad) {
    std::lock_guard lock(mu);
    if (!progress) progress.emplace("campaign", total, o.json);
    progress->update(done, bad);
  };
  const campaign::Summary s = campaign::run(subjects, options);
  if (progress) progress->finish();
  const bool ok = s.missed == 0 && s.false_alarms == 0 && s.errors == 0 && s.baseline_failures == 0;
  if (o.json) {
    nlohmann::json mutants = nlohmann::json::array();
    for (const auto& m : s.results) {
      if (!o.verbose && (m.verdict == campaign::Verdict::caught || m.verdict == campaign::Verdict::redundant)) continue;
      mutants.push_back({{"subject", m.subject}, {"site", m.site}, {"sync", m.sync}, {"verdict", campaign::verdict_name(m.verdict)},
                         {"checker_races", m.checker_races}, {"audit_races", m.audit_races}, {"detail", m.detail}});
    }
    fmt::print("{}\n", nlohmann::json{{"subjects", s.subjects}, {"baseline_failures", s.baseline_failures}, {"baseline", s.baseline},
                                      {"mutants", s.mutants}, {"caught", s.caught}, {"missed", s.missed}, {"false_alarms", s.false_alarms},
                                      {"redundant", s.redundant}, {"errors", s.errors}, {"seconds", s.seconds}, {"seed", o.seed},
                                      {"results", mutants}}
                           .dump());
    return ok ? 0 : 1;
  }
  for (const auto& b : s.baseline) fmt::print("BASELINE {}\n", b);
  for (const auto& m : s.results) {
    const bool notable = m.verdict == campaign::Verdict::missed || m.verdict == campaign::Verdict::false_alarm || m.verdict == campaign::Verdict::error;
    if (!notable && !o.verbose) continue;
    fmt::print("{:<11} {} | site {}: {}{}{}\n", campaign::verdict_name(m.verdict), m.subject, m.site, m.sync, m.detail.empty() ? "" : "\n            ",
               m.detail);
  }
  fmt::print("subjects      {} ({} baseline failures)\nmutants       {}\ncaught        {}\nmissed        {}\nfalse alarms  {}\nredundant     {}\n"
             "errors        {}\nseconds       {:.1f}\n",
             s.subjects, s.baseline_failures, s.mutants, s.caught, s.missed, s.false_alarms, s.redundant, s.errors, s.seconds);
  return ok ? 0 : 1;
}

}  // namespace pto::cli
