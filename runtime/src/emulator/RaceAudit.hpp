#pragma once
// The exhaustive race audit (pto::set_race_audit), private to the emulator: a second race
// checker, deliberately unlike the first, to audit it. The checker (CoreModel) runs vector clocks
// while the cores execute and keeps only the newest accesses per pipe and resource; the audit
// runs after the launch over everything the cores recorded: the happens-before graph is the
// launch's timing traces (every op of every core; edges: a pipe's program order, and the deps each
// op records for flags, mutexes, barriers, cross-core flags and sync_all), reachability is a
// breadth-first search from every op that touched memory, and every pair of accesses to the same
// memory — of different pipes or cores, at least one a write, not both atomic, overlapping byte
// for byte — that neither reaches is a race. Quadratic: for small launches (the sync-removal
// campaign); past its limits it does not run, and says why.
#include <span>
#include <string>
#include <vector>

#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/PipelineModel.hpp"

namespace pto::emulator {

/// The races among the recorded accesses of `cores` (a launch's models in core order,
/// `per_block` cores a block), one report per distinct (kind, memory, instruction pair), with
/// `count` the pairs of accesses behind it; or, for a launch past the audit's limits, why it was
/// not audited.
struct AuditResult {
  bool audited = false;
  std::vector<RaceReport> races;
  std::string skipped;  // why not audited
};
AuditResult audit_races(const CompiledKernel& k, std::span<const CoreModel* const> cores, int per_block);

}  // namespace pto::emulator
