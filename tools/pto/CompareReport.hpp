#pragma once
// `pto report --compare A B`: one self-contained HTML page setting a candidate sweep (B) against
// a baseline (A), both files written by `pto sweep --save`: per case the simulated time of each,
// the change, the verdicts, and per-pipe utilisation side by side.
#include <string>

namespace pto::cli {

/// Writes the page to `out`; returns its path. A UserError for an unreadable or foreign file.
std::string write_compare_report(const std::string& baseline, const std::string& candidate, const std::string& out);

}  // namespace pto::cli
