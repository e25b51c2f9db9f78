// The `pto` command line as a user calls it: field names are a contract.
#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_run.hpp"

namespace {

using namespace pto_cli_test;

TEST_CASE("pto_run_json_reports_the_launch_and_its_simulated_time") {
  auto j = run_json("run vector_add --shape 100000 --block-dim 4");
  CHECK(j["sample"] == "vector_add");
  CHECK(j["shape"] == nlohmann::json::array({100000}));
  CHECK(j["dtype"] == "f32");
  CHECK(j["block_dim"] == 4);
  CHECK(j["ok"] == true);
  CHECK(j["device_us"].get<double>() > 0);
  CHECK(j["core_us"].size() == 4);
  CHECK(j["pipes"].contains("MTE2"));
  CHECK(j["pipes"].contains("V"));
  CHECK(j["pipes"].contains("MTE3"));
  CHECK(j["races"].empty());
}

TEST_CASE("pto_run_softmax_takes_2d_shapes_and_dtypes") {
  for (const char* dtype : {"f32", "f16", "bf16"}) {
    auto j = run_json(std::string("run softmax --shape 64x300 --block-dim 3 --dtype ") + dtype);
    CHECK(j["ok"] == true);
    CHECK(j["shape"] == nlohmann::json::array({64, 300}));
    CHECK(j["dtype"] == dtype);
  }
}

TEST_CASE("pto_on_race_in_the_environment_overrides_the_kernels_choice_and_a_bad_value_is_one_clear_line") {
  const auto fail = run("run vector_add --shape 50000 --block-dim 2 --param sync=none", "2>&1", "PTO_ON_RACE=fail");
  INFO(fail.text);
  CHECK(fail.status != 0);
  CHECK(fail.text.find("on_race = fail") != std::string::npos);
  CHECK(fail.text.find("race on") != std::string::npos);
  const auto report = run_split("run vector_add --shape 50000 --block-dim 2 --param sync=none --json");
  const auto quiet = run("run vector_add --shape 50000 --block-dim 2 --param sync=none --json", "2>/dev/null", "PTO_ON_RACE=report");
  CHECK(quiet.status == 1);  // still a failed run: pto run exits non-zero on any race
  CHECK(report.err.find("pto: warning") != std::string::npos);
  const auto quiet_err = run("run vector_add --shape 50000 --block-dim 2 --param sync=none --json", "2>&1 >/dev/null", "PTO_ON_RACE=report");
  CHECK(quiet_err.text.find("pto: warning") == std::string::npos);
  const auto bad = run("run vector_add --shape 1024 --block-dim 1", "2>&1", "PTO_ON_RACE=sometimes");
  INFO(bad.text);
  CHECK(bad.status != 0);
  CHECK(bad.text.find("PTO_ON_RACE=sometimes is not one of report, warn, fail") != std::string::npos);
  CHECK(bad.text.find("terminate") == std::string::npos);
  const auto bad_tiers = run("run vector_add --shape 1024 --block-dim 1", "2>&1", "PTO_TIERED=yes");
  INFO(bad_tiers.text);
  CHECK(bad_tiers.status != 0);
  CHECK(bad_tiers.text.find("PTO_TIERED=yes is not 0 or 1") != std::string::npos);
  CHECK(bad_tiers.text.find("vector_add") != std::string::npos);  // names the kernel
  CHECK(bad_tiers.text.find("terminate") == std::string::npos);
}

TEST_CASE("pto_run_with_a_PTO_COMPILER_MODULE_that_is_not_the_module_is_one_clear_line") {
  for (const char* path : {"/nonexistent/libpto_compiler.so", "/etc/hostname"}) {
    CAPTURE(path);
    const auto o = run("run vector_add --shape 1024 --block-dim 1", "2>&1", std::string("PTO_CACHE_DIR=off PTO_COMPILER_MODULE=") + path);
    INFO(o.text);
    CHECK(o.status == 2);
    CHECK(o.text.rfind("pto: PTO_COMPILER_MODULE: cannot use " + std::string(path), 0) == 0);
    CHECK(std::count(o.text.begin(), o.text.end(), '\n') == 1);
  }
}

TEST_CASE("pto_run_with_a_param_key_the_sample_does_not_have_is_one_clear_line") {
  const auto o = run("run vector_add --shape 1024 --block-dim 1 --param bufers=1");
  INFO(o.text);
  CHECK(o.status == 2);
  CHECK(o.text.find("--param bufers=1: sample 'vector_add' has no parameter 'bufers' (its parameters: buffers, sync, tile)") !=
        std::string::npos);
  CHECK(std::count(o.text.begin(), o.text.end(), '\n') == 1);
  const auto bench = run("bench softmax --shape 64x64 --param tile=4");
  CHECK(bench.status == 2);
  CHECK(bench.text.find("has no parameter 'tile' (its parameters: buffers, rows_per_tile, sync)") != std::string::npos);
}

TEST_CASE("softmax_and_layernorm_rows_wider_than_the_ub_run_in_column_chunks_and_hand_written_flags_there_are_refused") {
  for (const char* args : {"run softmax --shape 3x20000 --block-dim 2", "run layernorm --shape 3x10000 --dtype f16 --block-dim 2"}) {
    const auto o = run(args);
    INFO(o.text);
    CHECK(o.status == 0);
    CHECK(o.text.find("ok             true") != std::string::npos);
    CHECK(o.text.find("races          0") != std::string::npos);
  }
  const auto manual = run("run softmax --shape 3x20000 --block-dim 2 --param sync=manual");
  INFO(manual.text);
  CHECK(manual.status == 2);
  CHECK(manual.text.find("rows wider than the UB holds are walked in column chunks, ordered by auto_mutex only: use sync=auto") !=
        std::string::npos);
}

TEST_CASE("pto_run_flash_attention_with_a_head_dim_short_of_whole_32_byte_rows_names_the_rule_and_its_source_line") {
  const auto o = run("run flash_attention --shape 64x24 --dtype f16 --block-dim 2");
  INFO(o.text);
  CHECK(o.status == 2);
  CHECK(o.text.find("kernel 'flash_attention'") != std::string::npos);
  CHECK(o.text.find("D must be a multiple of 32 / sizeof(T) (8 for f32, 16 for f16 and bf16)") != std::string::npos);
  CHECK(o.text.find("at: 06_flash_attention/flash_attention.hpp:") != std::string::npos);
  const auto f32 = run("run flash_attention --shape 64x40 --block-dim 2");  // 40 floats: 160 B, whole 32-byte units
  INFO(f32.text);
  CHECK(f32.status == 0);
  CHECK(f32.text.find("ok             true") != std::string::npos);
}

TEST_CASE("pto_run_sync_none_reports_races_warns_and_exits_non_zero") {
  // The numbers are right (the race is in simulated time only), but a race fails the run.
  const auto o = run_split("run vector_add --shape 50000 --block-dim 2 --param sync=none --json");
  CHECK(o.status == 1);
  const auto j = nlohmann::json::parse(o.out);
  CHECK(j["ok"] == true);
  CHECK_FALSE(j["races"].empty());
  // The default on_race (warn) printed each distinct race once, naming both instructions and lines.
  CHECK(o.err.find("pto: warning: kernel 'vector_add'") != std::string::npos);
  CHECK(o.err.find("race on") != std::string::npos);
  CHECK(o.err.find("vector_add.hpp:") != std::string::npos);
  auto m = run_json("run vector_add --shape 50000 --block-dim 2 --param sync=manual --param buffers=3 --param tile=4096");
  CHECK(m["races"].empty());
}

TEST_CASE("pto_run_follows_the_chip_profile") {
  auto a2 = run_json("run vector_add --shape 100000 --block-dim 4 --chip a2");
  auto a5 = run_json("run vector_add --shape 100000 --block-dim 4 --chip a5");
  CHECK(a2["chip"] == "a2");
  CHECK(a5["chip"] == "a5");
  CHECK(a2["device_us"] != a5["device_us"]);
  // 49 blocks exceed a2's 48 AIV cores but not a5's 64
  CHECK(run("run vector_add --shape 100000 --block-dim 49 --chip a2").status == 2);
  CHECK(run_json("run vector_add --shape 100000 --block-dim 49 --chip a5")["ok"] == true);
}

TEST_CASE("pto_bench_json_has_the_timing_fields") {
  auto j = run_json("bench vector_add --shape 65536 --block-dim 2 --vs-native --min-seconds 0.05 --repeat 3");
  for (const char* key : {"cold_ms", "warm_median_us", "warm_p10_us", "warm_p90_us", "gm_bytes", "gbps", "native_median_us",
                          "ratio_vs_native", "device_us"}) {
    CAPTURE(key);
    CHECK(j.contains(key));
  }
  CHECK(j["gm_bytes"] == 3 * 65536 * 4);
  CHECK(j["ok"] == true);
  CHECK(j["native_baseline"].get<std::string>().find("native::add_row on TBB") != std::string::npos);
}

TEST_CASE("pto_bench_cold_breakdown_names_engine_init_cache_load_and_first_run_apart") {
  const std::string cache = temp_dir("cold_breakdown") + "_" + std::to_string(getpid());
  auto bench = [&] {
    const auto o = run("bench vector_add --shape 4096 --block-dim 2 --min-seconds 0.01 --repeat 3 --json", "2>/dev/null", "PTO_CACHE_DIR=" + cache);
    REQUIRE(o.status == 0);
    return nlohmann::json::parse(o.text);
  };
  const auto parts = [](const nlohmann::json& j) {
    double sum = 0;
    for (const auto& [key, ms] : j["cold_breakdown_ms"].items()) {
      CAPTURE(key);
      CHECK(ms.get<double>() >= 0);
      sum += ms.get<double>();
    }
    return sum;
  };
  const auto cold = bench();  // compiled by LLVM, stored in the disk cache
  const auto& c = cold["cold_breakdown_ms"];
  for (const char* key : {"engine_init", "trace", "lower", "cache_load", "emit", "optimise", "codegen", "link", "first_run"}) {
    CAPTURE(key);
    CHECK(c.contains(key));
  }
  CHECK(c["engine_init"].get<double>() > 0);  // this process's first specialisation loaded the compiler
  CHECK(c["optimise"].get<double>() > 0);
  CHECK(c["cache_load"].get<double>() == 0);
  CHECK(c["first_run"].get<double>() > 0);
  CHECK(parts(cold) <= cold["cold_ms"].get<double>() * 1.05 + 0.5);  // the parts are inside the first call
  const auto hit = bench();  // a new process: the object comes from the disk cache
  const auto& h = hit["cold_breakdown_ms"];
  CHECK(h["optimise"].get<double>() == 0);
  CHECK(h["codegen"].get<double>() == 0);
  CHECK(h["cache_load"].get<double>() > 0);
  CHECK(h["engine_init"].get<double>() == 0);  // a cached kernel is a shared object: dlopen, no compiler
  CHECK(hit["llvm_loaded"] == false);           // the whole process ran without loading LLVM
  CHECK(cold["llvm_loaded"] == true);
  CHECK(parts(hit) <= hit["cold_ms"].get<double>() * 1.05 + 0.5);
  std::filesystem::remove_all(cache);
}

TEST_CASE("a_tiered_kernels_optimised_object_is_the_one_a_single_compile_makes") {
  // Two processes fill two disk caches with layernorm's optimised code: one compiles it once
  // (PTO_TIERED=0), the other first on the quick tier and then in the background (`pto bench`
  // awaits the tier-up). The optimised object has one key, so its machine code must not depend on
  // the quick compile the process ran before it (a leased LLVM TargetMachine is put back as it
  // was: NativeTarget::compile).
  const std::string once = temp_dir("tier_once") + "_" + std::to_string(getpid());
  const std::string tiered = temp_dir("tier_tiered") + "_" + std::to_string(getpid());
  const std::string args = "bench layernorm --shape 64x1024 --block-dim 1 --min-seconds 0.01 --repeat 3";
  REQUIRE(run(args, "2>&1 >/dev/null", "PTO_TIERED=0 PTO_CACHE_DIR=" + once).status == 0);
  REQUIRE(run(args, "2>&1 >/dev/null", "PTO_TIERED=1 PTO_CACHE_DIR=" + tiered).status == 0);
  const auto machine_code = [](const std::filesystem::path& file) {  // from the ELF header on (the entry's header holds timings)
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t elf = bytes.find("\x7f" "ELF");
    REQUIRE(elf != std::string::npos);
    return bytes.substr(elf);
  };
  std::vector<std::filesystem::path> objects;
  for (const auto& e : std::filesystem::directory_iterator(once)) objects.push_back(e.path());
  REQUIRE(objects.size() == 1);  // the optimised object only
  using Entries = std::filesystem::directory_iterator;
  CHECK(std::distance(Entries(tiered), Entries{}) == 2);  // the quick tier's and the optimised one
  const auto same_key = std::filesystem::path(tiered) / objects[0].filename();
  REQUIRE(std::filesystem::exists(same_key));
  CHECK(machine_code(objects[0]) == machine_code(same_key));
  std::filesystem::remove_all(once);
  std::filesystem::remove_all(tiered);
}

TEST_CASE("pto_bench_vs_native_times_every_samples_native_baseline_and_says_what_it_is") {
  for (const char* args : {"matmul_softmax", "flash_attention --shape 256x64", "layernorm --shape 64x256 --dtype f16"}) {
    CAPTURE(args);
    auto j = run_json(std::string("bench ") + args + " --vs-native --min-seconds 0.05 --repeat 3 --warmup 1");
    CHECK(j["ok"] == true);
    REQUIRE(j["native_baseline"].is_string());
    CHECK(!j["native_baseline"].get<std::string>().empty());
    CHECK(j["native_median_us"].get<double>() > 0);
    CHECK(j["ratio_vs_native"].get<double>() > 0);
  }
}

TEST_CASE("pto_reports_bad_input_clearly") {
  auto unknown = run("run no_such_sample");
  CHECK(unknown.status == 2);
  CHECK(unknown.text.find("unknown sample 'no_such_sample'") != std::string::npos);
  auto shape = run("run vector_add --shape 12xq");
  CHECK(shape.status == 2);
  CHECK(shape.text.find("--shape '12xq'") != std::string::npos);
  auto bd = run("run vector_add --block-dim 0");
  CHECK(bd.status == 2);
  CHECK(bd.text.find("block_dim 0 is out of range") != std::string::npos);
  auto chip = run("run vector_add --chip nowhere.json");
  CHECK(chip.status == 2);
  CHECK(chip.text.find("unknown chip 'nowhere.json'") != std::string::npos);
  auto calibrate = run("calibrate --chip nowhere.json");
  CHECK(calibrate.status == 2);
  CHECK(calibrate.text == "pto: unknown chip 'nowhere.json': not a built-in profile (a2, a5) nor a readable JSON file\n");
}

TEST_CASE("pto_calibrate_json_gives_every_point_with_its_published_figure_source_and_error") {
  auto out = run("calibrate --json");
  INFO(out.text);
  const auto j = nlohmann::json::parse(out.text);
  CHECK(j["chip"] == "a2");
  REQUIRE(j["points"].size() == 9);
  int outside = 0;
  for (const auto& p : j["points"]) {
    CAPTURE(p.dump());
    CHECK_FALSE(p["source"].get<std::string>().empty());
    CHECK(p["published"].get<double>() > 0);
    const double err = p["simulated"].get<double>() / p["published"].get<double>() - 1;
    CHECK(p["relative_error"].get<double>() == doctest::Approx(err));
    CHECK(p["within"].get<bool>() == (std::abs(err) <= p["tolerance"].get<double>()));
    outside += p["within"].get<bool>() ? 0 : 1;
  }
  CHECK(j["outside_tolerance"] == outside);
  // The exit code is the verdict: 0 only when every point is within tolerance, the median error
  // is at most 10% and the add variants rank as published.
  const bool pass = outside == 0 && j["median_abs_error"].get<double>() <= 0.10 && j["variants_ranked"].get<bool>();
  CHECK(out.status == (pass ? 0 : 1));
  // The model as shipped meets every target (issue #12): a change that breaks a point fails here.
  CHECK(outside == 0);
  CHECK(j["variants_ranked"].get<bool>());
  CHECK(out.status == 0);
}

}  // namespace

namespace {

TEST_CASE("pto_profile_advise_report_walk_the_tuning_workflow") {
  const std::string dir = temp_dir("profile");
  auto p = run("profile softmax --shape 256x512 --block-dim 4 --out " + dir + " --steps 2");
  INFO(p.text);
  REQUIRE(p.status == 0);
  CHECK(p.text.find("2 launches recorded") != std::string::npos);
  auto a = run_json("advise " + dir);
  for (const char* key : {"bottleneck", "evidence", "suggestion", "bound_us", "achieved_over_bound"}) {
    CAPTURE(key);
    CHECK(a.contains(key));
  }
  CHECK(a["kernel"] == "softmax");
  CHECK(a["achieved_over_bound"].get<double>() >= 1.0);
  auto r = run("report " + dir);
  CHECK(r.status == 0);
  CHECK(r.text.find(dir + "/report.html") != std::string::npos);
}

TEST_CASE("pto_advise_on_a_directory_without_a_profile_explains") {
  auto a = run("advise /tmp/pto_cli_test_nowhere");
  CHECK(a.status == 2);
  CHECK(a.text.find("profile.json is missing") != std::string::npos);
}

TEST_CASE("pto_on_corrupt_or_foreign_files_prints_one_clear_line_and_exits_non_zero_never_aborts") {
  const std::string base = "/tmp/pto_cli_test_corrupt_" + std::to_string(getpid());
  struct Case {
    std::string args, want;
  };
  const std::vector<Case> cases = {
      {"advise " + write_file(base + "/p1", "profile.json", "{not json"), "p1/profile.json' is not a valid profile: parse error at line 1"},
      {"report " + write_file(base + "/p2", "profile.json", "{not json"), "p2/profile.json' is not a valid profile: parse error"},
      {"advise " + write_file(base + "/p3", "profile.json", R"({"launches": [{"profile": {"kernel": 3}}], "steps": 1})"),
       "p3/profile.json' is not a valid profile: type must be string, but is number"},
      {"report " + write_file(base + "/p4", "profile.json", "[]"), "p4/profile.json' is not a valid profile: cannot use at() with array"},
      {"run vector_add --package " + write_file(base + "/k1", "manifest.json", "garbage"),
       "k1/manifest.json' is not a valid package manifest: parse error"},
      {"run vector_add --package " + write_file(base + "/k2", "manifest.json", R"({"entries": [{"kernel": 1}]})"),
       "k2/manifest.json' is not a valid package manifest: type must be string"},
      {"run vector_add --package " + base + "/nowhere", "is not a PTO package: manifest.json is missing"},
      {"run vector_add --chip " + write_file(base + "/c1", "chip.json", "{bad") + "/chip.json", "is not valid JSON"},
      {"profile vector_add --out /proc/pto_cli_forbidden", "profiler output directory '/proc/pto_cli_forbidden' cannot be created"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto o = run_split(c.args);
    CHECK(o.status == 2);
    CHECK(o.err.find(c.want) != std::string::npos);
    CHECK(o.err.find("terminate called") == std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);  // one line
  }
  std::filesystem::remove_all(base);
}

TEST_CASE("every_pto_subcommand_given_bad_input_prints_one_clear_line_and_exits_2_never_aborts") {
  const std::string dir = temp_dir("every_bad") + "_" + std::to_string(getpid());
  write_file(dir, "file.json", "{}");
  const std::string file = dir + "/file.json";
  struct Case {
    std::string args, want;
  };
  const std::string no_sample = "unknown sample 'nosuch'; the samples are: vector_add, softmax";
  const std::string no_param = "--param bogus=1: sample 'vector_add' has no parameter 'bogus' (its parameters: buffers, sync, tile)";
  const std::vector<Case> cases = {
      {"nosuch", "pto: unknown command 'nosuch'; the commands are: run, bench, profile"},
      {"", "pto: A subcommand is required (pto --help lists the commands and their options)"},
      {"run nosuch", no_sample},
      {"run vector_add --param bogus=1", no_param},
      {"run vector_add --package " + file, "is not a PTO package: manifest.json is missing"},
      {"run vector_add --dtype f64", "--dtype 'f64' is not one of f32, f16, bf16"},
      {"bench nosuch", no_sample},
      {"bench vector_add --param bogus=1", no_param},
      {"bench vector_add --repeat 0", "--repeat: must be at least 1, got 0"},
      {"profile nosuch --out " + dir + "/p", no_sample},
      {"profile vector_add --param bogus=1 --out " + dir + "/p", no_param},
      {"profile vector_add --steps x --out " + dir + "/p", "--steps: 'x' is not an integer"},
      {"advise " + dir + "/missing", "profile.json is missing"},
      {"report " + file, "profile.json is missing"},
      {"cache bogus", "action: bogus not in {ls,stats,clear}"},
      {"aot --out " + dir + "/pkg --spec nosuch:1024:f32", no_sample},
      {"aot --out " + dir + "/pkg --spec vector_add:1024:f32:4:bogus=1", no_param},
      {"aot --out /proc/pto_forbidden --spec vector_add:1024:f32", "cannot create the package directory '/proc/pto_forbidden'"},
      {"fuzz --cases 0", "--cases: must be at least 1, got 0"},
      {"fuzz --seed 3 --fresh-seed", "--seed excludes --fresh-seed"},
      {"calibrate --chip " + file, "missing field 'name'"},
      {"tune nosuch", no_sample},
      {"tune vector_add --param bogus=1", no_param},
      {"tune vector_add --shape 4x4", "vector_add takes a 1-D --shape N"},
      {"sweep vector_add --baseline " + dir, "is a directory, not a sweep results file"},
      {"sweep vector_add --keys bogus=1", "has no parameter 'bogus'"},
      {"campaign --generated -1", "--generated: must be at least 0, got -1"},
      {"campaign --no-samples --generated 0", "campaign: nothing to run (--no-samples with --generated 0)"},
      {"demo extra", "The following argument was not expected: extra"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto o = run_split(c.args);
    CHECK(o.status == 2);
    CHECK(o.err.find(c.want) != std::string::npos);
    CHECK(o.err.rfind("pto: ", 0) == 0);
    CHECK(o.err.find("terminate called") == std::string::npos);
    CHECK(o.err.find("internal error") == std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);  // one line
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("the_report_renders_in_headless_chromium") {
  const std::string dir = temp_dir("browser");
  REQUIRE(run("profile vector_add --shape 200000 --block-dim 4 --out " + dir).status == 0);
  REQUIRE(run("report " + dir).status == 0);
  const Rendered page = render_in_chromium(dir + "/report.html", dir);
  INFO(page.body);
  CHECK(page.body.find("data-charts=\"3\"") != std::string::npos);
  CHECK(page.body.find("data-charts-rendered=\"3\"") != std::string::npos);
  CHECK(page.body.find("data-script-errors") == std::string::npos);
  CHECK(page.screenshot_bytes > 20000);  // a real page, not a blank one
}

}  // namespace
