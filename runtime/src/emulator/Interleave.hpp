#pragma once
// The cores of neighbouring blocks of a vector or cube kernel interleaved on one host thread
// (private to the emulator).
#include <array>
#include <atomic>
#include <mutex>
#include <span>
#include <vector>

#include "FiberStack.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/runtime/CompiledKernel.hpp"

namespace pto::emulator {

/// Runs the given cores (consecutive blocks of a vector or cube kernel) as fibers on the calling
/// host thread, in turn: each runs to its next yield point (generated before a run of GM loads,
/// CoreContext::yield), then the next one runs. With tiles dealt out round robin, core b's tile
/// t*B+b lies next to core b+1's, so the thread reads GM as the real cores' DMA engines do side
/// by side, in long runs, instead of one core's tiles far apart (measured on vector_add 16M:
/// 1.2x faster); a matmul's neighbouring C tiles read the same A rows, each K step's panel while
/// it is still in the host's cache (worth_it). Only the host's order of work changes: the cores
/// share nothing (no cross-core flags, no sync_all in such launches), and each core's results,
/// trace and cycles are what running it alone gives.
class Interleave {
 public:
  explicit Interleave(const CompiledKernel& k) : k_(k) {}

  /// Runs every core of `ctx` (at most kCoresPerThread) to its end (a failed check ends a core
  /// as it does alone). Meanwhile one other host thread, out of blocks of its own, may take some
  /// of the cores over (help()); run() returns when every core has ended, but the caller must not
  /// destroy the Interleave before the helper has left (RunsInFlight::run).
  void run(std::span<CoreContext> ctx);

  /// Called on a host thread with no blocks of its own left (by one thread at most): asks run()'s
  /// thread for half of its unfinished cores, which it hands over at its next turn (its
  /// streaming stores fenced), then runs them, interleaved, to their ends. A core moves once: a
  /// first version let both threads take turns at any waiting core, so a matmul core's
  /// accumulators followed it from one host core's cache to the other's (paired with a busy loop
  /// on one vCPU: 0.85x, help on against off). The tail this cuts was one thread running the last run's four cores while the other
  /// waited: matmul 2048^3 f32 on 24 blocks, six runs of four, 6-7 ms of 56-59 on a VM one of
  /// whose vCPUs ran 10-15% slower than the other, 0.5-1.5 ms on one whose did not. Returns the
  /// turns it took.
  int help();
  /// How many cores have not ended.
  int unfinished() const { return left_.load(std::memory_order_acquire); }

  /// Whether a launch of a kernel in `mode` with these arguments gains from interleaving: its gain
  /// is the order of DRAM reads, so only launches whose data leave the host's cache have it.
  ///  * Vector: some tensor is at least kStreamingStoreBytes (from which stores stream past the
  ///    cache; vector_add 16M: 1.2x, `BM_InterleavePaired`).
  ///  * Cube: the tensors together are larger than the host's last-level cache (host_cache_bytes).
  ///    Matmul 2048^3 on 24 blocks, paired (`BM_InterleavePairedMatmul`): f32 (48 MiB) 1.00-1.09x
  ///    faster, median of ten runs 1.03x; f16 (24 MiB, within that Zen 5 VM's 32 MiB L3)
  ///    0.87-0.93x, the interleaved cores' A, B and accumulators competing for a cache that held
  ///    them all.
  ///  * Mix: never (a mix block's cores are fibers of one block already).
  static bool worth_it(ir::KernelMode mode, const detail::LaunchArgs& args);
  /// Whether a host thread out of blocks helps runs of a kernel in `mode` (help()): cube kernels,
  /// whose runs are long (a matmul core's K steps) and few per thread, so that the launch's tail
  /// is one run. Paired, help off against on (`BM_InterleaveHelpPairedMatmul`): matmul 2048^3
  /// f32 on 24 blocks 1.00-1.02x on an idle Zen 5 VM, 1.03-1.07x with a busy loop on one vCPU at
  /// nice 10 (its host threads unequal, as that VM's vCPUs were on another day); vector_add 16M
  /// on 8 blocks (one run a thread, the two ending together), measured with help allowed for it:
  /// 0.98-1.00x and 0.96-0.99x, so not for vector kernels.
  static bool worth_helping(ir::KernelMode mode) { return mode == ir::KernelMode::Cube; }
  /// The last-level cache a host core shares, in bytes: glibc's sysconf(_SC_LEVEL3_CACHE_SIZE),
  /// on AMD at most 32 MiB (an AMD L3 serves one core complex: 32 MiB on a Zen 2-5 CCD without
  /// 3D V-Cache; hypervisors may report the package's sum, 508 MiB on a 16-CCD Zen 5 EPYC VM,
  /// where matmul 2048^3 f32 interleaved, paired, still ran 1.02-1.05x faster); else (0 or unknown:
  /// some VMs) an assumed 32 MiB.
  static int64_t host_cache_bytes();

  /// How many cores one host thread interleaves: enough to read a few neighbouring tiles in a
  /// row, few enough that their UB working sets (a cube core's accumulators) stay in the host's
  /// cache (matmul 2048^3 f32, two runs each: 8 cores 0.71-0.77 of OpenBLAS, 4 cores 0.91-0.92).
  static constexpr int kCoresPerThread = 4;

 private:
  friend class RunsInFlight;
  static void yield(CoreContext* ctx);

  struct Core : CoreFiber {
    bool helped = false;  // handed over to the helper (set by run()'s thread before it releases handed_)
  };
  /// Runs the cores this thread holds (the helper's, or run()'s) in turns until they have ended; returns the turns.
  int run_held(bool helper);
  /// On run()'s thread, once a helper asks: hands the later half of the unfinished cores over.
  void hand_over();

  const CompiledKernel& k_;
  CoreContext* first_ = nullptr;
  size_t count_ = 0;
  std::array<Core, kCoresPerThread> cores_;
  std::atomic<int> left_{0};
  std::atomic<bool> asked_{false};   // a helper has come (RunsInFlight, under its lock)
  std::atomic<bool> handed_{false};  // run()'s thread has marked the helper's cores
  std::atomic<bool> helper_in_{false};  // the helper is inside help()
};

/// The interleaved runs of one launch in progress, so that a host thread out of blocks can help
/// the others finish theirs (Interleave::help).
class RunsInFlight {
 public:
  /// Runs `run` on `ctx` (Interleave::run) where other threads' help() can find it; returns when
  /// every core has ended and no helper is left inside it.
  void run(Interleave& run, std::span<CoreContext> ctx);
  /// Helps the runs in flight that have no helper, one with the most unfinished cores first,
  /// while any has two or more; returns the turns it took.
  int help();

 private:
  std::mutex mutex_;
  std::vector<Interleave*> runs_;
};

}  // namespace pto::emulator
