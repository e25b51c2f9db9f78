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

double LaunchProfile::pipe_utilization(ir::Pipe pipe) const {
  const double span_cycles = (device_us - launch_overhead_us) * clock_ghz * 1e3;
  if (cores.empty() || span_cycles <= 0) return 0;
  // Averaged over the cores that have the pipe (AICs for M/MTE1/FIX, AIVs for V/MTE3).
  const bool cube_pipe = pipe == ir::Pipe::M || pipe == ir::Pipe::MTE1 || pipe == ir::Pipe::FIX;
  const bool vector_pipe = pipe == ir::Pipe::V || pipe == ir::Pipe::MTE3;
  double sum = 0;
  int n = 0;
  for (const auto& c : cores) {
    const bool aic = c.kind == static_cast<int>(ir::CoreKind::AIC);
    if ((cube_pipe && !aic) || (vector_pipe && aic)) continue;
    sum += c.pipes[static_cast<int>(pipe)].busy;
    ++n;
  }
  return n == 0 ? 0 : sum / n / span_cycles;
}

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
  // Replace files by unlinking them first: truncating a file in place makes ext4 flush its old
  // pages synchronously (auto_da_alloc), which would cost more than writing the new ones.
  for (const char* name : {"kernel_details.csv", "trace_view.json", "profile.json"}) fs::remove(dir / name, ec);

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

  // trace_view.json, streamed with fmt: it is the largest file (one event per instruction).
  {
    fmt::memory_buffer out;
    auto it = std::back_inserter(out);
    bool first = true;
    auto sep = [&] {
      if (!first) out.push_back(',');
      first = false;
    };
    auto quoted = [](const std::string& text) { return nlohmann::json(text).dump(); };  // JSON string escaping
    auto meta = [&](int pid, int tid, const char* what, const std::string& name) {
      sep();
      fmt::format_to(it, R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{{"name":{}}}}})", pid, tid, what, quoted(name));
    };
    fmt::format_to(it, R"({{"displayTimeUnit":"ns","traceEvents":[)");
    meta(0, 0, "process_name", "Host");
    meta(0, 0, "thread_name", "API");
    meta(1, 0, "process_name", "Device");
    meta(1, 0, "thread_name", "Stream (launches)");
    for (const auto& h : host_) {
      sep();
      fmt::format_to(it, R"({{"ph":"X","pid":0,"tid":0,"name":{},"ts":{:.3f},"dur":{:.3f}}})", quoted(h.name), h.start_us - start_us_,
                     h.end_us - h.start_us);
    }
    std::vector<std::string> core_names;  // "AIC 0", "AIV 1", ... by core index (first launch that has it)
    uint64_t flow_id = 0;
    size_t budget = 400000;  // instruction spans written at most
    for (const auto& [step, p] : launches_) {
      const double t0 = p.host_start_us - start_us_;
      sep();
      fmt::format_to(it, R"({{"ph":"X","pid":1,"tid":0,"name":{},"ts":{:.4f},"dur":{:.4f},"args":{{"step":{},"block_dim":{},"specialization":{}}}}})",
                     quoted(p.kernel), t0, p.device_us, step, p.block_dim, quoted(p.specialization));
      // Instruction names, texts and sources are escaped once per launch, not once per span.
      std::vector<std::string> names, args;
      for (size_t i = 0; i < p.instr_names.size(); ++i) {
        names.push_back(quoted(p.instr_names[i]));
        args.push_back(fmt::format(R"({{"instruction":{},"source":{}}})", quoted(p.instr_texts[i]), quoted(p.instr_sources[i])));
      }
      const double base = t0 + p.launch_overhead_us;
      const int per_block = p.mode == "mix" ? kCoresPerBlock : 1;
      for (size_t core = 0; core < p.spans.size(); ++core) {
        if (core_names.size() <= core) {
          const bool aic = core < p.cores.size() && p.cores[core].kind == static_cast<int>(ir::CoreKind::AIC);
          const int block = static_cast<int>(core) / per_block, slot = static_cast<int>(core) % per_block;
          core_names.push_back(fmt::format("{} core {}", aic ? "AIC" : "AIV", per_block > 1 && slot > 0 ? 2 * block + slot - 1 : block));
        }
        const int pid = 2 + static_cast<int>(core);
        for (const auto& sp : p.spans[core]) {
          if (budget == 0) break;
          --budget;
          const bool named = sp.instr >= 0 && sp.instr < static_cast<int>(names.size());
          sep();
          fmt::format_to(it, R"({{"ph":"X","pid":{},"tid":{},"name":{},"ts":{:.4f},"dur":{:.4f},"args":{}}})", pid, sp.pipe,
                         named ? names[sp.instr] : "\"instr\"", base + p.us(sp.start), p.us(sp.end - sp.start), named ? args[sp.instr] : "{}");
        }
        if (core < p.flows.size()) {
          for (const auto& f : p.flows[core]) {
            const uint64_t id = ++flow_id;
            sep();
            // A cross-core flag starts on the setting core of the same block.
            const int src_pid = f.src_slot < 0 ? pid : 2 + static_cast<int>(core) / per_block * per_block + f.src_slot;
            fmt::format_to(it, R"({{"ph":"s","pid":{},"tid":{},"id":{},"name":"flag","cat":"sync","ts":{:.4f}}})", src_pid, f.src, id,
                           base + p.us(f.set_time));
            sep();
            fmt::format_to(it, R"({{"ph":"f","bp":"e","pid":{},"tid":{},"id":{},"name":"flag","cat":"sync","ts":{:.4f}}})", pid, f.dst, id,
                           base + p.us(f.wait_time));
          }
        }
      }
    }
    for (int core = 0; core < static_cast<int>(core_names.size()); ++core) {
      meta(2 + core, 0, "process_name", core_names[core]);
      for (int pipe = 0; pipe < kPipeCount; ++pipe) meta(2 + core, pipe, "thread_name", ir::pipe_name(static_cast<ir::Pipe>(pipe)));
    }
    fmt::format_to(it, "]}}");
    std::ofstream file(dir / "trace_view.json");
    PTO_USER_CHECK(file.good(), ErrorSite{}) << "cannot write " << (dir / "trace_view.json").string();
    file.write(out.data(), static_cast<std::streamsize>(out.size()));
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
      // Every core's spans are in trace_view.json; the report draws the slowest core's.
      const auto& p = launches_[i].second;
      const int slowest = p.core_us.empty() ? -1
                                            : static_cast<int>(std::max_element(p.core_us.begin(), p.core_us.end()) - p.core_us.begin());
      out << (i ? "," : "") << "{\"step\":" << launches_[i].first << ",\"profile\":" << to_json(p, true, slowest) << "}";
    }
    out << "]}";
  }
}

}  // namespace pto
