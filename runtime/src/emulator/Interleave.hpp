#pragma once
// The cores of neighbouring blocks of a vector or cube kernel interleaved on one host thread
// (private to the emulator).
#include <span>
#include <vector>

#include <boost/context/fiber.hpp>

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

  /// Runs every core of `ctx` to its end (a failed check ends a core as it does alone).
  void run(std::span<CoreContext> ctx);

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
  static void yield(CoreContext* ctx);

  struct Core {
    boost::context::fiber fiber, back;
    bool done = false;
  };
  const CompiledKernel& k_;
  std::vector<Core> cores_;
  size_t current_ = 0;
};

}  // namespace pto::emulator
