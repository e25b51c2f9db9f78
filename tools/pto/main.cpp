// The `pto` command line: run, bench and demo the samples.
#include <algorithm>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "Commands.hpp"
#include "Ranks.hpp"
#include "Samples.hpp"

namespace {

void add_run_options(CLI::App* cmd, pto::cli::RunOptions& o) {
  std::string names;
  for (const auto& s : pto::cli::all_samples()) names += (names.empty() ? "" : ", ") + s.name;
  cmd->add_option("sample", o.sample, "sample to run: " + names)->required();
  cmd->add_option("--shape", o.shape, "N (1-D) or ROWSxCOLS (2-D); default: the sample's");
  cmd->add_option("--dtype", o.dtype, "f32 | f16 | bf16")->capture_default_str();
  cmd->add_option("--block-dim", o.block_dim, "number of blocks (cores) of the launch")->capture_default_str();
  cmd->add_option("--param", o.params, "sample parameter key=value (repeatable), e.g. buffers=1");
  cmd->add_option("--chip", o.chip, "chip profile: a built-in name (a2, a5) or a JSON file")->capture_default_str();
  cmd->add_option("--package", o.package, "load kernels from this AOT package (pto aot); a missing one is an error");
  cmd->add_flag("--json", o.json, "print one JSON object");
}

/// An integer option's lower bound, said plainly: "--cases: must be at least 1, got 0".
CLI::Validator at_least(long long n) {
  return CLI::Validator(
      [n](std::string& text) -> std::string {
        size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return fmt::format("'{}' is not an integer", text);
        return v >= n ? std::string() : fmt::format("must be at least {}, got {}", n, v);
      },
      fmt::format("INT>={}", n));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pto: run, benchmark and inspect PTO-JIT kernels on the AI Core emulator"};
  app.require_subcommand(1);

  pto::cli::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "run one launch of a sample and verify it against plain C++");
  add_run_options(run_cmd, run);

  pto::cli::BenchOptions bench;
  auto* bench_cmd = app.add_subcommand("bench", "time a sample: cold first call, warm steady state, bandwidth");
  add_run_options(bench_cmd, bench);
  bench_cmd->add_flag("--vs-native", bench.vs_native, "also time the native baseline in the same run: a plain C++ TBB loop (OpenBLAS sgemm for the matmul samples)");
  bench_cmd->add_flag("--op", bench.op, "also time the sample's operator (validation + tiling + dispatch) against the direct launch");
  bench_cmd->add_option("--warmup", bench.warmup, "untimed calls before timing")->check(at_least(0))->capture_default_str();
  bench_cmd->add_option("--repeat", bench.repeat, "minimum timed calls")->check(at_least(1))->capture_default_str();
  bench_cmd->add_option("--min-seconds", bench.min_seconds, "minimum timed duration")->capture_default_str();

  pto::cli::ProfileOptions profile;
  auto* profile_cmd = app.add_subcommand("profile", "profile a sample: kernel_details.csv, trace_view.json, profile.json in --out");
  add_run_options(profile_cmd, profile);
  profile_cmd->add_option("--out", profile.out, "output directory")->required();
  profile_cmd->add_option("--steps", profile.steps, "active profiler steps")->check(at_least(1))->capture_default_str();
  profile_cmd->add_option("--profiler-warmup", profile.profiler_warmup, "profiler warm-up steps")->check(at_least(0))->capture_default_str();

  std::string advise_dir;
  bool advise_json = false;
  auto* advise_cmd = app.add_subcommand("advise", "name the bottleneck of a profile directory, with evidence and a roofline bound");
  advise_cmd->add_option("dir", advise_dir, "profile directory")->required();
  advise_cmd->add_flag("--json", advise_json, "print one JSON object");

  std::string report_dir, report_out = "compare.html";
  std::vector<std::string> report_compare;
  auto* report_cmd = app.add_subcommand("report", "write DIR/report.html: per-core bars, pipe utilisation, timeline, advice; "
                                                  "or, with --compare A B, a sweep baseline against a candidate");
  auto* report_dir_opt = report_cmd->add_option("dir", report_dir, "profile directory");
  report_cmd->add_option("--compare", report_compare, "two sweep results files (pto sweep --save): baseline, candidate")
      ->expected(2)
      ->excludes(report_dir_opt);
  report_cmd->add_option("--out", report_out, "the comparison page to write (with --compare)")->capture_default_str();

  pto::cli::TuneOptionsCli tune;
  auto* tune_cmd = app.add_subcommand("tune", "search a sample's tunables by simulated device time, each candidate verified");
  add_run_options(tune_cmd, tune);
  tune_cmd->add_option("--budget", tune.budget, "most configurations tried (a space this small is searched exhaustively)")
      ->capture_default_str();
  tune_cmd->add_option("--seed", tune.seed, "seed of the random phase (the same seed gives the same answer)")->capture_default_str();
  tune_cmd->add_option("--jobs", tune.jobs, "candidates of a round run side by side (0: one per host thread, 1: one at a time)")
      ->capture_default_str()
      ->check(at_least(0));

  pto::cli::SweepOptions sweep;
  auto* sweep_cmd = app.add_subcommand("sweep", "run a matrix of shapes x dtypes x block_dims x keys, verify every case, "
                                                "compare with a saved baseline (exit 1 on a failure or regression)");
  sweep_cmd->add_option("sample", sweep.samples, "one or more samples")->required();
  auto* shapes_opt = sweep_cmd->add_option("--shapes", sweep.shapes, "shapes, comma-separated (default: each sample's)")->delimiter(',');
  sweep_cmd->add_option("--dtypes", sweep.dtypes, "dtypes, comma-separated")->delimiter(',')->capture_default_str();
  sweep_cmd->add_option("--block-dims", sweep.block_dims, "block_dims, comma-separated")->delimiter(',')->capture_default_str();
  sweep_cmd->add_option("--keys", sweep.keys, "parameter sets (TilingKey fields and other --param keys), each k=v[,k=v...]; "
                                              "several sets separated by spaces or repeated options");
  sweep_cmd->add_option("--chip", sweep.chip, "chip profile: a built-in name (a2, a5) or a JSON file")->capture_default_str();
  sweep_cmd->add_option("--save", sweep.save, "write the results (JSON) to this file, e.g. as the next baseline");
  sweep_cmd->add_option("--baseline", sweep.baseline, "compare with this results file (pto sweep --save)");
  sweep_cmd->add_option("--threshold", sweep.threshold, "percent growth of simulated time that counts as a regression")
      ->capture_default_str();
  sweep_cmd->add_option("--jobs", sweep.jobs, "cases run side by side (0: one per host thread, 1: one at a time, for quiet host times)")
      ->capture_default_str()
      ->check(at_least(0));
  sweep_cmd->add_flag("--json", sweep.json, "print the results, a summary and the regressions as one JSON object");

  std::string cache_action;
  bool cache_json = false;
  auto* cache_cmd = app.add_subcommand("cache", "the disk compile cache (PTO_CACHE_DIR): ls, stats, clear");
  cache_cmd->add_option("action", cache_action, "ls | stats | clear")->required()->check(CLI::IsMember({"ls", "stats", "clear"}));
  cache_cmd->add_flag("--json", cache_json, "print JSON");

  std::string aot_out;
  std::vector<std::string> aot_specs;
  auto* aot_cmd = app.add_subcommand("aot", "precompile specialisations into a package directory (manifest + objects)");
  aot_cmd->add_option("--out", aot_out, "package directory")->required();
  aot_cmd->add_option("--spec", aot_specs, "SAMPLE:SHAPE:DTYPE[:BLOCK_DIM[:k=v,...]] (repeatable; default: a set of samples)");
  pto::cli::AotLimits aot_limits;
  aot_cmd->add_option("--max-object-kb", aot_limits.max_object_kb, "warn about a specialisation whose object is larger");
  aot_cmd->add_option("--max-total-kb", aot_limits.max_total_kb, "warn when the package's objects are larger in total");
  aot_cmd->add_option("--max-keys", aot_limits.max_keys, "warn when the package holds more specialisations (keys)");
  aot_cmd->add_option("--max-compile-ms", aot_limits.max_compile_ms, "warn about a specialisation that took longer to compile first");

  pto::cli::FuzzOptions fuzz;
  auto* fuzz_cmd = app.add_subcommand("fuzz", "differential fuzzing: random kernels on the JIT and the reference interpreter");
  fuzz_cmd->add_option("--cases", fuzz.cases, "number of random kernels (expression cases)")->check(at_least(1));
  auto* fuzz_seed_opt = fuzz_cmd->add_option("--seed", fuzz.seed, "random seed (the same seed gives the same cases)");
  fuzz_cmd->add_flag("--fresh-seed", fuzz.fresh_seed, "draw a new seed (printed, to reproduce a failure)")->excludes(fuzz_seed_opt);
  fuzz_cmd->add_option("--jobs", fuzz.jobs, "rounds side by side (0: every host thread, 1: one after another; same cases either way)")
      ->check(at_least(0));
  fuzz_cmd->add_flag("--json", fuzz.json, "print {cases, mismatches, seconds, seed, failures} as JSON");

  pto::cli::CampaignOptions campaign;
  bool campaign_no_samples = false;
  auto* campaign_cmd = app.add_subcommand("campaign", "remove each sync of the samples and of generated kernels in turn: is every race caught?");
  campaign_cmd->add_option("--generated", campaign.generated, "generated multi-buffered kernels")->check(at_least(0))->capture_default_str();
  campaign_cmd->add_option("--seed", campaign.seed, "seed of the generated kernels")->capture_default_str();
  campaign_cmd->add_flag("--no-samples", campaign_no_samples, "only the generated kernels");
  campaign_cmd->add_option("--jobs", campaign.jobs, "mutants side by side (0: TBB's choice, 1: one after another)")->check(at_least(0));
  campaign_cmd->add_flag("--verbose", campaign.verbose, "list every mutant, not only misses, false alarms and errors");
  campaign_cmd->add_flag("--json", campaign.json, "print the counts and the notable mutants as JSON");

  std::string calibrate_chip = "a2";
  bool calibrate_json = false;
  auto* calibrate_cmd = app.add_subcommand("calibrate", "hold the timing model against published Ascend figures (docs/calibration.md)");
  calibrate_cmd->add_option("--chip", calibrate_chip, "chip profile: a built-in name (a2, a5) or a JSON file")->capture_default_str();
  calibrate_cmd->add_flag("--json", calibrate_json, "print the points, errors and verdict as JSON");

  auto* demo_cmd = app.add_subcommand("demo", "both samples on a few shapes, then the tuning workflow on softmax");

  pto::cli::Ranks::init(&argc, &argv);
  const auto subcommands = app.get_subcommands([](CLI::App*) { return true; });
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(subcommands.begin(), subcommands.end(), [&](const CLI::App* sub) { return sub->get_name() == argv[1]; })) {
    std::string names;
    for (const CLI::App* sub : subcommands) names += (names.empty() ? "" : ", ") + sub->get_name();
    fmt::print(stderr, "pto: unknown command '{}'; the commands are: {}\n", argv[1], names);
    pto::cli::Ranks::abort_all(2);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and exit 0; anything else is one line and exit 2, as every
    // other bad input.
    if (e.get_exit_code() == 0) return app.exit(e);
    fmt::print(stderr, "pto: {} (pto --help lists the commands and their options)\n", e.what());
    pto::cli::Ranks::abort_all(2);
    return 2;
  }
  try {
    if (tune_cmd->parsed()) {
      tune.block_dim_given = tune_cmd->count("--block-dim") > 0;
      return pto::cli::tune_command(tune);
    }
    if (sweep_cmd->parsed()) {
      sweep.shapes_given = shapes_opt->count() > 0;
      return pto::cli::sweep_command(sweep);
    }
    if (report_cmd->parsed() && !report_compare.empty()) return pto::cli::compare_command(report_compare[0], report_compare[1], report_out);
    if (report_cmd->parsed() && report_dir.empty()) throw pto::UserError("report: give a profile directory, or --compare A B", {});
    if (run_cmd->parsed()) return pto::cli::run_command(run);
    if (bench_cmd->parsed()) return pto::cli::bench_command(bench);
    if (profile_cmd->parsed()) return pto::cli::profile_command(profile);
    if (advise_cmd->parsed()) return pto::cli::advise_command(advise_dir, advise_json);
    if (report_cmd->parsed()) return pto::cli::report_command(report_dir);
    if (aot_cmd->parsed()) return pto::cli::aot_command(aot_out, aot_specs, aot_limits);
    if (cache_cmd->parsed()) return pto::cli::cache_command(cache_action, cache_json);
    if (demo_cmd->parsed()) return pto::cli::demo_command();
    if (calibrate_cmd->parsed()) return pto::cli::calibrate_command(calibrate_chip, calibrate_json);
    if (fuzz_cmd->parsed()) return pto::cli::fuzz_command(fuzz);
    if (campaign_cmd->parsed()) {
      campaign.samples = !campaign_no_samples;
      return pto::cli::campaign_command(campaign);
    }
  } catch (const pto::UserError& e) {
    fmt::print(stderr, "{}\n", e.what());
    pto::cli::Ranks::abort_all(2);  // under mpirun: the other ranks must not wait for this one
    return 2;
  } catch (const std::exception& e) {  // never an abort: anything else is reported in one line too
    fmt::print(stderr, "pto: internal error: {}\n", e.what());
    pto::cli::Ranks::abort_all(1);
    return 1;
  }
  return 0;
}
