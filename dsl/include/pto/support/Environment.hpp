#pragma once
// The PTO_* environment variables: the only place the library reads the environment. Read once,
// on first use; each is an override of something a program can also set in code.
#include <optional>
#include <string>

namespace pto {

struct Environment {
  std::optional<bool> interpret;     // PTO_INTERPRET=1: every kernel on the reference interpreter (JitOptions::interpret)
  std::optional<int> opt_level;      // PTO_OPT_LEVEL=N: the LLVM optimisation level (JitOptions::opt_level)
  int debug_level = 0;               // PTO_DEBUG=N: 2 prints the IR after each pass, 3 also the optimised LLVM IR
  std::string cache_dir;             // PTO_CACHE_DIR (off: ""), else $HOME/.cache/pto: the disk compile cache
  std::optional<int> host_threads;   // PTO_HOST_THREADS=N: host threads that run emulated cores
  std::optional<std::string> on_race;  // PTO_ON_RACE: what a race does (JitOptions::on_race), checked where it is applied
  std::optional<std::string> tiered;  // PTO_TIERED=0|1: tiered compilation (JitOptions::tiered), checked where it is applied

  /// The process's environment, read on the first call.
  static const Environment& get();
};

}  // namespace pto
