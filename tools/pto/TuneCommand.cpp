// `pto tune SAMPLE`: pto::tune over the sample's declared tunables, by simulated device time,
// each candidate verified; rounds are spread over MPI ranks when launched with mpirun.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Cases.hpp"
#include "Commands.hpp"
#include "Progress.hpp"
#include "Ranks.hpp"
#include "Samples.hpp"
#include "SearchAndSweep.hpp"

namespace pto::cli {

namespace {

CaseSpec spec_for(const TuneOptionsCli& o, const samples::SampleArgs& base, const TuneConfig& config) {
  CaseSpec spec{.sample = o.sample, .shape = base.shape, .dtype = base.dtype, .block_dim = base.block_dim, .params = base.params,
                .chip = base.chip};
  for (const auto& [axis, value] : config) {
    if (axis == "block_dim") {
      spec.block_dim = static_cast<int>(value);
    } else {
      spec.params[axis] = std::to_string(value);
    }
  }
  return spec;
}

TuneOutcome outcome_of(const CaseResult& r) {
  switch (r.status) {
    case CaseStatus::ok: return TuneOutcome::measured(r.device_us);
    case CaseStatus::wrong: return TuneOutcome::wrong("result outside the tolerance");
    case CaseStatus::race: return TuneOutcome::wrong("race");
    case CaseStatus::skipped: return TuneOutcome::skipped(r.reason);
    case CaseStatus::error: return TuneOutcome::skipped("error");
  }
  return TuneOutcome::skipped("error");
}

}  // namespace

SampleTune tune_sample(const TuneOptionsCli& o) {
  const auto& info = find_sample(o.sample);
  SampleTune st;
  st.base = sample_args(o);
  const samples::SampleArgs& base = st.base;
  PTO_USER_CHECK(!info.tunables.axes.empty(), ErrorSite{}) << "sample '" << info.name << "' declares no tunables to search";
  PTO_USER_CHECK(o.budget >= 1, ErrorSite{}) << "--budget must be at least 1 (got " << o.budget << ")";
  // A --param or --block-dim the user gave fixes that tunable; the rest are searched.
  TuneSpace& space = st.space;
  for (const auto& axis : info.tunables.axes) {
    const bool fixed = axis.name == "block_dim" ? o.block_dim_given : base.params.count(axis.name) != 0;
    if (!fixed) space.axes.push_back(axis);
  }
  PTO_USER_CHECK(!space.axes.empty(), ErrorSite{}) << "every tunable of '" << info.name << "' is fixed on the command line: nothing to search";
  // The fixed --param keys, shape and dtype must suit the sample before anything is searched: one
  // preparation at the sample's defaults (a misspelt key or a shape it cannot take is one clear
  // line, not a table of skipped trials).
  (void)prepare_run(info, base);

  std::map<std::string, CaseResult>& results = st.cases;  // by configuration, on every rank
  Progress progress("tune " + info.name, static_cast<int>(std::min<uint64_t>(space.size(), static_cast<uint64_t>(o.budget))), o.json);
  int done = 0, failed = 0;
  const TuneBatchEvaluator evaluate = [&](const std::vector<TuneConfig>& configs) {
    const auto share = my_share(configs.size());
    std::vector<CaseSpec> specs;
    for (size_t i : share) specs.push_back(spec_for(o, base, configs[i]));
    int round_done = 0;
    const auto ran = run_cases(specs, o.jobs, {.host_repeats = 0}, [&](const CaseResult& r) {
      failed += r.failed() ? 1 : 0;
      progress.update(done + ++round_done * Ranks::size(), failed);
    });
    nlohmann::json mine = nlohmann::json::array();
    for (size_t k = 0; k < share.size(); ++k) mine.push_back({{"index", share[k]}, {"case", case_json(ran[k])}});
    std::vector<TuneOutcome> out(configs.size());
    for (const auto& part : Ranks::allgather(mine.dump())) {
      for (const auto& item : nlohmann::json::parse(part)) {
        const size_t i = item.at("index").get<size_t>();
        const CaseResult r = case_from_json(item.at("case"));
        results[TuneSpace::str(configs[i])] = r;
        out[i] = outcome_of(r);
      }
    }
    done += static_cast<int>(configs.size());
    return out;
  };
  st.result = tune_batched(space, evaluate, {.budget = o.budget, .seed = o.seed});
  progress.finish();
  return st;
}

int tune_command(const TuneOptionsCli& o) {
  const SampleTune st = tune_sample(o);
  const TuneResult& r = st.result;
  const TuneSpace& space = st.space;
  const samples::SampleArgs& base = st.base;
  const auto& results = st.cases;
  const auto& info = find_sample(o.sample);
  if (!Ranks::root()) return r.found ? 0 : 1;

  std::vector<const TuneTrial*> order;
  for (const auto& t : r.trials) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const TuneTrial* a, const TuneTrial* b) {
    const bool ao = a->outcome.status == TuneStatus::ok, bo = b->outcome.status == TuneStatus::ok;
    if (ao != bo) return ao;
    return ao && a->outcome.device_us < b->outcome.device_us;
  });
  int ok_count = 0;
  for (const auto& t : r.trials) ok_count += t.outcome.status == TuneStatus::ok ? 1 : 0;

  if (o.json) {
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& t : r.trials) {
      const CaseResult& c = results.at(TuneSpace::str(t.config));
      trials.push_back({{"config", t.config}, {"status", tune_status_name(t.outcome.status)}, {"device_us", t.outcome.device_us},
                        {"reason", t.outcome.reason}, {"message", c.message}, {"pipes", c.pipes}});
    }
    nlohmann::json axes = nlohmann::json::object();
    for (const auto& a : space.axes) axes[a.name] = a.values;
    nlohmann::json j{{"sample", info.name}, {"shape", base.shape}, {"dtype", dtype_name(base.dtype)}, {"chip", base.chip},
                     {"params", base.params}, {"budget", o.budget}, {"seed", o.seed}, {"axes", axes},
                     {"space_size", r.space_size}, {"exhaustive", r.exhaustive}, {"tried", r.trials.size()},
                     {"verified", ok_count}, {"wrong", r.wrong}, {"skipped", r.skipped}, {"found", r.found}, {"trials", trials}};
    j["best"] = r.found ? nlohmann::json{{"config", r.best.config}, {"device_us", r.best.outcome.device_us}} : nlohmann::json(nullptr);
    fmt::print("{}\n", j.dump());
    return r.found ? 0 : 1;
  }
  fmt::print("tune {} {} {} on {}: {} points, budget {}{}, seed {}\n", info.name, shape_string(base.shape), dtype_name(base.dtype),
             base.chip, r.space_size, o.budget, r.exhaustive ? " (exhaustive)" : " (random half, then one factor at a time)", o.seed);
  std::string skipped;
  for (const auto& [reason, n] : r.skipped) skipped += fmt::format("{}{} {}", skipped.empty() ? "" : ", ", reason, n);
  fmt::print("tried {}: {} verified, {} wrong, {} skipped{}\n", r.trials.size(), ok_count, r.wrong,
             r.trials.size() - static_cast<size_t>(ok_count + r.wrong), skipped.empty() ? "" : " (" + skipped + ")");
  if (r.found) {
    fmt::print("best  {}  device_us {:.2f}\n\n", TuneSpace::str(r.best.config), r.best.outcome.device_us);
  } else {
    fmt::print("no configuration verified\n\n");
  }
  fmt::print("{:>4} {:>12} {:>8}  {}\n", "#", "device_us", "status", "configuration");
  int rank = 0;
  for (const TuneTrial* t : order) {
    const CaseResult& c = results.at(TuneSpace::str(t->config));
    const std::string why = t->outcome.status == TuneStatus::ok ? "" : "  (" + (c.message.empty() ? t->outcome.reason : c.message) + ")";
    fmt::print("{:>4} {:>12} {:>8}  {}{}\n", ++rank, t->outcome.status == TuneStatus::ok ? fmt::format("{:.2f}", t->outcome.device_us) : "-",
               tune_status_name(t->outcome.status), TuneSpace::str(t->config), why);
  }
  return r.found ? 0 : 1;
}

}  // namespace pto::cli
