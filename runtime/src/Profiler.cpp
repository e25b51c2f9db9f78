#include "pto/runtime/Profiler.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pto {
namespace {
std::atomic<Profiler*> running_profiler{nullptr};
std::mutex running_mu;  // guards handing launches to a profiler that may be stopping

// The PipeUtilization columns: (torch_npu name, core kind, pipe).
struct UtilColumn {
  const char* name;
  bool cube;
  ir::Pipe pipe;
};
constexpr UtilColumn kUtilColumns[] = {
    {"aic_mac", true, ir::Pipe::M},          {"aic_mte1", true, ir::Pipe::MTE1},  {"aic_mte2", true, ir::Pipe::MTE2},
    {"aic_fixpipe", true, ir::Pipe::FIX},    {"aic_scalar", true, ir::Pipe::S},   {"aiv_vec", false, ir::Pipe::V},
    {"aiv_mte2", false, ir::Pipe::MTE2},     {"aiv_mte3", false, ir::Pipe::MTE3}, {"aiv_scalar", false, ir::Pipe::S},
};
}  // namespace

namespace detail {
double host_now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
bool profiling() { return running_profiler.load(std::memory_order_relaxed) != nullptr; }
void notify_launch(const LaunchProfile& p) {
  if (!profiling()) return;
  std::lock_guard lock(running_mu);
  if (Profiler* prof = running_profiler.load()) prof->on_launch(p);
}
HostSpanScope::HostSpanScope(const char* what, const std::string* detail) : what_(what), detail_(detail) {
  if (profiling()) start_us_ = host_now_us();
}
HostSpanScope::~HostSpanScope() {
  if (start_us_ < 0 || !profiling()) return;
  std::lock_guard lock(running_mu);
  if (Profiler* prof = running_profiler.load()) {
    prof->on_host_span({detail_ ? fmt::format("{} {}", what_, *detail_) : std::string(what_), start_us_, host_now_us()});
  }
}
}  // namespace detail

double LaunchProfile::pipe_time_us(ir::Pipe pipe) const {
  if (cores.empty()) return 0;
  double sum = 0;
  for (const auto& c : cores) sum += c.pipes[static_cast<int>(pipe)].busy;
  return us(sum / static_cast<double>(cores.size()));
}

Profiler::Profiler(ProfilerOptions options) : options_(std::move(options)) {}

Profiler::~Profiler() {
  if (running_) {
    try {
      stop();
    } catch (...) {
      // a destructor does not throw; stop() explicitly to see write errors
    }
  }
}

Profiler::Phase Profiler::phase_of(int step) const {
  const Schedule& s = options_.schedule;
  if (step < s.skip_first) return Phase::skip;
  const int cycle = s.wait + s.warmup + s.active;
  const int j = step - s.skip_first;
  if (cycle <= 0 || (s.repeat > 0 && j >= s.repeat * cycle)) return Phase::done;
  const int r = j % cycle;
  if (r < s.wait) return Phase::wait;
  if (r < s.wait + s.warmup) return Phase::warmup;
  return Phase::active;
}

Profiler::Phase Profiler::phase() const {
  std::lock_guard lock(mu_);
  return phase_of(step_);
}

void Profiler::start() {
  Profiler* expected = nullptr;
  std::lock_guard lock(running_mu);
  PTO_USER_CHECK(running_profiler.compare_exchange_strong(expected, this), ErrorSite{})
      << "a pto::Profiler is already running; stop it before starting another";
  running_ = true;
  start_us_ = detail::host_now_us();
}

void Profiler::step() {
  std::lock_guard lock(mu_);
  ++step_;
}

void Profiler::stop() {
  {
    std::lock_guard lock(running_mu);
    if (running_profiler.load() == this) running_profiler.store(nullptr);
  }
  running_ = false;
  write_files();
}

void Profiler::on_launch(const LaunchProfile& p) {
  std::lock_guard lock(mu_);
  const bool npu = std::find(options_.activities.begin(), options_.activities.end(), ProfilerActivity::NPU) != options_.activities.end();
  if (npu && phase_of(step_) == Phase::active) launches_.emplace_back(step_, p);
}

void Profiler::on_host_span(HostSpan s) {
  std::lock_guard lock(mu_);
  const bool cpu = std::find(options_.activities.begin(), options_.activities.end(), ProfilerActivity::CPU) != options_.activities.end();
  if (cpu && phase_of(step_) == Phase::active) host_.push_back(std::move(s));
}

std::vector<std::pair<int, LaunchProfile>> Profiler::launches() const {
  std::lock_guard lock(mu_);
  return launches_;
}

void Profiler::write_files() const {
  namespace fs = std::filesystem;
  std::lock_guard lock(mu_);
  std::error_code ec;
  fs::create_directories(options_.output_dir, ec);
  PTO_USER_CHECK(!ec, ErrorSite{}) << "profiler output directory '" << options_.output_dir << "' cannot be created: " << ec.message();
  const fs::path dir(options_.output_dir);

  // kernel_details.csv
  {
    std::ofstream csv(dir / "kernel_details.csv");
    PTO_USER_CHECK(csv.good(), ErrorSite{}) << "cannot write " << (dir / "kernel_details.csv").string();
    csv << "Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim";
    for (const auto& c : kUtilColumns) csv << "," << c.name << "_time(us)," << c.name << "_ratio";
    csv << "\n";
    double previous_end = -1;
    for (const auto& [step, p] : launches_) {
      const double start = p.host_start_us - start_us_;
      const double wait = previous_end < 0 ? 0 : std::max(0.0, start - previous_end);
      previous_end = start + p.device_us;
      csv << fmt::format("{},0,{},AI_VECTOR_CORE,AI_VECTOR_CORE,{:.3f},{:.3f},{:.3f},{}", step, p.kernel, start, p.device_us, wait,
                         p.block_dim);
      for (const auto& c : kUtilColumns) {
        const bool present = !c.cube;  // vector kernels: the cube columns are 0
        csv << fmt::format(",{:.3f},{:.6f}", present ? p.pipe_time_us(c.pipe) : 0.0, present ? p.pipe_utilization(c.pipe) : 0.0);
      }
      csv << "\n";
    }
  }

  // trace_view.json
  {
    using nlohmann::json;
    json events = json::array();
    auto meta = [&](int pid, int tid, const char* what, const std::string& name) {
      events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", what}, {"args", {{"name", name}}}});
    };
    meta(0, 0, "process_name", "Host");
    meta(0, 0, "thread_name", "API");
    meta(1, 0, "process_name", "Device");
    meta(1, 0, "thread_name", "Stream (launches)");
    for (const auto& h : host_) {
      events.push_back({{"ph", "X"}, {"pid", 0}, {"tid", 0}, {"name", h.name}, {"ts", h.start_us - start_us_}, {"dur", h.end_us - h.start_us}});
    }
    int max_core = -1;
    uint64_t flow_id = 0;
    size_t budget = 400000;  // instruction spans written at most
    for (const auto& [step, p] : launches_) {
      const double t0 = p.host_start_us - start_us_;
      events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 0}, {"name", p.kernel}, {"ts", t0}, {"dur", p.device_us},
                        {"args", {{"step", step}, {"block_dim", p.block_dim}, {"specialization", p.specialization}}}});
      const double base = t0 + p.launch_overhead_us;
      for (size_t core = 0; core < p.spans.size(); ++core) {
        max_core = std::max(max_core, static_cast<int>(core));
        const int pid = 2 + static_cast<int>(core);
        for (const auto& s : p.spans[core]) {
          if (budget == 0) break;
          --budget;
          const bool named = s.instr >= 0 && s.instr < static_cast<int>(p.instr_names.size());
          events.push_back({{"ph", "X"}, {"pid", pid}, {"tid", s.pipe}, {"name", named ? p.instr_names[s.instr] : "instr"},
                            {"ts", base + p.us(s.start)}, {"dur", p.us(s.end - s.start)},
                            {"args", {{"instruction", named ? p.instr_texts[s.instr] : ""}, {"source", named ? p.instr_sources[s.instr] : ""}}}});
        }
        if (core < p.flows.size()) {
          for (const auto& f : p.flows[core]) {
            const uint64_t id = ++flow_id;
            events.push_back({{"ph", "s"}, {"pid", pid}, {"tid", f.src}, {"id", id}, {"name", "flag"}, {"cat", "sync"}, {"ts", base + p.us(f.set_time)}});
            events.push_back({{"ph", "f"}, {"bp", "e"}, {"pid", pid}, {"tid", f.dst}, {"id", id}, {"name", "flag"}, {"cat", "sync"},
                              {"ts", base + p.us(f.wait_time)}});
          }
        }
      }
    }
    for (int core = 0; core <= max_core; ++core) {
      meta(2 + core, 0, "process_name", fmt::format("AIV core {}", core));
      for (int pipe = 0; pipe < kPipeCount; ++pipe) meta(2 + core, pipe, "thread_name", ir::pipe_name(static_cast<ir::Pipe>(pipe)));
    }
    std::ofstream out(dir / "trace_view.json");
    PTO_USER_CHECK(out.good(), ErrorSite{}) << "cannot write " << (dir / "trace_view.json").string();
    out << json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump();
  }

  // profile.json: the full launches, for pto advise and pto report.
  {
    std::ofstream out(dir / "profile.json");
    PTO_USER_CHECK(out.good(), ErrorSite{}) << "cannot write " << (dir / "profile.json").string();
    const Schedule& s = options_.schedule;
    out << "{\"schedule\":" << nlohmann::json{{"wait", s.wait}, {"warmup", s.warmup}, {"active", s.active}, {"repeat", s.repeat},
                                              {"skip_first", s.skip_first}}.dump()
        << ",\"steps\":" << step_ << ",\"launches\":[";
    for (size_t i = 0; i < launches_.size(); ++i) {
      out << (i ? "," : "") << "{\"step\":" << launches_[i].first << ",\"profile\":" << to_json(launches_[i].second, true) << "}";
    }
    out << "]}";
  }
}

}  // namespace pto
