#pragma once
// The debug output of one launch (pl::printf, pto_assert, trap, dump_tensor), private to the emulator.
#include <cstdint>
#include <string>
#include <vector>

#include "CoreSetup.hpp"
#include "pto/backend/KernelABI.hpp"
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/DebugOutput.hpp"

namespace pto::emulator {

/// The debug output of one launch: messages per core, delivered in simulated-time order at the end.
class DebugLog {
 public:
  DebugLog(const CompiledKernel& k, const CoreLayout& layout, std::vector<CoreStatus>& status)
      : k_(k), layout_(layout), status_(status), per_core_(k.has_debug ? status.size() : 0),
        op_of_(per_core_.size()) {}  // nothing to allocate without debug ops

  /// CoreContext::debug: formats the message of debugging aid `instr` (printf, assert, trap, dump)
  /// and keeps it with the op it precedes; nonzero stops the core (trap, fatal assertion).
  int32_t on_debug(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch);

  /// Turns each message's op index into the simulated time that op started (`op_start(core)`).
  template <class OpStart>
  void timed(OpStart&& op_start) {
    for (size_t c = 0; c < per_core_.size(); ++c) {
      if (per_core_[c].empty()) continue;
      const std::vector<double>& starts = op_start(c);
      const double end = starts.empty() ? 0 : starts.back();
      for (size_t j = 0; j < per_core_[c].size(); ++j) {
        const size_t i = op_of_[c][j];
        per_core_[c][j].time_us = (i < starts.size() ? starts[i] : end) / (k_.chip->clock_ghz * 1e3);
      }
    }
  }

  /// Delivers every message, ordered by simulated time, then core, then program order.
  void deliver();

 private:
  static int32_t fail(CoreContext* ctx, int32_t instr, RuntimeCheck check) {
    pto_rt_fail(ctx, instr, static_cast<int32_t>(check), 0, 0, 0, 0);
    return 1;
  }

  std::string dump(const ir::Debug* d, const void* data, int64_t rows, int64_t cols, int64_t pitch) const;

  static std::string element(const uint8_t* p, DType t);

  const CompiledKernel& k_;
  const CoreLayout& layout_;
  std::vector<CoreStatus>& status_;
  std::vector<std::vector<DebugMessage>> per_core_;
  std::vector<std::vector<size_t>> op_of_;  // per message: the index of the op it precedes in its core's trace
};


/// CoreContext::debug: forwards to the launch's DebugLog.
int32_t debug_hook(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch);

}  // namespace pto::emulator
