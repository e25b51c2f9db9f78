#pragma once
// The sync-removal campaign (issue #18, item 3): does the race checker catch every missing sync?
//
// For each subject (a kernel launch: a sample at a small shape, or a generated multi-buffered
// pipeline), every removable sync site of its lowered IR (backend::removable_syncs: each
// wait_flag, pipe_barrier(ALL), mutex lock/unlock pair, wait_cross_core and sync_all) is removed
// in turn (JitOptions::remove_sync), and the mutant runs on the reference interpreter with the
// race checker and the exhaustive race audit (pto::set_race_audit). The audit decides whether the
// removal unordered a real dependency (two accesses to the same memory, at least one a write,
// that nothing orders any more); the checker's report is held against it:
//
//   caught       a real dependency is unordered and the checker reports a race
//   missed       a real dependency is unordered and the checker reports none
//   false alarm  nothing real is unordered and the checker reports a race
//   redundant    nothing real is unordered and no race is reported (the sync was not needed)
//   error        the mutant failed (a deadlock, a mutex misuse): it cannot be classified
//
// A subject's unmutated run must be clean under both checkers first (else it is a baseline
// failure, counted apart). The goal: every real removal caught, no false alarm.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <pto/pto.hpp>

namespace pto::campaign {

struct Subject {
  std::string name;  // "vector_add 4096 f32 block_dim 2 buffers=2 sync=manual"
  /// Creates the subject's kernel anew (so it takes the overrides in force on this thread) and
  /// runs one launch synchronously; returns its profile.
  std::function<LaunchProfile()> run;
  /// The unmutated specialisation (its lowered IR lists the sites).
  std::function<std::shared_ptr<const CompiledKernel>()> compile;
};

enum class Verdict { caught, missed, false_alarm, redundant, error };
const char* verdict_name(Verdict v);

struct Mutant {
  std::string subject;
  int site = -1;
  std::string sync;     // the removed site (SyncSite::describe)
  Verdict verdict = Verdict::error;
  size_t checker_races = 0, audit_races = 0;
  std::string detail;   // the first race either side reports, or the error
};

struct Summary {
  int subjects = 0;
  int baseline_failures = 0;  // subjects whose unmutated run is not clean
  int mutants = 0, caught = 0, missed = 0, false_alarms = 0, redundant = 0, errors = 0;
  double seconds = 0;
  std::vector<std::string> baseline;  // what each baseline failure reported
  std::vector<Mutant> results;        // every mutant
};

struct Options {
  int jobs = 0;  // mutants side by side: 0 TBB's choice, 1 one after another
  std::function<void(int done, int total, int missed_or_false)> progress;  // may be empty
};

Summary run(const std::vector<Subject>& subjects, const Options& options = {});

/// `count` generated multi-buffered vector pipelines from `seed`: random lengths with tails,
/// tiles, group depths 1..3, 1..3 vector stages, block_dims 1..4, ordered by auto_mutex, by
/// hand-written flags or by pipe barriers, half of them with a second phase that reads another
/// block's output after a sync_all.
std::vector<Subject> generated_subjects(int count, uint64_t seed);

}  // namespace pto::campaign

namespace pto::campaign {

/// Every sample at small shapes (the audit is quadratic), in each sync mode it offers
/// (auto_mutex, and sample 01's and 02's hand-written flags), with idle cores and tails.
std::vector<Subject> sample_subjects();

}  // namespace pto::campaign
