#pragma once
// The results file of `pto sweep --save` (and what `--json` prints): {"version": 1, "cases": [...]},
// each case as case_json writes it, in matrix order. Read back for --baseline and
// `pto report --compare`.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Cases.hpp"

namespace pto::cli {

inline constexpr int kSweepFileVersion = 1;

nlohmann::json sweep_json(const std::vector<CaseResult>& cases);
/// A UserError naming the file and what is wrong with it (missing, not JSON, not a sweep file).
std::vector<CaseResult> load_sweep_file(const std::string& path);

}  // namespace pto::cli
