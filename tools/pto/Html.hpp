#pragma once
// The pieces of the self-contained HTML pages `pto report` writes: escaping, inline-SVG bar
// charts, and the page shell with its headless-browser self-check (on <body>: data-charts, the
// number of svg.chart elements; data-charts-rendered, how many have a non-zero size;
// data-script-errors, set only when a script failed).
#include <string>
#include <utility>
#include <vector>

namespace pto::cli {

std::string html_escape(const std::string& s);

/// Horizontal bars, one per (label, value), scaled to the largest value (or `max_value`).
std::string html_bar_chart(const std::string& id, const std::vector<std::pair<std::string, double>>& bars, const std::string& unit,
                           double max_value = 0);

struct PairedBar {
  std::string label;
  double a = 0, b = 0;  // baseline, candidate
};
/// Two bars per label (baseline above, candidate below), on one scale.
std::string html_paired_bar_chart(const std::string& id, const std::vector<PairedBar>& bars, const std::string& unit);

/// A whole page: `<title>` and `<h1>` from `title`, then `body` (already HTML), then the self-check.
std::string html_page(const std::string& title, const std::string& body);

}  // namespace pto::cli
