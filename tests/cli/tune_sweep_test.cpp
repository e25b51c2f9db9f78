// pto tune, pto sweep (with baselines and MPI ranks), pto report --compare, pto aot's delivery
// figures and the progress display, called as a user calls them.
#include <doctest/doctest.h>

#include <algorithm>

#include "cli_run.hpp"

namespace {

using namespace pto_cli_test;

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  return nlohmann::json::parse(f);
}

void write_json(const std::string& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(1); }

/// The results without the host wall times, which vary run to run.
nlohmann::json without_host_times(nlohmann::json j) {
  for (auto& c : j.at("cases")) {
    c.erase("host_us");
    c.erase("first_call_ms");
    c.erase("compile_ms");
  }
  return j;
}

const std::string kMatrix = "vector_add tiling_key --shapes 4096,1000 --dtypes f32,f16 --block-dims 1,8 --keys buffers=1 buffers=2";

TEST_CASE("pto_tune_finds_a_verified_configuration_at_least_as_fast_as_the_hand_tuned_one") {
  const auto j = run_json("tune softmax --shape 512x512 --budget 24 --seed 5");
  CHECK(j["sample"] == "softmax");
  CHECK(j["budget"] == 24);
  CHECK(j["space_size"].get<int>() > 24);
  CHECK(j["exhaustive"] == false);
  CHECK(j["tried"].get<int>() <= 24);
  CHECK(j["trials"].size() == j["tried"].get<size_t>());
  REQUIRE(j["found"] == true);
  const double best = j["best"]["device_us"].get<double>();
  int verified = 0;
  for (const auto& t : j["trials"]) {
    CHECK(t.contains("config"));
    if (t["status"] == "ok") {
      ++verified;
      CHECK(best <= t["device_us"].get<double>());
    }
  }
  CHECK(verified == j["verified"].get<int>());
  // The demo's hand-tuned variant (block_dim 24, two buffers).
  const auto hand = run_json("run softmax --shape 512x512 --block-dim 24 --param buffers=2");
  CHECK(best <= hand["device_us"].get<double>());
  // The best configuration, run on its own, verifies and measures what the search saw.
  std::string args = "run softmax --shape 512x512";
  for (const auto& [k, v] : j["best"]["config"].items()) args += k == "block_dim" ? " --block-dim " + v.dump() : " --param " + k + "=" + v.dump();
  const auto again = run_json(args);
  CHECK(again["ok"] == true);
  CHECK(again["device_us"].get<double>() == doctest::Approx(best).epsilon(1e-12));
  // The same seed gives the same answer.
  CHECK(run_json("tune softmax --shape 512x512 --budget 24 --seed 5")["trials"] == j["trials"]);
}

TEST_CASE("pto_tune_counts_configurations_that_cannot_run_and_a_given_param_fixes_its_axis") {
  const auto j = run_json("tune softmax --shape 2048x1024 --budget 16 --param rows_per_tile=8");
  CHECK_FALSE(j["axes"].contains("rows_per_tile"));
  CHECK(j["axes"].contains("block_dim"));
  for (const auto& t : j["trials"]) CHECK_FALSE(t["config"].contains("rows_per_tile"));
  CHECK(j["exhaustive"] == false);
  // 8 rows of 1024 floats (32 KiB) in two groups of `buffers` slots overflow the 192 KiB UB for buffers >= 3.
  REQUIRE(j["skipped"].contains("capacity"));
  CHECK(j["skipped"]["capacity"].get<int>() > 0);
  // TilingKey fields are tunables too: on an aligned shape the search prefers the fast path.
  const auto keyed = run_json("tune tiling_key --shape 1048576 --budget 54");
  CHECK(keyed["exhaustive"] == true);
  CHECK(keyed["tried"] == 54);
  CHECK(keyed["best"]["config"]["aligned"] == 1);
  const auto text = run("tune vector_add --shape 100000 --budget 6");
  CHECK(text.status == 0);
  CHECK(text.text.find("best  block_dim=") != std::string::npos);
  CHECK(text.text.find("tried 6: ") != std::string::npos);
}

TEST_CASE("pto_sweep_verifies_every_case_and_gates_on_a_saved_baseline") {
  const std::string dir = temp_dir("sweep");
  std::filesystem::create_directories(dir);
  const std::string base = dir + "/base.json";
  const auto j = run_json("sweep " + kMatrix + " --save " + base);
  REQUIRE(j["cases"].size() == 32);
  CHECK(j["summary"]["ok"] == 32);
  CHECK(j["summary"]["failed"] == 0);
  for (const char* key : {"sample", "shape", "dtype", "block_dim", "params", "chip", "status", "ok", "device_us", "pipes", "host_us",
                          "first_call_ms", "compile_ms"}) {
    CAPTURE(key);
    CHECK(j["cases"][0].contains(key));
  }
  CHECK(j["cases"][0]["sample"] == "vector_add");
  CHECK(j["cases"][31]["sample"] == "tiling_key");
  CHECK(j["cases"][31]["params"]["buffers"] == "2");
  CHECK(without_host_times(read_json(base)) == without_host_times(nlohmann::json{{"version", 1}, {"cases", j["cases"]}}));

  // Cases side by side (the default) or one at a time: the same results, host times aside.
  const auto one_at_a_time = run_json("sweep " + kMatrix + " --jobs 1");
  CHECK(without_host_times(one_at_a_time).at("cases") == without_host_times(j).at("cases"));

  // Simulated time is deterministic: the same matrix against its own baseline at 0% passes.
  const auto same = run_json("sweep " + kMatrix + " --baseline " + base);
  CHECK(same["summary"]["regressions"] == 0);
  CHECK(same["summary"]["baseline_matched"] == 32);

  // A baseline in which one case was faster: that case is caught, exit 1; a looser threshold passes.
  auto faster = read_json(base);
  faster["cases"][5]["device_us"] = faster["cases"][5]["device_us"].get<double>() * 0.9;
  write_json(dir + "/faster.json", faster);
  const auto caught = run_json("sweep " + kMatrix + " --baseline " + dir + "/faster.json", 1);
  REQUIRE(caught["regressions"].size() == 1);
  CHECK(caught["regressions"][0]["why"].get<std::string>().find("simulated time grew +11.11%") != std::string::npos);
  CHECK(caught["regressions"][0]["case"] == "vector_add 1000 f32 8 buffers=1 a2");
  CHECK(run_json("sweep " + kMatrix + " --baseline " + dir + "/faster.json --threshold 12")["summary"]["regressions"] == 0);
  const auto text = run("sweep " + kMatrix + " --baseline " + dir + "/faster.json");
  CHECK(text.status == 1);
  CHECK(text.text.find("REGRESSED vector_add 1000 f32 8 buffers=1 a2: simulated time grew +11.11%") != std::string::npos);
}

TEST_CASE("pto_sweep_reports_failed_checks_and_skips_what_the_chip_cannot_run") {
  // sync=none races on purpose: a failed case, exit 1.
  const auto racy = run_json("sweep vector_add --shapes 100000 --block-dims 4 --keys sync=none", 1);
  CHECK(racy["cases"][0]["status"] == "race");
  CHECK(racy["summary"]["failed"] == 1);
  // block_dim 100 is over a2's 48 vector cores: skipped with its reason, not a failure.
  const auto skipped = run_json("sweep vector_add --shapes 1000 --block-dims 4,100");
  CHECK(skipped["cases"][1]["status"] == "skipped");
  CHECK(skipped["cases"][1]["reason"] == "block_dim limit");
  CHECK(skipped["cases"][1]["message"].get<std::string>().find("block_dim 100 is out of range") != std::string::npos);
  CHECK(skipped["summary"]["skipped"] == 1);
  // Tiles over the UB: skipped as "capacity", its message one line that names the tiles (the
  // error's list, folded), not one that stops at "shrink the tiles or the group depth:".
  const auto over = run_json("sweep softmax --shapes 256x1024 --block-dims 4 --keys rows_per_tile=16,buffers=4");
  REQUIRE(over["cases"].size() == 1);
  CHECK(over["cases"][0]["status"] == "skipped");
  CHECK(over["cases"][0]["reason"] == "capacity");
  const auto message = over["cases"][0]["message"].get<std::string>();
  CHECK(message.find('\n') == std::string::npos);
  CHECK(message.find("group depth: t0 4xf32[16x1024] at ") != std::string::npos);
  CHECK(message.find("; +3 more") != std::string::npos);
}

TEST_CASE("pto_sweep_and_tune_bad_input_is_one_clear_line_and_a_non_zero_exit") {
  const std::string dir = temp_dir("sweep_bad");
  write_file(dir, "garbage.json", "{not json");
  write_file(dir, "foreign.json", R"({"launches": []})");
  write_file(dir, "mistyped.json", R"({"version": 1, "cases": [{"sample": 3}]})");
  struct Case {
    std::string args, want;
  };
  const std::vector<Case> cases = {
      {"sweep vector_add --baseline " + dir + "/garbage.json", "garbage.json' is not a valid sweep results file: parse error"},
      {"sweep vector_add --baseline " + dir + "/foreign.json", "foreign.json' is not a pto sweep results file"},
      {"sweep vector_add --baseline " + dir + "/mistyped.json", "mistyped.json' is not a valid sweep results file: type must be string"},
      {"sweep vector_add --baseline " + dir + "/missing.json", "cannot read the sweep results file"},
      {"sweep vector_add --keys bogus=1", "sample 'vector_add' cannot run shape 1048576, keys bogus=1: --param bogus=1: sample "
                                          "'vector_add' has no parameter 'bogus' (its parameters: buffers, sync, tile)"},
      {"sweep vector_add --shapes 64x64", "sample 'vector_add' cannot run shape 64x64: vector_add takes a 1-D --shape N"},
      {"sweep vector_add --keys buffers", "--keys 'buffers': 'buffers' is not of the form key=value"},
      {"sweep vector_add --threshold -1", "--threshold must be a percentage >= 0"},
      {"sweep vector_add --save /proc/pto_forbidden.json", "cannot write the sweep results file '/proc/pto_forbidden.json'"},
      {"sweep nosuch", "unknown sample 'nosuch'"},
      {"tune softmax --budget 0", "--budget must be at least 1 (got 0)"},
      {"tune matmul_bias_relu", "sample 'matmul_bias_relu' declares no tunables to search"},
      {"tune vector_add --block-dim 4 --param buffers=2 --param tile=4096", "every tunable of 'vector_add' is fixed on the command line"},
      {"report --compare " + dir + "/garbage.json " + dir + "/garbage.json", "is not a valid sweep results file"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto o = run_split(c.args);
    CHECK(o.status == 2);
    CHECK(o.err.find(c.want) != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
  }
  // An empty axis is refused by the option parser with a non-zero exit.
  CHECK(run("sweep vector_add --dtypes").status != 0);
}

TEST_CASE("pto_report_compare_renders_baseline_against_candidate_in_headless_chromium") {
  const std::string dir = temp_dir("compare");
  std::filesystem::create_directories(dir);
  REQUIRE(run("sweep " + kMatrix + " --save " + dir + "/a.json").status == 0);
  auto b = read_json(dir + "/a.json");
  b["cases"][3]["device_us"] = b["cases"][3]["device_us"].get<double>() * 1.25;
  write_json(dir + "/b.json", b);
  const auto o = run("report --compare " + dir + "/a.json " + dir + "/b.json --out " + dir + "/compare.html");
  INFO(o.text);
  REQUIRE(o.status == 0);
  CHECK(o.text.find(dir + "/compare.html") != std::string::npos);
  std::ifstream f(dir + "/compare.html");
  const std::string html((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(html.find("32 cases, 1 slower, 0 faster, 0 new") != std::string::npos);
  CHECK(html.find("+25.00%") != std::string::npos);
  const Rendered page = render_in_chromium(dir + "/compare.html", dir);
  INFO(page.body);
  CHECK(page.body.find("data-charts=\"2\"") != std::string::npos);
  CHECK(page.body.find("data-charts-rendered=\"2\"") != std::string::npos);
  CHECK(page.body.find("data-script-errors") == std::string::npos);
  CHECK(page.screenshot_bytes > 20000);
}

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) == 0; }

TEST_CASE("pto_sweep_and_tune_over_mpi_ranks_give_the_single_process_results") {
  if (!have("mpirun")) {
    MESSAGE("mpirun is not installed (scripts/bootstrap.sh installs openmpi-bin): skipping the MPI runs");
    return;
  }
  const std::string dir = temp_dir("mpi");
  std::filesystem::create_directories(dir);
  // As root, OpenMPI refuses to start without both of these.
  const std::string env = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1";
  const auto one = run_json("sweep " + kMatrix + " --save " + dir + "/r1.json");
  for (int ranks : {2, 3}) {
    CAPTURE(ranks);
    const std::string cmd = env + " timeout 300 mpirun --oversubscribe -n " + std::to_string(ranks) + " " + PTO_CLI + " sweep " + kMatrix +
                            " --save " + dir + "/r" + std::to_string(ranks) + ".json --json > " + dir + "/out.json 2> " + dir + "/err.txt";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const auto many = read_json(dir + "/out.json");
    CHECK(without_host_times(many).dump() == without_host_times(one).dump());
    CHECK(without_host_times(read_json(dir + "/r" + std::to_string(ranks) + ".json")).dump() ==
          without_host_times(read_json(dir + "/r1.json")).dump());
  }
  // A bad input ends every rank (MPI_Abort) with a non-zero exit: no rank is left waiting.
  write_file(dir, "bad.json", "{bad");
  const int bad = std::system((env + " timeout 120 mpirun --oversubscribe -n 2 " + PTO_CLI + " sweep vector_add --baseline " + dir +
                               "/bad.json > /dev/null 2>&1").c_str());
  CHECK(WEXITSTATUS(bad) != 0);
  CHECK(WEXITSTATUS(bad) != 124);  // not the timeout
  const std::string tune_args = " tune softmax --shape 256x512 --budget 20 --json";
  const auto tune_one = run_json(tune_args.substr(1, tune_args.size() - 8));
  REQUIRE(std::system((env + " timeout 300 mpirun --oversubscribe -n 3 " + PTO_CLI + tune_args + " > " + dir + "/tune.json 2>/dev/null").c_str()) == 0);
  CHECK(read_json(dir + "/tune.json") == tune_one);
}

TEST_CASE("long_runs_show_progress_on_a_terminal_and_stay_quiet_otherwise") {
  if (!have("script")) {
    MESSAGE("util-linux script is missing: skipping the terminal check");
    return;
  }
  const std::string dir = temp_dir("progress");
  std::filesystem::create_directories(dir);
  const std::string cmd = std::string(PTO_CLI) + " sweep " + kMatrix;
  // `script` gives the command a pseudo-terminal, as an interactive shell would.
  REQUIRE(std::system(("script -qec '" + cmd + "' " + dir + "/tty.txt > /dev/null 2>&1").c_str()) == 0);
  std::ifstream f(dir + "/tty.txt");
  const std::string tty((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(tty.find("\r\033[Ksweep: ") != std::string::npos);  // redrawn in place
  CHECK(tty.find("/32 cases, ") != std::string::npos);
  CHECK(tty.find(" failed") != std::string::npos);
  const auto piped = run_split("sweep " + kMatrix);
  CHECK(piped.err.empty());
  CHECK(piped.out.find('\r') == std::string::npos);
  REQUIRE(std::system(("script -qec '" + cmd + " --json' " + dir + "/tty_json.txt > /dev/null 2>&1").c_str()) == 0);
  std::ifstream fj(dir + "/tty_json.txt");
  const std::string tty_json((std::istreambuf_iterator<char>(fj)), std::istreambuf_iterator<char>());
  CHECK(tty_json.find("sweep: ") == std::string::npos);
}

TEST_CASE("pto_aot_reports_delivery_figures_and_warns_past_the_limits") {
  const std::string dir = temp_dir("aot_limits");
  const auto o = run("aot --out " + dir + " --spec vector_add:4096:f32:8 --spec tiling_key:1000003:f32:8 --spec tiling_key:1048576:f32:8 "
                     "--max-keys 2 --max-object-kb 1 --max-total-kb 1");
  INFO(o.text);
  REQUIRE(o.status == 0);
  CHECK(o.text.find("3 keys") != std::string::npos);
  CHECK(o.text.find("key=0x") != std::string::npos);  // per TilingKey
  CHECK(o.text.find("warning: the package holds 3 specialisations (keys), over the limit of 2") != std::string::npos);
  CHECK(o.text.find("object is ") != std::string::npos);
  CHECK(o.text.find("over the limit of 1024 B") != std::string::npos);
  const auto manifest = read_json(dir + "/manifest.json");
  CHECK(manifest["totals"]["keys"] == 3);
  CHECK(manifest["totals"]["bytes"].get<int64_t>() > 1024);
  CHECK(manifest["limits"]["max_keys"] == 2);
  CHECK(manifest["warnings"].size() >= 5);  // 3 objects over 1 KiB, the total, the key count
  for (const auto& e : manifest["entries"]) {
    CHECK(e["bytes"].get<int64_t>() > 0);
    CHECK(e["compile_ms"].get<double>() >= 0);
  }
  // The package still serves its kernels.
  CHECK(run("run tiling_key --shape 1000003 --package " + dir).status == 0);
  // A spec with parameters (a TilingKey field of the sample).
  const auto keyed = run("aot --out " + dir + "2 --spec tiling_key:1048576:f32:8:aligned=0");
  CHECK(keyed.status == 0);
  CHECK(keyed.text.find("1 keys") != std::string::npos);
}

}  // namespace
