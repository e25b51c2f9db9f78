#pragma once
// How a kernel is built and run: the engine, the optimisation level, the chip, the timing model.
#include <cstdint>
#include <optional>
#include <string>

#include "pto/ir/Kernel.hpp"

namespace pto {

/// What a launch does when the race checker finds a race (JitOptions::on_race).
enum class OnRace {
  report,  // only LaunchProfile::races (and pto::last_launch())
  warn,    // also print each distinct race once per specialisation on stderr
  fail,    // the launch fails: synchronize() (or run_sync) throws a pto::UserError with the report
};
const char* on_race_name(OnRace r);  // "report", "warn", "fail"

struct JitOptions {
  std::string name = "kernel";
  bool auto_mutex = true;    // insert the tile-slot mutexes (RAW/WAR ordering) automatically (PyPTO Pro's default);
                             // false for kernels that order their pipes by hand with flags
  int opt_level = 2;
  /// Tiered compilation (at opt_level 2 and 3): a specialisation's first call compiles it quickly
  /// (backend::CompileOptions::quick: about a third of the time, code up to 2x slower, identical
  /// results and simulated cycles); its second launch starts the optimising compile on a
  /// background thread, whose code replaces the quick one once it is ready (pto::await_tier_ups
  /// waits for that). False: one optimising compile on the first call. PTO_TIERED=0|1 overrides.
  bool tiered = true;
  std::string chip = "a2";   // a built-in profile name or a JSON file path
  bool timing = true;        // simulate pipe timing (LaunchProfile); off: functional only
  bool race_check = true;    // happens-before race checking (needs timing)
  OnRace on_race = OnRace::warn;  // what a race does; PTO_ON_RACE=report|warn|fail overrides it
  ir::KernelMode mode = ir::KernelMode::Auto;  // Auto: deduced from the kernel's sections and tiles
  bool fatal_assert = false;                   // a failed pl::pto_assert stops the launch (else it only logs)
  int64_t instruction_budget = 100'000'000;    // per core; a kernel running longer stops with an error
  bool interpret = false;    // run the reference interpreter instead of LLVM code (the oracle of differential tests)
  /// Copies the host can skip because nothing can observe them (backend/include/pto/backend/
  /// LoadElision.hpp, StoreForwarding.hpp): a load whose readers read GM in place, a store that
  /// computes its expression straight into GM. False: every load and store copies through the
  /// tile, as the interpreter does (to measure what they save, or to rule them out). Results,
  /// simulated time and race reports are the same either way.
  bool elide_copies = true;
  /// Row fusion (backend/include/pto/backend/RowFusion.hpp): a run of tile expressions whose rows
  /// depend only on the same rows of each other is computed a block of rows at a time, every
  /// instruction on the block in turn, so each finds its operands in the host's L1. False: each
  /// instruction computes its whole tile in turn, as the interpreter does. Results, simulated
  /// time and race reports are the same either way.
  bool fuse_rows = true;
  int remove_sync = -1;      // the sync-removal campaign: the lowered kernel loses its sync site N
                             // (backend::removable_syncs; -1: none). Races are then expected.
};

/// `options` after the environment's overrides (pto::Environment): PTO_INTERPRET=1 forces the
/// interpreter, PTO_OPT_LEVEL=N the optimisation level (the parameterised correctness runs use
/// them), PTO_ON_RACE=report|warn|fail what a race does (another value: a UserError naming the
/// variable), PTO_TIERED=0|1 tiered compilation; unset, `options` is returned as given.
JitOptions apply_environment(JitOptions options);

/// Overrides that apply_environment applies after the environment's, for tools that run
/// kernels they do not define under other options: the sync-removal campaign runs each sample's
/// kernels with one sync removed, on the interpreter, reporting races only. They hold on the
/// calling thread while the guard lives (nested guards restore the outer ones); a kernel object
/// takes those in force on the thread that creates it (pl::jit, with_options).
struct OptionOverrides {
  std::optional<bool> interpret;
  std::optional<int> remove_sync;
  std::optional<OnRace> on_race;
};
class ScopedOptionOverrides {
 public:
  explicit ScopedOptionOverrides(const OptionOverrides& overrides);
  ~ScopedOptionOverrides();
  ScopedOptionOverrides(const ScopedOptionOverrides&) = delete;
  ScopedOptionOverrides& operator=(const ScopedOptionOverrides&) = delete;

 private:
  OptionOverrides saved_;
};

}  // namespace pto
