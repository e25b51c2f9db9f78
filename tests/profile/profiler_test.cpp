// pto::Profiler: the schedule, and the files it writes parsed back.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "01_vector_add/vector_add.hpp"

namespace {

namespace va = pto::samples::vector_add;
namespace fs = std::filesystem;
using pto::samples::SyncMode;

std::string fresh_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("pto_profile_test_" + name);
  fs::remove_all(d);
  return d.string();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

struct Fixture {
  pto::Kernel<void(pto::lang::Tensor<float>, pto::lang::Tensor<float>, pto::lang::Tensor<float>)> kernel;
  pto::Tensor<float> x, y, z;
  explicit Fixture(va::Params p = {.tile = 2048}, int64_t n = 20000)
      : kernel(va::make_kernel<float>(p)), x(pto::Tensor<float>::random({n}, 1)), y(pto::Tensor<float>::random({n}, 2)),
        z(pto::Tensor<float>::zeros({n})) {}
  void launch(int block_dim = 4) {
    kernel[{.block_dim = block_dim}](x, y, z);
    pto::synchronize();
  }
};

TEST_CASE("the_schedule_records_only_active_steps") {
  Fixture f;
  f.launch();  // JIT warm-up outside the profile
  const auto dir = fresh_dir("schedule");
  pto::Profiler prof({.schedule = pto::schedule(1, 1, 2, 1, 2), .output_dir = dir});
  using Phase = pto::Profiler::Phase;
  const Phase expected[] = {Phase::skip, Phase::skip, Phase::wait, Phase::warmup, Phase::active, Phase::active, Phase::done, Phase::done};
  prof.start();
  for (Phase want : expected) {
    CHECK(prof.phase() == want);
    f.launch();
    prof.step();
  }
  prof.stop();
  const auto launches = prof.launches();
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].first == 4);
  CHECK(launches[1].first == 5);
}

TEST_CASE("kernel_details_csv_has_torch_npu_columns_and_one_row_per_launch") {
  Fixture f;
  f.launch();
  const auto dir = fresh_dir("csv");
  pto::Profiler prof({.schedule = pto::schedule(0, 1, 3), .output_dir = dir});
  prof.start();
  for (int i = 0; i < 4; ++i) {
    f.launch(4);
    prof.step();
  }
  prof.stop();
  const auto rows = read_csv(fs::path(dir) / "kernel_details.csv");
  REQUIRE(rows.size() == 1 + 3);
  const std::vector<std::string> head(rows[0].begin(), rows[0].begin() + 9);
  CHECK(head == std::vector<std::string>{"Step Id", "Device_id", "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)",
                                         "Wait Time(us)", "Block Dim"});
  for (const char* col : {"aic_mac_ratio", "aic_mte1_ratio", "aic_mte2_ratio", "aic_fixpipe_ratio", "aic_scalar_ratio", "aiv_vec_ratio",
                          "aiv_mte2_ratio", "aiv_mte3_ratio", "aiv_scalar_ratio", "aiv_vec_time(us)", "aiv_mte2_time(us)"}) {
    CAPTURE(col);
    CHECK(std::find(rows[0].begin(), rows[0].end(), col) != rows[0].end());
  }
  const auto launches = prof.launches();
  auto col = [&](const char* name) { return std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin(); };
  double previous_start = -1;
  for (size_t r = 1; r < rows.size(); ++r) {
    REQUIRE(rows[r].size() == rows[0].size());
    CHECK(rows[r][col("Name")] == "vector_add");
    CHECK(rows[r][col("Block Dim")] == "4");
    CHECK(std::stoi(rows[r][col("Step Id")]) == launches[r - 1].first);
    CHECK(std::stod(rows[r][col("Duration(us)")]) == doctest::Approx(launches[r - 1].second.device_us).epsilon(1e-3));
    const double mte2 = std::stod(rows[r][col("aiv_mte2_ratio")]);
    CHECK(mte2 == doctest::Approx(launches[r - 1].second.pipe_utilization(pto::ir::Pipe::MTE2)).epsilon(1e-4));
    CHECK(mte2 > 0);
    CHECK(mte2 <= 1);
    const double start = std::stod(rows[r][col("Start Time(us)")]);
    CHECK(start > previous_start);
    previous_start = start;
  }
}

TEST_CASE("trace_view_json_places_instruction_spans_inside_their_launch") {
  Fixture f({.buffers = 2, .tile = 2048, .sync = SyncMode::manual});
  f.launch(2);
  const auto dir = fresh_dir("trace");
  pto::Profiler prof({.schedule = pto::schedule(0, 0, 1), .output_dir = dir});
  prof.start();
  f.launch(2);
  prof.step();
  prof.stop();
  const auto j = nlohmann::json::parse(slurp(fs::path(dir) / "trace_view.json"));
  const auto& events = j.at("traceEvents");
  double launch_ts = -1, launch_end = -1;
  int host_spans = 0, instr_spans = 0, flow_starts = 0, flow_ends = 0;
  for (const auto& e : events) {
    if (e.at("ph") == "X" && e.at("pid") == 1) {
      launch_ts = e.at("ts");
      launch_end = launch_ts + e.at("dur").get<double>();
    }
  }
  REQUIRE(launch_ts >= 0);
  std::set<std::string> host_names;
  for (const auto& e : events) {
    if (e.at("ph") == "X" && e.at("pid") == 0) {
      ++host_spans;
      host_names.insert(e.at("name").get<std::string>().substr(0, e.at("name").get<std::string>().find(' ')));
    }
    if (e.at("ph") == "X" && e.at("pid").get<int>() >= 2) {
      ++instr_spans;
      const double ts = e.at("ts"), end = ts + e.at("dur").get<double>();
      CHECK(ts >= launch_ts - 2e-4);  // the file keeps 4 decimals of a microsecond
      CHECK(end <= launch_end + 2e-4);
      CHECK(e.at("args").at("source").get<std::string>().find("vector_add.hpp:") != std::string::npos);
    }
    if (e.at("ph") == "s") ++flow_starts;
    if (e.at("ph") == "f") ++flow_ends;
  }
  CHECK(host_names.count("launch") == 1);
  CHECK(host_names.count("synchronize") == 1);
  // 20000 elements in 2048-element tiles: 10 tiles, 4 instructions each
  CHECK(instr_spans == 10 * 4);
  CHECK(flow_starts > 0);
  CHECK(flow_starts == flow_ends);
}

TEST_CASE("a_profile_the_schedule_never_reached_says_so") {
  Fixture f;
  f.launch();
  const auto dir = fresh_dir("unreached");
  pto::Profiler prof({.schedule = pto::schedule(0, 1, 2, 1, 5), .output_dir = dir});
  prof.start();
  for (int i = 0; i < 3; ++i) {  // fewer steps than skip_first
    f.launch();
    prof.step();
  }
  prof.stop();
  CHECK(prof.launches().empty());
  try {
    pto::advise_directory(dir);
    FAIL("expected an error");
  } catch (const pto::UserError& e) {
    const std::string what = e.what();
    CHECK(what.find("no target kernel") != std::string::npos);
    CHECK(what.find("skip_first=5") != std::string::npos);
    CHECK(what.find("step()") != std::string::npos);
  }
}

TEST_CASE("only_one_profiler_runs_at_a_time") {
  pto::Profiler a({.output_dir = fresh_dir("one")}), b({.output_dir = fresh_dir("two")});
  a.start();
  CHECK_THROWS_WITH_AS(b.start(), doctest::Contains("already running"), pto::UserError);
  a.stop();
  b.start();
  b.stop();
}

TEST_CASE("bench_reports_the_seeds_measurements") {
  Fixture f;
  pto::BenchResult r = pto::bench(pto::BenchOptions{.warmup = 2, .repeat = 5, .print = false}, f.kernel, {.block_dim = 2}, f.x, f.y, f.z);
  CHECK(r.kernel == "vector_add");
  CHECK(r.compiled_here);
  CHECK(r.cold.optimise_ms > 0);
  CHECK(r.cold.codegen_ms > 0);
  CHECK(r.repeat == 5);
  CHECK(r.min_us <= r.p10_us);
  CHECK(r.p10_us <= r.median_us);
  CHECK(r.median_us <= r.p90_us);
  CHECK(r.p90_us <= r.max_us);
  CHECK(r.async_per_launch_us > 0);
  CHECK(r.sync_latency_us > 0);
  CHECK(r.device_us == pto::last_launch()->device_us);
  CHECK(r.warnings.empty());
  auto cold = pto::bench(pto::BenchOptions{.warmup = 0, .repeat = 2, .print = false}, f.kernel, {.block_dim = 2}, f.x, f.y, f.z);
  CHECK_FALSE(cold.compiled_here);
  REQUIRE(cold.warnings.size() == 1);
  CHECK(cold.warnings[0].find("no warm-up") != std::string::npos);
  CHECK(r.str().find("median") != std::string::npos);
}

}  // namespace
