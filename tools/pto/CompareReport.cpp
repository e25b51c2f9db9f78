#include "CompareReport.hpp"

#include <fstream>
#include <set>

#include <fmt/format.h>

#include "Html.hpp"
#include "SweepFile.hpp"

namespace pto::cli {

namespace {

std::string pipes_cell(const std::map<std::string, double>& pipes) {
  std::string s;
  for (const auto& [p, u] : pipes) s += fmt::format("{}{} {:.0f}%", s.empty() ? "" : ", ", p, 100 * u);
  return s.empty() ? "-" : s;
}

}  // namespace

std::string write_compare_report(const std::string& baseline, const std::string& candidate, const std::string& out) {
  const auto a = load_sweep_file(baseline);
  const auto b = load_sweep_file(candidate);
  std::map<std::string, const CaseResult*> a_by_id;
  for (const auto& c : a) a_by_id[case_id(c.spec)] = &c;

  std::vector<PairedBar> bars;
  std::string rows;
  int worse = 0, better = 0, only_b = 0;
  std::set<std::string> pipe_names;
  for (const auto& c : b) {
    const std::string id = case_id(c.spec);
    const auto it = a_by_id.find(id);
    const CaseResult* base = it == a_by_id.end() ? nullptr : it->second;
    std::string change = "new", cls;
    if (base != nullptr && base->status == CaseStatus::ok && c.status == CaseStatus::ok && base->device_us > 0) {
      const double pct = 100 * (c.device_us / base->device_us - 1);
      change = fmt::format("{:+.2f}%", pct);
      cls = pct > 0 ? "worse" : pct < 0 ? "better" : "";
      worse += pct > 0 ? 1 : 0;
      better += pct < 0 ? 1 : 0;
      bars.push_back({id, base->device_us, c.device_us});
    } else if (base != nullptr && base->status != c.status) {
      change = fmt::format("{} &rarr; {}", case_status_name(base->status), case_status_name(c.status));
      cls = c.status == CaseStatus::ok ? "better" : "worse";
    }
    only_b += base == nullptr ? 1 : 0;
    rows += fmt::format(
        R"(<tr><td class="id">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class="{}">{}</td><td class="id">{}</td><td class="id">{}</td></tr>)",
        html_escape(id), base ? case_status_name(base->status) : "-", case_status_name(c.status),
        base ? fmt::format("{:.2f}", base->device_us) : "-", fmt::format("{:.2f}", c.device_us), cls, change,
        base ? pipes_cell(base->pipes) : "-", pipes_cell(c.pipes));
    for (const auto& [p, u] : c.pipes) pipe_names.insert(p);
  }
  // Mean utilisation per pipe over the cases both runs verified.
  std::vector<PairedBar> pipe_bars;
  for (const auto& p : pipe_names) {
    PairedBar bar{p, 0, 0};
    int n = 0;
    for (const auto& c : b) {
      const auto it = a_by_id.find(case_id(c.spec));
      if (it == a_by_id.end() || c.status != CaseStatus::ok || it->second->status != CaseStatus::ok) continue;
      bar.a += it->second->pipes.count(p) ? 100 * it->second->pipes.at(p) : 0;
      bar.b += c.pipes.count(p) ? 100 * c.pipes.at(p) : 0;
      ++n;
    }
    if (n > 0) pipe_bars.push_back({p, bar.a / n, bar.b / n});
  }
  const std::string body = fmt::format(
      R"(<p class="spec">baseline (grey): {} &middot; candidate: {} &middot; {} cases, {} slower, {} faster, {} new</p>
<h2>Simulated device time per case (us)</h2>{}
<h2>Mean pipe utilisation over the cases both verified (%)</h2>{}
<h2>Every case</h2><table><tr><th class="id">case (sample shape dtype block_dim keys chip)</th><th>baseline</th><th>candidate</th>
<th>baseline us</th><th>candidate us</th><th>change</th><th class="id">baseline pipes</th><th class="id">candidate pipes</th></tr>{}</table>)",
      html_escape(baseline), html_escape(candidate), b.size(), worse, better, only_b, html_paired_bar_chart("cases", bars, "us"),
      html_paired_bar_chart("pipes", pipe_bars, "%"), rows);
  std::ofstream f(out);
  PTO_USER_CHECK(f.good(), ErrorSite{}) << "cannot write " << out;
  f << html_page("PTO-JIT sweep comparison", body);
  return out;
}

}  // namespace pto::cli
