#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pto/runtime/LaunchProfile.hpp"

namespace pto {

using nlohmann::json;

std::string to_json(const LaunchProfile& p, bool with_spans, int spans_core) {
  json cores = json::array();
  for (const auto& c : p.cores) {
    json pipes = json::array();
    for (const auto& t : c.pipes) {
      pipes.push_back({{"busy", t.busy}, {"wait", t.wait}, {"on_chip", t.on_chip}, {"convert", t.convert}, {"instructions", t.instructions}});
    }
    cores.push_back({{"end_cycles", c.end_cycles}, {"pipes", pipes}, {"gm_read_bytes", c.gm_read_bytes},
                     {"gm_write_bytes", c.gm_write_bytes}, {"flops", c.flops}, {"barriers", c.barriers},
                     {"kind", ir::core_kind_name(static_cast<ir::CoreKind>(c.kind))}, {"macs", c.macs}});
  }
  json races = json::array();
  for (const auto& r : p.races) {
    races.push_back({{"kind", r.kind}, {"core", r.core}, {"resource", r.resource}, {"first_instr", r.first_instr},
                     {"second_instr", r.second_instr}, {"first", r.first}, {"second", r.second}, {"count", r.count}});
  }
  json j{{"kernel", p.kernel}, {"specialization", p.specialization}, {"chip", p.chip}, {"block_dim", p.block_dim},
         {"timed", p.timed}, {"clock_ghz", p.clock_ghz}, {"launch_overhead_us", p.launch_overhead_us},
         {"device_us", p.device_us}, {"core_us", p.core_us}, {"cores", cores}, {"races", races}, {"warnings", p.warnings},
         {"gm_bytes", p.gm_bytes}, {"flops", p.flops}, {"instructions", p.instructions}, {"host_us", p.host_us},
         {"host_start_us", p.host_start_us}, {"l2_hit_bytes", p.l2_hit_bytes}, {"hbm_bytes", p.hbm_bytes}, {"mode", p.mode}, {"macs", p.macs},
         {"mac_util", p.mac_util}};
  if (!with_spans) return j.dump();
  j["instr_names"] = p.instr_names;
  j["instr_texts"] = p.instr_texts;
  j["instr_sources"] = p.instr_sources;
  // Spans and flows are numbers only, many of them: written with fmt rather than as JSON objects.
  std::string text = j.dump();
  text.pop_back();  // the closing brace
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, ",\"spans\":[");
  auto keep = [&](size_t c) { return spans_core < 0 || static_cast<int>(c) == spans_core; };
  for (size_t c = 0; c < p.spans.size(); ++c) {
    fmt::format_to(it, "{}[", c ? "," : "");
    for (size_t i = 0; keep(c) && i < p.spans[c].size(); ++i) {
      const auto& s = p.spans[c][i];
      fmt::format_to(it, "{}[{},{},{},{}]", i ? "," : "", s.instr, s.pipe, s.start, s.end);
    }
    fmt::format_to(it, "]");
  }
  fmt::format_to(it, "],\"flows\":[");
  for (size_t c = 0; c < p.flows.size(); ++c) {
    fmt::format_to(it, "{}[", c ? "," : "");
    for (size_t i = 0; keep(c) && i < p.flows[c].size(); ++i) {
      const auto& f = p.flows[c][i];
      fmt::format_to(it, "{}[{},{},{},{},{},{},{}]", i ? "," : "", f.set_instr, f.wait_instr, f.src, f.dst, f.set_time, f.wait_time,
                     f.src_slot);
    }
    fmt::format_to(it, "]");
  }
  fmt::format_to(it, "]}}");
  return text + fmt::to_string(out);
}

LaunchProfile launch_profile_from_json(const std::string& text) {
  const json j = json::parse(text);
  LaunchProfile p;
  p.kernel = j.at("kernel");
  p.specialization = j.at("specialization");
  p.chip = j.at("chip");
  p.block_dim = j.at("block_dim");
  p.timed = j.at("timed");
  p.clock_ghz = j.at("clock_ghz");
  p.launch_overhead_us = j.at("launch_overhead_us");
  p.device_us = j.at("device_us");
  p.core_us = j.at("core_us").get<std::vector<double>>();
  for (const auto& c : j.at("cores")) {
    CoreTiming t;
    t.end_cycles = c.at("end_cycles");
    for (size_t i = 0; i < t.pipes.size() && i < c.at("pipes").size(); ++i) {
      const auto& q = c.at("pipes")[i];
      t.pipes[i] = {q.at("busy"), q.at("wait"), q.value("on_chip", 0.0), q.value("convert", 0.0), q.at("instructions")};
    }
    t.gm_read_bytes = c.at("gm_read_bytes");
    t.gm_write_bytes = c.at("gm_write_bytes");
    t.flops = c.at("flops");
    t.barriers = c.at("barriers");
    t.kind = c.value("kind", std::string("AIV")) == "AIC" ? 0 : 1;
    t.macs = c.value("macs", 0.0);
    p.cores.push_back(t);
  }
  for (const auto& r : j.at("races")) {
    RaceReport x;
    x.kind = r.at("kind");
    x.core = r.at("core");
    x.resource = r.at("resource");
    x.first_instr = r.at("first_instr");
    x.second_instr = r.at("second_instr");
    x.first = r.at("first");
    x.second = r.at("second");
    x.count = r.at("count");
    p.races.push_back(std::move(x));
  }
  p.warnings = j.at("warnings").get<std::vector<std::string>>();
  p.gm_bytes = j.at("gm_bytes");
  p.flops = j.at("flops");
  p.instructions = j.at("instructions");
  p.host_us = j.at("host_us");
  p.host_start_us = j.at("host_start_us");
  p.l2_hit_bytes = j.value("l2_hit_bytes", 0.0);
  p.hbm_bytes = j.value("hbm_bytes", 0.0);
  p.mode = j.value("mode", std::string("vector"));
  p.macs = j.value("macs", 0.0);
  p.mac_util = j.value("mac_util", 0.0);
  if (j.contains("spans")) {
    for (const auto& core : j.at("spans")) {
      std::vector<InstrSpan> c;
      for (const auto& s : core) c.push_back({s[0], s[1], s[2], s[3]});
      p.spans.push_back(std::move(c));
    }
    for (const auto& core : j.at("flows")) {
      std::vector<FlagFlow> c;
      for (const auto& f : core) c.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f.size() > 6 ? f[6].get<int>() : -1});
      p.flows.push_back(std::move(c));
    }
    p.instr_names = j.at("instr_names").get<std::vector<std::string>>();
    p.instr_texts = j.at("instr_texts").get<std::vector<std::string>>();
    p.instr_sources = j.at("instr_sources").get<std::vector<std::string>>();
  }
  return p;
}

}  // namespace pto
