#pragma once
// Where the output of pl::printf, pl::pto_assert and pl::dump_data goes. A launch collects its
// messages per core and delivers them when it ends, ordered by simulated time (then core, then
// program order) — never by host thread timing — to stdout or to the sink set here.
#include <functional>
#include <string>

#include "pto/support/Error.hpp"

namespace pto {

struct DebugMessage {
  std::string kernel;
  int block = 0;
  std::string core_kind;  // "AIC" or "AIV"
  int core = 0;           // among the cores of its kind
  double time_us = 0;     // simulated time of the instruction (0 without the timing model)
  int instr = -1;
  SourceLoc loc;
  std::string kind;       // "printf", "pto_assert", "dump_data", "trap"
  std::string text;       // the formatted message (dump_data: one line per row)
  /// "[kernel block 3 AIV 6 @ 12.345 us] text"
  std::string str() const;
};

/// Sends debug messages to `sink` (process-wide); an empty function restores stdout.
void set_debug_sink(std::function<void(const DebugMessage&)> sink);

namespace detail {
void deliver_debug_message(const DebugMessage& m);
}

}  // namespace pto
