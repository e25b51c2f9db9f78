#pragma once
// The AI Core emulator: runs a compiled kernel on `block_dim` cores in parallel on TBB. Each
// core gets its own local memories (sized by the chip profile) and its block index. A failed
// runtime check in any core fails the launch with a UserError naming the kernel, the core,
// the pipe, the instruction and the user's source line (the lowest failing core, so the report
// does not depend on host thread timing).
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/LaunchProfile.hpp"

namespace pto {

/// Runs the launch; returns its simulated-time profile (empty timing when not instrumented).
LaunchProfile emulate_launch(const CompiledKernel& k, const detail::LaunchArgs& args, int block_dim);

/// Limits the host threads the emulator uses (0: all hardware threads).
void set_host_threads(int n);

/// Keeps the replays of recent launches and reuses one when a launch records the same traces
/// again (on by default; the cycles are the same either way, the replay is a pure function of
/// its input). Off: every timed launch is replayed, and the kept replays are dropped.
void set_replay_cache(bool on);

/// Lets one host thread run neighbouring cores of a vector or cube kernel in turns, tile by tile,
/// when a launch has more blocks than host threads and its data leave the host's cache: a vector
/// kernel's tensor of 8 MiB or more, a cube kernel's tensors together larger than
/// host_cache_bytes() (on by default; results and cycles are the same either way, only the host's
/// memory order changes). Off: each core runs to its end in turn.
void set_core_interleaving(bool on);
/// Lets a host thread out of blocks of a cube kernel take over half of the unfinished cores of
/// another thread's interleaved run (set_core_interleaving), so that the launch's last run is not
/// left to one thread (on by default; results and cycles are the same either way, a core moves
/// once, between two of its turns). Off: each run stays on its thread.
void set_interleave_help(bool on);
/// While its host threads run cube runs that they help each other finish (set_interleave_help),
/// each holds a host CPU of its own, pinned to it until it leaves the launch's blocks: the one it
/// is on, unless another thread of the launch is there (a thread woken onto its waker's CPU while
/// other work keeps the other CPUs busy); then it moves to the lowest CPU of its allowed set that
/// no thread of the launch holds (on by default; results and cycles are the same either way).
/// Off: the host's scheduler places the threads.
void set_host_pinning(bool on);
/// The last-level cache a host core shares, in bytes, as the emulator takes it (sysconf; on AMD
/// at most one core complex's 32 MiB; an assumed 32 MiB when the host does not say).
int64_t host_cache_bytes();

/// Lets a timed launch's cores write their pipeline-model calls down while they run and play
/// them into the models after (on by default; profiles, races and errors are the same either way,
/// only where the host spends its time changes: the models' state stays in the host's cache).
/// Applies to launches whose cores' models meet nothing outside their block while it runs (no
/// sync_all, no debug output); a mix block's three cores write one log in the order they made
/// their calls, cross-core flags included. Off: the models are called as the cores run.
void set_hook_log(bool on);

/// Lets a timed launch's replay take cores that start together with the same trace (the same
/// ops and flags, their own tiles at their own GM addresses: the blocks of most vector kernels,
/// in a group or two when some blocks get a tile more or a shorter last tile) as copies of one,
/// replaying one core a group and counting its GM transfers once a core of the group in the
/// shares of HBM and L2 (on by default). Profiles are the same to the bit either way: every core
/// still touches the L2 with its own addresses, and if the L2 answers two cores of a group
/// differently (one hits what another fetched) the launch is replayed core by core, as is one
/// whose cores wait on one another (mix kernels, sync_all). Off: always core by core.
void set_replay_folding(bool on);

/// Lets a timed launch whose cores' model calls are written down (set_hook_log) record a block's
/// models as copies of another block's when the two blocks made the same calls with each
/// tensor's GM regions one shift apart (the blocks of most vector kernels, of a matmul and of
/// flash attention): their ops are the other's, their GM regions shifted and a mix block's
/// cross-core deps moved to its own cores, instead of its calls played (on by default). Profiles,
/// races and errors are the same to the bit either way: a block whose twin met a race or a
/// failure is played. Off: every block's calls are played.
void set_play_folding(bool on);

/// Lets a timed launch replay ahead (on by default): when the host thread that ran the launch's
/// first blocks runs out of blocks while other threads still run theirs, and its blocks were
/// recorded as copies of the first moved one shift further per block (set_play_folding), it
/// replays the launch with the other blocks predicted to continue that row, while they run. The
/// prediction is then checked against the blocks' traces: the same, that replay is the launch's
/// (its input is the same, so is its result, to the bit); else it is dropped and the launch
/// replayed as usual. Off: the replay waits for the launch's last block.
void set_replay_ahead(bool on);

/// Audits every timed, race-checked launch with a second, exhaustive race checker
/// (LaunchProfile::audit_races): every pair of accesses checked by reachability over the launch's
/// recorded orderings. Quadratic in the launch's size, for small launches (past its limits a
/// launch is not audited: LaunchProfile::audited is false and a warning says why): the
/// sync-removal campaign holds the race checker against it. Off by default.
void set_race_audit(bool on);

/// Process-wide counters, for tests and the CLI.
struct RuntimeStats {
  uint64_t launches = 0;
  uint64_t compiles = 0;    // specialisations built by LLVM in this process
  uint64_t disk_loads = 0;  // specialisations loaded from the disk cache instead
  uint64_t replay_hits = 0; // timed launches whose replay was found in the replay cache
  uint64_t interleaved = 0; // launches whose cores ran interleaved (set_core_interleaving)
  uint64_t tier_ups = 0;    // quick-tier kernels whose optimised code replaced theirs (JitOptions::tiered)
  double tier_up_ms = 0;    // the time of those optimising compiles, on the background thread
  uint64_t known_launches = 0;  // timed launches that took the profile of the same launch before (no model ran)
  uint64_t hook_logged = 0;     // timed launches whose cores' model calls were written down and played after (set_hook_log)
  uint64_t folded_replays = 0;  // replays that took the launch's cores as copies of one (set_replay_folding)
  uint64_t copied_cores = 0;    // timed cores whose model recorded a copy of another core's (set_play_folding)
  uint64_t replays_ahead = 0;   // launches whose replay was made ahead of their last blocks and used (set_replay_ahead)
  uint64_t helped_turns = 0;    // turns host threads ran of cores handed over from another thread's interleaved run (set_interleave_help)
  uint64_t moved_threads = 0;   // host threads moved off a CPU another thread of their launch held (set_host_pinning)
};
RuntimeStats runtime_stats();

namespace detail {
void count_compile();
void count_disk_load();
void count_tier_up(double ms);
}

}  // namespace pto
