#pragma once
// The work behind `pto tune` and `pto sweep`, apart from their printing, so `pto demo` can run a
// short search and sweep too. Both spread their cases over MPI ranks (Ranks.hpp); every rank
// returns the full search result, only rank 0 the sweep's cases.
#include <map>
#include <string>
#include <vector>

#include "Cases.hpp"
#include "Commands.hpp"
#include "pto/runtime/Tune.hpp"

namespace pto::cli {

struct SampleTune {
  TuneSpace space;                             // the searched axes (fixed ones removed)
  samples::SampleArgs base;                    // shape, dtype, chip and fixed parameters
  TuneResult result;
  std::map<std::string, CaseResult> cases;     // by TuneSpace::str(config)
};
SampleTune tune_sample(const TuneOptionsCli& o);

struct SweepRegression {
  size_t index;  // into SweepRun::cases
  std::string why;
  double baseline_us = 0;
};

struct SweepRun {
  std::vector<CaseResult> cases;  // matrix order; empty on ranks other than 0
  std::vector<SweepRegression> regressions;
  size_t baseline_matched = 0;
  int ok = 0, skipped = 0, failed = 0;
};
/// Runs the matrix, compares with o.baseline and writes o.save (rank 0).
SweepRun run_sweep(const SweepOptions& o);

}  // namespace pto::cli
