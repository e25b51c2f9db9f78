#pragma once
// One self-contained HTML page for a profiler output directory: per-core duration bars, per-pipe
// utilisation, the timeline of the slowest core, and the advice. Inline SVG, no scripts, no
// external resources.
#include <string>

namespace pto::cli {

/// Writes `dir`/report.html from `dir`/profile.json; returns the file's path.
std::string write_report(const std::string& dir);

}  // namespace pto::cli
