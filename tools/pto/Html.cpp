#include "Html.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace pto::cli {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {
constexpr int kRow = 18, kWidth = 640;

std::string bar(int label_width, int y, double value, double max_value, const std::string& unit, const char* color, int height) {
  const double w = kWidth * value / max_value;
  return fmt::format(R"(<rect x="{}" y="{}" width="{:.1f}" height="{}" fill="{}"/>)", label_width, y, std::max(w, 1.0), height, color) +
         fmt::format(R"(<text x="{:.1f}" y="{}" font-size="11">{:.2f} {}</text>)", label_width + w + 4, y + height - 2, value,
                     html_escape(unit));
}
}  // namespace

std::string html_bar_chart(const std::string& id, const std::vector<std::pair<std::string, double>>& bars, const std::string& unit,
                           double max_value) {
  for (const auto& b : bars) max_value = std::max(max_value, b.second);
  if (max_value <= 0) max_value = 1;
  const int label = 90;
  std::string svg = fmt::format(R"(<svg id="{}" class="chart" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)", id,
                                kWidth + label + 90, static_cast<int>(bars.size()) * kRow + 10);
  for (size_t i = 0; i < bars.size(); ++i) {
    const int y = static_cast<int>(i) * kRow + 4;
    svg += fmt::format(R"(<text x="0" y="{}" font-size="12">{}</text>)", y + 12, html_escape(bars[i].first));
    svg += bar(label, y, bars[i].second, max_value, unit, "#2e86ab", kRow - 4);
  }
  return svg + "</svg>";
}

std::string html_paired_bar_chart(const std::string& id, const std::vector<PairedBar>& bars, const std::string& unit) {
  double max_value = 0;
  for (const auto& b : bars) max_value = std::max({max_value, b.a, b.b});
  if (max_value <= 0) max_value = 1;
  const int label = 360, row = 2 * kRow;
  std::string svg = fmt::format(R"(<svg id="{}" class="chart" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)", id,
                                kWidth + label + 100, static_cast<int>(bars.size()) * row + 10);
  for (size_t i = 0; i < bars.size(); ++i) {
    const int y = static_cast<int>(i) * row + 4;
    svg += fmt::format(R"(<text x="0" y="{}" font-size="12">{}</text>)", y + 20, html_escape(bars[i].label));
    svg += bar(label, y, bars[i].a, max_value, unit, "#8c8c8c", kRow - 6);
    svg += bar(label, y + kRow - 4, bars[i].b, max_value, unit, bars[i].b > bars[i].a ? "#e4572e" : "#2e86ab", kRow - 6);
  }
  return svg + "</svg>";
}

std::string html_page(const std::string& title, const std::string& body) {
  return fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{0}</title>
<style>body{{font-family:sans-serif;margin:24px;max-width:1100px}} .advice{{background:#f4f7fb;border-left:4px solid #2e86ab;padding:8px 16px}}
.spec{{color:#555}} svg.chart{{display:block;margin:8px 0}} table{{border-collapse:collapse}} td,th{{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}}
td.id,th.id{{text-align:left}} .worse{{color:#c0392b;font-weight:bold}} .better{{color:#1e7d32}}</style></head>
<body><h1>{0}</h1>{1}
<script>
// Self-check for headless browsers: how many charts rendered with a size, and any script error.
window.addEventListener('error', function () {{
  document.body.setAttribute('data-script-errors', String(Number(document.body.getAttribute('data-script-errors') || 0) + 1));
}});
window.addEventListener('load', function () {{
  var rendered = 0, charts = document.querySelectorAll('svg.chart');
  charts.forEach(function (svg) {{ var r = svg.getBoundingClientRect(); if (r.width > 0 && r.height > 0) rendered++; }});
  document.body.setAttribute('data-charts', String(charts.length));
  document.body.setAttribute('data-charts-rendered', String(rendered));
}});
</script></body></html>
)",
                     html_escape(title), body);
}

}  // namespace pto::cli
