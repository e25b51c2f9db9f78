#include "pto/runtime/Advisor.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pto/runtime/JsonFile.hpp"

namespace pto {
namespace {

using ir::Pipe;

struct PipeView {
  Pipe pipe;
  double util;
};

}  // namespace

Advice advise(const LaunchProfile& p, const ChipProfile& chip) {
  Advice a;
  a.kernel = p.kernel;
  a.device_us = p.device_us;
  PTO_USER_CHECK(p.timed, ErrorSite{.kernel = p.kernel}) << "the launch was not timed (JitOptions{.timing = false}); nothing to advise";

  // Roofline: GM bytes at the launch's achievable bandwidth, vector FLOPs at the vector peak of
  // the AIVs, cube MACs at the cube peak of the AICs (the two units work side by side).
  const int aivs = p.mode == "mix" ? 2 * p.block_dim : (p.mode == "cube" ? 0 : p.block_dim);
  // GM: the bytes that reach HBM at its sustained rate, and reads and writes at what the L2 and
  // the cores' own paths can serve (a kernel whose re-reads hit L2 is not bound by HBM).
  double read_bytes = 0, write_bytes = 0;
  for (const auto& c : p.cores) {
    read_bytes += c.gm_read_bytes;
    write_bytes += c.gm_write_bytes;
  }
  const double cores = p.block_dim * (p.mode == "mix" ? 3.0 : 1.0);
  auto gbps = [&](PathId a, PathId b) {  // the faster of two paths on every core, B/cycle -> GB/s
    return std::max(chip.path(a).peak_bytes_per_cycle, chip.path(b).peak_bytes_per_cycle) * chip.clock_ghz * cores;
  };
  const double read_gbps = gbps(PathId::GmToVec, PathId::GmToMat), write_gbps = gbps(PathId::VecToGm, PathId::AccToGm);
  const double peak_gflops = chip.vector_bytes_per_cycle() / 4.0 * chip.clock_ghz * std::max(1, aivs);  // f32 lanes
  const double memory_us = std::max({p.hbm_bytes / (chip.hbm_gbps * 1e3), p.gm_bytes / (chip.l2_gbps * 1e3),
                                     read_bytes / (read_gbps * 1e3), write_bytes / (write_gbps * 1e3)});
  const double bandwidth_gbps = memory_us > 0 ? p.gm_bytes / (memory_us * 1e3) : chip.hbm_gbps;
  const double vector_flops = std::max(0.0, p.flops - 2 * p.macs);
  const double vector_us = vector_flops / (peak_gflops * 1e3);
  const double cube_us = p.mac_util * (p.device_us - p.launch_overhead_us);  // MACs at the cube's peak
  a.bound_us = p.launch_overhead_us + std::max({memory_us, vector_us, cube_us});
  a.achieved_over_bound = a.bound_us > 0 ? p.device_us / a.bound_us : 0;
  a.evidence.push_back(fmt::format("device {:.2f} us vs roofline bound {:.2f} us ({:.2f}x): {:.0f} B at {:.0f} GB/s = {:.2f} us, "
                                   "{:.0f} vector FLOP at {:.0f} GFLOP/s = {:.2f} us, {}launch {:.1f} us",
                                   p.device_us, a.bound_us, a.achieved_over_bound, p.gm_bytes, bandwidth_gbps, memory_us, vector_flops,
                                   peak_gflops, vector_us,
                                   p.macs > 0 ? fmt::format("{:.0f} cube MACs at peak = {:.2f} us, ", p.macs, cube_us) : std::string(),
                                   p.launch_overhead_us));

  const double span_us = p.device_us - p.launch_overhead_us;
  std::vector<PipeView> pipes;
  double util_sum = 0, wait_sum = 0;
  for (Pipe pipe : {Pipe::MTE2, Pipe::V, Pipe::MTE3, Pipe::M, Pipe::MTE1, Pipe::FIX}) {
    const double u = p.pipe_utilization(pipe);
    if (u <= 0) continue;
    pipes.push_back({pipe, u});
    util_sum += u;
  }
  uint64_t barriers = 0;
  for (const auto& c : p.cores) {
    for (const auto& t : c.pipes) {
      if (t.instructions > 0) wait_sum += t.wait;  // waits of the pipes that work
    }
    barriers += c.barriers;
  }
  const double wait_frac = p.cores.empty() || span_us <= 0 ? 0 : p.us(wait_sum / static_cast<double>(p.cores.size())) / span_us;
  std::sort(pipes.begin(), pipes.end(), [](const PipeView& x, const PipeView& y) { return x.util > y.util; });
  std::string util_text;
  for (const auto& v : pipes) util_text += fmt::format("{}{} {:.0f}%", util_text.empty() ? "" : ", ", ir::pipe_name(v.pipe), 100 * v.util);
  a.evidence.push_back("pipe utilisation: " + util_text);

  double mean = 0, slowest = 0;
  int idle = 0;
  for (size_t i = 0; i < p.core_us.size(); ++i) {
    mean += p.core_us[i];
    slowest = std::max(slowest, p.core_us[i]);
    uint64_t n = 0;
    for (const auto& t : p.cores[i].pipes) n += t.instructions;
    if (n == 0) ++idle;
  }
  mean /= std::max<size_t>(1, p.core_us.size());
  const double spread = mean > 0 ? slowest / mean : 1;
  a.evidence.push_back(fmt::format("cores: {} blocks, mean {:.2f} us, slowest {:.2f} us ({:.2f}x), {} idle", p.block_dim, mean, slowest,
                                   spread, idle));
  const Pipe top = pipes.empty() ? Pipe::S : pipes.front().pipe;
  const double top_util = pipes.empty() ? 0 : pipes.front().util;
  const bool gm_pipe = top == Pipe::MTE2 || top == Pipe::MTE3 || top == Pipe::FIX;
  // HBM as the replay saw it: what reached it, against its sustained rate, and what L2 served.
  const double hbm_gbps = span_us > 0 ? p.hbm_bytes / (span_us * 1e3) : 0;
  const double l2_hit_frac = read_bytes > 0 ? p.l2_hit_bytes / read_bytes : 0;
  a.evidence.push_back(fmt::format("HBM {:.0f} GB/s of its sustained {:.0f} GB/s; L2 served {:.0f}% of the GM bytes read", hbm_gbps,
                                   chip.hbm_gbps, 100 * l2_hit_frac));
  // FIX and MTE3 also move data between the cores' local memories (Acc -> Vec, Vec -> Mat): how
  // much of the busiest pipe's time is that, rather than GM traffic.
  double top_busy = 0, top_on_chip = 0, top_convert = 0;
  for (const auto& c : p.cores) {
    top_busy += c.pipes[static_cast<size_t>(top)].busy;
    top_on_chip += c.pipes[static_cast<size_t>(top)].on_chip;
    top_convert += c.pipes[static_cast<size_t>(top)].convert;
  }
  const double on_chip_frac = top_busy > 0 ? top_on_chip / top_busy : 0;
  // Layout conversions on the way (ND -> NZ into L1, block transposes into L0, NZ -> ND out of L0C).
  const double convert_frac = top_busy > 0 ? top_convert / top_busy : 0;
  if (convert_frac >= 0.1) {
    a.evidence.push_back(fmt::format("{} spends {:.0f}% of its busy time converting layouts ({})", ir::pipe_name(top), 100 * convert_frac,
                                     top == Pipe::MTE1 ? "block transposes on L1 -> L0 loads"
                                     : top == Pipe::FIX ? "NZ -> ND out of L0C"
                                                        : "ND -> NZ on GM -> L1 loads"));
  }

  if (p.launch_overhead_us >= 0.5 * p.device_us) {
    a.bottleneck = "launch-dominated";
    a.evidence.push_back(fmt::format("launch overhead {:.1f} us is {:.0f}% of the device time", p.launch_overhead_us,
                                     100 * p.launch_overhead_us / p.device_us));
    a.suggestion = "the kernel is too small to amortise its start: fuse it with neighbours or batch more work per launch, and judge "
                   "the gain end to end";
  } else if (idle > 0) {
    a.bottleneck = "too many cores";
    a.evidence.push_back(fmt::format("{} of {} blocks had no work", idle, p.block_dim));
    a.suggestion = fmt::format("choose block_dim from the number of tiles: at most {} blocks have work here", p.block_dim - idle);
  } else if (spread >= 1.25) {
    a.bottleneck = "core imbalance";
    a.evidence.push_back(fmt::format("the slowest core takes {:.2f}x the mean", spread));
    a.suggestion = "spread tiles evenly: number them and assign them with a stride of block_num, keep tails from piling on one core";
  } else if (gm_pipe && top_util >= 0.7 && on_chip_frac >= 0.5) {
    a.bottleneck = "on-chip move-bound";
    a.evidence.push_back(fmt::format("{} spends {:.0f}% of its busy time moving data between local memories (Acc -> Vec, Vec -> Mat), "
                                     "not GM",
                                     ir::pipe_name(top), 100 * on_chip_frac));
    a.suggestion = "the path between the cores' memories is the limit: move fewer bytes across (convert to half on the way out of "
                   "L0C, keep data in the core that uses it), or split the traffic between FIX (Acc -> Vec) and MTE3 (Vec -> Mat)";
  } else if (top_util >= 0.5 && convert_frac >= 0.3) {
    a.bottleneck = "format conversions";
    a.suggestion =
        top == Pipe::MTE1
            ? "L1 -> L0 loads transpose every block: give the operand in the order L0 wants (B as N x K moved with {.transpose = true}, "
              "or loaded through a column-major view into a ZN L1 tile), so the load is a straight block copy"
        : top == Pipe::FIX
            ? "the accumulator's NZ -> ND conversion on the way out is the limit: store it less often (accumulate longer in L0C) or in "
              "a smaller dtype"
            : "ND -> NZ on the GM -> L1 loads runs at a fraction of the DMA's rate: keep the GM rows a multiple of 256 B (pad K or N) "
              "and load larger panels, so fewer and aligned rows are converted";
  } else if (gm_pipe && top_util >= 0.7 && hbm_gbps >= 0.8 * chip.hbm_gbps) {
    a.bottleneck = "bandwidth-saturated";
    a.evidence.push_back(fmt::format("HBM runs at {:.0f}% of its sustained {:.0f} GB/s while {} is busy {:.0f}% of the time: more "
                                     "cores cannot help",
                                     100 * hbm_gbps / chip.hbm_gbps, chip.hbm_gbps, ir::pipe_name(top), 100 * top_util));
    a.suggestion = "the shared GM bandwidth is the limit: move fewer bytes (reuse tiles on chip, smaller dtypes) or use fewer blocks "
                   "for the same time";
  } else if (barriers > 0 && wait_frac >= 0.3 && top_util < 0.7) {
    a.bottleneck = "sync waits";
    a.evidence.push_back(fmt::format("working pipes are held back {:.0f}% of the time; {} pipe_barrier(ALL) executed", 100 * wait_frac,
                                     barriers));
    a.suggestion = "check mutexes, tile reuse and hand-written flags; remove needless barriers while keeping the real dependencies";
  } else if (!gm_pipe && top_util >= 0.7) {
    a.bottleneck = "compute-bound";
    a.suggestion = "the compute pipe is nearly always busy: cut redundant vector work, fuse expressions, use a cheaper dtype";
  } else if (gm_pipe && top_util >= 0.7) {
    a.bottleneck = "GM-bound";
    a.suggestion = "data movement dominates: make moves larger and contiguous, reuse data on chip, avoid reloading and rewriting";
  } else if (wait_frac >= 0.3 && top_util < 0.7) {
    a.bottleneck = "load/compute serialised";
    a.evidence.push_back(fmt::format("no pipe is busy more than {:.0f}% of the time while the working pipes wait for each other {:.0f}% "
                                     "of it: the pipes take turns instead of overlapping",
                                     100 * top_util, 100 * wait_frac));
    a.suggestion = "overlap the next tile's load with this tile's compute: use tile groups with 2 or more slots (double buffering)";
  } else {
    a.bottleneck = "balanced";
    a.suggestion = "no single pipe dominates; compare with the roofline bound before tuning further";
  }
  return a;
}

Advice advise(const LaunchProfile& p) { return advise(p, ChipProfile::get(p.chip)); }

std::vector<Advice> advise_directory(const std::string& dir) {
  const auto path = std::filesystem::path(dir) / "profile.json";
  std::map<std::string, std::vector<LaunchProfile>> by_kernel;
  int steps = 0;
  std::array<int, 4> schedule{};
  read_json_file(path, "profile", "no profile in '" + dir + "': " + path.string() + " is missing (write one with pto profile or pto::Profiler)",
                 [&](const nlohmann::json& j) {
                   for (const auto& l : j.at("launches")) {
                     by_kernel[l.at("profile").at("kernel")].push_back(launch_profile_from_json(l.at("profile").dump()));
                   }
                   const auto& s = j.at("schedule");
                   steps = j.at("steps").get<int>();
                   schedule = {s.at("skip_first").get<int>(), s.at("wait").get<int>(), s.at("warmup").get<int>(), s.at("active").get<int>()};
                 });
  PTO_USER_CHECK(!by_kernel.empty(), ErrorSite{})
      << "no target kernel in the profile '" << dir << "': the profiler recorded no launch. It ran " << steps
      << " steps with schedule skip_first=" << schedule[0] << ", wait=" << schedule[1] << ", warmup=" << schedule[2]
      << ", active=" << schedule[3]
      << ": check that the loop ran, that step() is called once per iteration and covers skip_first + wait + warmup + active, "
         "and that activities include NPU";
  std::vector<Advice> out;
  for (auto& [kernel, launches] : by_kernel) {
    std::sort(launches.begin(), launches.end(), [](const auto& x, const auto& y) { return x.device_us < y.device_us; });
    out.push_back(advise(launches[launches.size() / 2]));
  }
  return out;
}

}  // namespace pto
