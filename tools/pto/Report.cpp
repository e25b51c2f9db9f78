#include "Report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Html.hpp"
#include "pto/runtime/Advisor.hpp"

namespace pto::cli {
namespace {

const char* pipe_color(int pipe) {
  static const char* colors[] = {"#8c8c8c", "#e4572e", "#6a4c93", "#17bebb", "#2e86ab", "#f3a712", "#76b041"};
  return colors[pipe % 7];
}

std::string timeline(const LaunchProfile& p, int core) {
  if (core < 0 || core >= static_cast<int>(p.spans.size()) || p.spans[core].empty()) return "<p>(no instruction spans recorded)</p>";
  const auto& spans = p.spans[core];
  double end = 0;
  std::array<bool, kPipeCount> used{};
  for (const auto& s : spans) {
    end = std::max(end, s.end);
    used[s.pipe] = true;
  }
  std::vector<int> rows;
  for (int i = 0; i < kPipeCount; ++i) if (used[i]) rows.push_back(i);
  const int row = 26, label = 60, width = 900;
  std::string svg = fmt::format(R"(<svg id="timeline" class="chart" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)",
                                label + width + 10, static_cast<int>(rows.size()) * row + 24);
  for (size_t r = 0; r < rows.size(); ++r) {
    svg += fmt::format(R"(<text x="0" y="{}" font-size="12">{}</text>)", r * row + 17, ir::pipe_name(static_cast<ir::Pipe>(rows[r])));
  }
  size_t drawn = 0;
  for (const auto& s : spans) {
    if (++drawn > 20000) break;
    const size_t r = std::find(rows.begin(), rows.end(), s.pipe) - rows.begin();
    const double x = label + width * s.start / end, w = std::max(0.5, width * (s.end - s.start) / end);
    const std::string name = s.instr >= 0 && s.instr < static_cast<int>(p.instr_texts.size())
                                 ? p.instr_names[s.instr] + ": " + p.instr_texts[s.instr] + " (" + p.instr_sources[s.instr] + ")"
                                 : "instruction";
    svg += fmt::format(R"(<rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}"><title>{} [{:.0f}..{:.0f} cycles]</title></rect>)",
                       x, r * row + 4, w, row - 8, pipe_color(s.pipe), html_escape(name), s.start, s.end);
  }
  svg += fmt::format(R"(<text x="{}" y="{}" font-size="11">0</text><text x="{}" y="{}" font-size="11">{:.2f} us</text>)", label,
                     rows.size() * row + 18, label + width - 60, rows.size() * row + 18, p.us(end));
  return svg + "</svg>";
}

}  // namespace

std::string write_report(const std::string& dir) {
  const auto advice_list = advise_directory(dir);  // also validates the directory
  std::ifstream in(std::filesystem::path(dir) / "profile.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const auto j = nlohmann::json::parse(ss.str());

  std::string body;
  for (const auto& advice : advice_list) {
    // The launch the advice is about: the kernel's median-duration launch.
    std::vector<LaunchProfile> launches;
    for (const auto& l : j.at("launches")) {
      if (l.at("profile").at("kernel") == advice.kernel) launches.push_back(launch_profile_from_json(l.at("profile").dump()));
    }
    std::sort(launches.begin(), launches.end(), [](const auto& x, const auto& y) { return x.device_us < y.device_us; });
    const LaunchProfile& p = launches[launches.size() / 2];
    std::vector<std::pair<std::string, double>> cores, pipes;
    int slowest = 0;
    for (size_t c = 0; c < p.core_us.size(); ++c) {
      cores.emplace_back(fmt::format("core {}", c), p.core_us[c]);
      if (p.core_us[c] > p.core_us[slowest]) slowest = static_cast<int>(c);
    }
    for (int pipe = 0; pipe < kPipeCount; ++pipe) {
      const double u = p.pipe_utilization(static_cast<ir::Pipe>(pipe));
      if (u > 0) pipes.emplace_back(ir::pipe_name(static_cast<ir::Pipe>(pipe)), 100 * u);
    }
    std::string evidence;
    for (const auto& e : advice.evidence) evidence += "<li>" + html_escape(e) + "</li>";
    body += fmt::format(R"(<section><h2>{}</h2><p class="spec">{} &middot; chip {} &middot; block_dim {} &middot; {} launches recorded</p>
<div class="advice"><b>Bottleneck: {}</b><ul>{}</ul><p>Suggestion: {}</p>
<p>Simulated device time {:.2f} us; roofline lower bound {:.2f} us; achieved / bound = {:.2f}</p></div>
<h3>Per-core duration (us, simulated)</h3>{}
<h3>Pipe utilisation (%)</h3>{}
<h3>Timeline of the slowest core (core {})</h3>{}</section>)",
                        html_escape(p.kernel), html_escape(p.specialization), html_escape(p.chip), p.block_dim, launches.size(), html_escape(advice.bottleneck),
                        evidence, html_escape(advice.suggestion), advice.device_us, advice.bound_us, advice.achieved_over_bound,
                        html_bar_chart("cores", cores, "us"), html_bar_chart("pipes", pipes, "%", 100), slowest, timeline(p, slowest));
  }
  const std::string html = html_page("PTO-JIT profile report", "<p>Profile directory: " + html_escape(dir) + "</p>" + body);
  const auto out_path = std::filesystem::path(dir) / "report.html";
  std::ofstream out(out_path);
  PTO_USER_CHECK(out.good(), ErrorSite{}) << "cannot write " << out_path.string();
  out << html;
  return out_path.string();
}

}  // namespace pto::cli
