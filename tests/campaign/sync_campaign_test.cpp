// The sync-removal campaign over every sample and 300 generated multi-buffered pipelines: each
// removable sync removed in turn. Every removal that unorders a real dependency must be caught by
// the race checker, and no removal that leaves everything ordered may raise a race.
#include <doctest/doctest.h>

#include <cstdio>

#include "SyncCampaign.hpp"

namespace {

void run_and_check(const std::vector<pto::campaign::Subject>& subjects, const char* what) {
  const pto::campaign::Summary s = pto::campaign::run(subjects);
  for (const auto& b : s.baseline) MESSAGE(b);
  for (const auto& m : s.results) {
    if (m.verdict == pto::campaign::Verdict::missed || m.verdict == pto::campaign::Verdict::false_alarm ||
        m.verdict == pto::campaign::Verdict::error) {
      MESSAGE(pto::campaign::verdict_name(m.verdict) << ": " << m.subject << " | site " << m.site << ": " << m.sync << "\n" << m.detail);
    }
  }
  std::printf("campaign (%s): %d subjects, %d mutants: %d caught, %d missed, %d false alarms, %d redundant, %d errors, %.1f s\n", what,
              s.subjects, s.mutants, s.caught, s.missed, s.false_alarms, s.redundant, s.errors, s.seconds);
  CHECK(s.baseline_failures == 0);
  CHECK(s.caught > 0);
  CHECK(s.missed == 0);
  CHECK(s.false_alarms == 0);
  CHECK(s.errors == 0);
}

}  // namespace

TEST_CASE("every sample: each sync removed is caught when it mattered, and never a false alarm") {
  run_and_check(pto::campaign::sample_subjects(), "samples");
}

TEST_CASE("300 generated pipelines (auto_mutex, flags, barriers, in place, sync_all): the same") {
  run_and_check(pto::campaign::generated_subjects(300, 20261202), "generated");
}
