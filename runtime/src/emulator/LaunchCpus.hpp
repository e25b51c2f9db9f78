#pragma once
// The host CPUs the threads of one launch hold while they run its interleaved cube runs (private
// to the emulator).
//
// Why. A host thread that sleeps between launches (a TBB worker) is woken onto whichever CPU the
// host's scheduler picks then. With no CPU idle, because other work runs on one of them, it is
// often the waking thread's: on a 2-CPU host both threads of a launch then share one CPU, for the
// whole launch (the scheduler's balancing takes tens of milliseconds to part them), and the launch
// takes twice as long. Measured on a 2-vCPU Zen 5 VM with `nice -n 10 taskset -c 0` running a busy
// loop (`pto bench matmul --shape 2048x2048x2048 --block-dim 24 --vs-native`, three runs a side):
// medians 61-68 ms, p90 108-110 ms (a thread's CPU printed per launch: both on CPU 1 in the slow
// ones); holding a CPU each, medians 57-58 ms, p90 60-63 ms, and the ratio to OpenBLAS 0.977-0.980
// against 0.867-1.003 (OpenBLAS's threads sleep between calls too and meet the same: its medians
// 56-65 ms there, 50-52 on the idle VM). On the idle VM it changes nothing (BM_HostPinningPairedMatmul).
//
// What. Each thread of the launch, before its first block, holds a CPU of its allowed set that no
// other thread of the launch holds: the one it is on if it is free (it stays), else the lowest free
// one (it moves), and is pinned to it (sched_setaffinity) until it leaves the launch's blocks;
// then its own affinity is restored. Only for runs that other threads can help finish
// (Interleave::worth_helping): a thread held on a CPU that other work takes turns at has its
// unfinished cores taken over by the thread that is not. Held without help, layernorm 1024x1024
// (0.3 ms launches) waited out the busy loop's time slices on its CPU: median 1.9 ms.
#include <sched.h>

#include <cstdint>
#include <mutex>
#include <vector>

namespace pto::emulator {

/// The CPUs held by the threads of one launch (held by CpuHold).
class LaunchCpus {
 public:
  /// How many threads were moved off a CPU another thread of their launch held, process-wide.
  static uint64_t moved();

 private:
  friend class CpuHold;
  /// The CPU for a thread on `current` whose allowed CPUs are `allowed` (marked held), or -1 if
  /// every allowed CPU is held.
  int take(int current, const cpu_set_t& allowed);
  void give_back(int cpu);

  std::mutex mutex_;
  std::vector<int> held_;
};

/// The calling thread's hold on a CPU of `cpus` for its life (nothing when `wanted` is false, the
/// thread may run on fewer than two CPUs, or an affinity call fails): pinned to it on construction,
/// its affinity restored and the CPU given back on destruction, on the same thread.
class CpuHold {
 public:
  CpuHold(LaunchCpus& cpus, bool wanted);
  ~CpuHold();
  CpuHold(const CpuHold&) = delete;
  CpuHold& operator=(const CpuHold&) = delete;

  /// The CPU held, or -1.
  int cpu() const { return cpu_; }

 private:
  LaunchCpus& cpus_;
  int cpu_ = -1;
  cpu_set_t allowed_;  // the thread's affinity before, restored
};

}  // namespace pto::emulator
