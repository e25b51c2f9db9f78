#pragma once
// One self-contained HTML page for a profiler output directory: per-core duration bars, per-pipe
// utilisation, the timeline of the slowest core, and the advice. Inline SVG and no external
// resources; one small script records on <body> how many charts rendered with a non-zero size
// (data-charts, data-charts-rendered) and counts script errors (data-script-errors), so a headless
// browser can check the page.
#include <string>

namespace pto::cli {

/// Writes `dir`/report.html from `dir`/profile.json; returns the file's path.
std::string write_report(const std::string& dir);

}  // namespace pto::cli
