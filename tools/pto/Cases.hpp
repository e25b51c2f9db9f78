#pragma once
// One case of a sweep or a search: a sample run for a shape, dtype, block_dim and parameters,
// verified against plain C++ and measured. A case never throws: a UserError becomes its status.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto/support/DType.hpp"
#include "pto/support/Error.hpp"

namespace pto::cli {

struct CaseSpec {
  std::string sample;
  std::vector<int64_t> shape;
  DType dtype = DType::f32;
  int block_dim = 8;
  std::map<std::string, std::string> params;
  std::string chip = "a2";
};

/// ok: verified, no race. wrong: outside the tolerance. race: the race checker reported one.
/// skipped: cannot run on the chip (tiles over a memory's capacity, block_dim over the limit).
/// error: any other UserError (its message is kept).
enum class CaseStatus { ok, wrong, race, skipped, error };
const char* case_status_name(CaseStatus s);

struct CaseResult {
  CaseSpec spec;
  CaseStatus status = CaseStatus::error;
  std::string reason;   // skipped: the category ("capacity", "block_dim limit"); else empty
  std::string message;  // the first line of the error, for skipped and error
  double device_us = 0;  // simulated device time (deterministic)
  std::map<std::string, double> pipes;  // per-pipe utilisation, 0..1 (deterministic)
  double max_abs_error = 0;
  // Host wall times (vary run to run): the first call (trace + JIT or cache hit), the
  // specialisation's compile time (trace to link; the load time when the disk cache served it),
  // and the steady-state median of a few warm calls.
  double first_call_ms = 0, compile_ms = 0, host_us = 0;

  bool failed() const { return status == CaseStatus::wrong || status == CaseStatus::race || status == CaseStatus::error; }
};

struct CaseTiming {
  int host_repeats = 3;  // warm calls timed for host_us (0: none, host_us stays 0)
};

/// Runs and verifies one case on the calling thread (no stream); any exception becomes its status
/// (error) and message.
CaseResult run_case(const CaseSpec& spec, const CaseTiming& timing = {});

/// Runs the cases side by side on `jobs` host threads (0: TBB's choice, 1: one after another);
/// results in the order of `specs`, whatever the interleaving. `on_done` is called once per
/// case, never concurrently. Simulated figures do not depend on `jobs`; host times measured
/// side by side share the machine.
std::vector<CaseResult> run_cases(const std::vector<CaseSpec>& specs, int jobs, const CaseTiming& timing,
                                  const std::function<void(const CaseResult&)>& on_done);

/// The case's deterministic fields plus the host times host_us, first_call_ms and compile_ms.
nlohmann::json case_json(const CaseResult& r);
/// The inverse of case_json; a UserError naming the missing or mistyped field.
CaseResult case_from_json(const nlohmann::json& j);
/// A stable identity of the case's inputs: "sample shape dtype block_dim k=v,... chip".
std::string case_id(const CaseSpec& spec);

}  // namespace pto::cli
