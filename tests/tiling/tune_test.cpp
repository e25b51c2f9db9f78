// pto::tune: exhaustive and budgeted search, verdicts counted, determinism, the Hana tunables
// struct, and a real kernel tuned by simulated time.
#include <doctest/doctest.h>

#include <set>

#include <boost/hana/define_struct.hpp>

#include "02_softmax/softmax.hpp"

namespace {

namespace sm = pto::samples::softmax;

pto::TuneSpace grid(int n_a, int n_b) {
  pto::TuneSpace s;
  s.axes.push_back({"a", {}});
  s.axes.push_back({"b", {}});
  for (int i = 0; i < n_a; ++i) s.axes[0].values.push_back(i);
  for (int i = 0; i < n_b; ++i) s.axes[1].values.push_back(10 * i);
  return s;
}

TEST_CASE("a_space_within_the_budget_is_searched_exhaustively_in_index_order") {
  const auto space = grid(3, 2);
  const auto r = pto::tune(space, [](const pto::TuneConfig& c) {
    return pto::TuneOutcome::measured(static_cast<double>((c.at("a") - 1) * (c.at("a") - 1) + c.at("b")));
  }, {.budget = 6});
  CHECK(r.exhaustive);
  CHECK(r.space_size == 6);
  REQUIRE(r.trials.size() == 6);
  CHECK(r.trials[0].config == pto::TuneConfig{{"a", 0}, {"b", 0}});
  CHECK(r.trials[1].config == pto::TuneConfig{{"a", 0}, {"b", 10}});  // the last axis varies fastest
  CHECK(r.trials[5].config == pto::TuneConfig{{"a", 2}, {"b", 10}});
  REQUIRE(r.found);
  CHECK(r.best.config == pto::TuneConfig{{"a", 1}, {"b", 0}});
  CHECK(r.best.outcome.device_us == 0.0);
}

TEST_CASE("only_verified_points_compete_and_the_others_are_counted_by_reason") {
  const auto space = grid(4, 3);
  const auto r = pto::tune(space, [](const pto::TuneConfig& c) {
    if (c.at("a") == 3) return pto::TuneOutcome::skipped("capacity");
    if (c.at("b") == 20 && c.at("a") == 0) return pto::TuneOutcome::skipped("block_dim limit");
    if (c.at("b") == 0) return pto::TuneOutcome::wrong("mismatch");  // the fastest points are wrong
    return pto::TuneOutcome::measured(static_cast<double>(c.at("b") + c.at("a")));
  }, {.budget = 100});
  CHECK(r.trials.size() == 12);
  CHECK(r.skipped.at("capacity") == 3);
  CHECK(r.skipped.at("block_dim limit") == 1);
  CHECK(r.wrong == 3);  // a = 0, 1, 2 with b = 0
  REQUIRE(r.found);
  CHECK(r.best.config == pto::TuneConfig{{"a", 0}, {"b", 10}});
  const auto none = pto::tune(space, [](const pto::TuneConfig&) { return pto::TuneOutcome::wrong("x"); }, {.budget = 100});
  CHECK_FALSE(none.found);
  CHECK(none.wrong == 12);
}

TEST_CASE("a_large_space_gets_random_points_then_one_factor_at_a_time_within_the_budget") {
  const auto space = grid(20, 20);
  std::vector<pto::TuneConfig> seen;
  const auto cost = [&](const pto::TuneConfig& c) {
    seen.push_back(c);
    const double a = static_cast<double>(c.at("a")), b = static_cast<double>(c.at("b")) / 10;
    return pto::TuneOutcome::measured((a - 13) * (a - 13) + (b - 4) * (b - 4));
  };
  const auto r = pto::tune(space, cost, {.budget = 80, .seed = 7});
  CHECK_FALSE(r.exhaustive);
  CHECK(r.space_size == 400);
  CHECK(r.trials.size() <= 80);
  CHECK(seen.size() == r.trials.size());
  std::set<pto::TuneConfig> distinct(seen.begin(), seen.end());
  CHECK(distinct.size() == seen.size());  // no point is evaluated twice
  REQUIRE(r.found);
  CHECK(r.best.config == pto::TuneConfig{{"a", 13}, {"b", 40}});  // the refinement walks to the optimum
  // The same seed gives the same trials; another seed another random phase.
  seen.clear();
  const auto again = pto::tune(space, cost, {.budget = 80, .seed = 7});
  REQUIRE(again.trials.size() == r.trials.size());
  for (size_t i = 0; i < r.trials.size(); ++i) CHECK(again.trials[i].config == r.trials[i].config);
  const auto other = pto::tune(space, cost, {.budget = 80, .seed = 8});
  CHECK(other.trials.front().config != r.trials.front().config);
}

TEST_CASE("a_batched_evaluator_sees_whole_rounds_and_gives_the_same_answer") {
  const auto space = grid(12, 12);
  const auto cost = [](const pto::TuneConfig& c) { return pto::TuneOutcome::measured(static_cast<double>((c.at("a") * 7 + c.at("b")) % 23)); };
  std::vector<size_t> rounds;
  const auto batched = pto::tune_batched(space, [&](const std::vector<pto::TuneConfig>& cs) {
    rounds.push_back(cs.size());
    std::vector<pto::TuneOutcome> out;
    for (const auto& c : cs) out.push_back(cost(c));
    return out;
  }, {.budget = 40, .seed = 3});
  const auto single = pto::tune(space, cost, {.budget = 40, .seed = 3});
  CHECK(rounds.front() == 20);  // the random half
  CHECK(rounds.size() > 1);
  REQUIRE(batched.trials.size() == single.trials.size());
  for (size_t i = 0; i < single.trials.size(); ++i) CHECK(batched.trials[i].config == single.trials[i].config);
  CHECK(batched.best.config == single.best.config);
}

TEST_CASE("a_bad_space_or_budget_is_a_user_error") {
  const auto ok = [](const pto::TuneConfig&) { return pto::TuneOutcome::measured(1); };
  CHECK_THROWS_WITH_AS(pto::tune(grid(2, 2), ok, {.budget = 0}), doctest::Contains("budget must be at least 1"), pto::UserError);
  CHECK_THROWS_WITH_AS(pto::tune(pto::TuneSpace{}, ok), doctest::Contains("no tunables"), pto::UserError);
  CHECK_THROWS_WITH_AS(pto::tune(grid(0, 2), ok), doctest::Contains("tunable 'a' has no values"), pto::UserError);
  pto::TuneSpace twice = grid(2, 2);
  twice.axes[1].name = "a";
  CHECK_THROWS_WITH_AS(pto::tune(twice, ok), doctest::Contains("declared twice"), pto::UserError);
}

struct Tunables {
  BOOST_HANA_DEFINE_STRUCT(Tunables,
    (pto::KeyValues<int, 2, 8>, block_dim),
    (pto::KeyField<int, 1, 2>, buffers),
    (bool, wide));
};

TEST_CASE("a_hana_tunables_struct_declares_the_axes_and_receives_each_configuration") {
  const auto space = pto::tune_space_of<Tunables>();
  REQUIRE(space.axes.size() == 3);
  CHECK(space.axes[0].name == "block_dim");
  CHECK(space.axes[0].values == std::vector<int64_t>{2, 8});
  CHECK(space.axes[1].values == std::vector<int64_t>{1, 2});
  CHECK(space.axes[2].values == std::vector<int64_t>{0, 1});
  const auto t = pto::tune_config_as<Tunables>({{"block_dim", 8}, {"buffers", 2}, {"wide", 1}});
  CHECK(t.block_dim == 8);
  CHECK(t.buffers == 2);
  CHECK(t.wide);
}

TEST_CASE("tuning_a_real_kernel_by_simulated_time_verifies_every_candidate_and_is_reproducible") {
  const int64_t rows = 200, cols = 300;
  auto x = pto::Tensor<float>::random({rows, cols}, 11, -3.0, 3.0);
  auto want = pto::Tensor<float>::zeros({rows, cols});
  sm::reference(x, want);
  std::map<pto::TuneConfig, double> measured;
  const auto evaluate = [&](const Tunables& t) {
    auto y = pto::Tensor<float>::zeros({rows, cols});
    const auto kernel = sm::make_kernel<float>({.buffers = t.buffers, .rows_per_tile = t.wide ? 8 : 2});
    kernel[{.block_dim = t.block_dim}](x, y);
    pto::synchronize();
    if (pto::samples::max_abs_diff(y, want) > sm::tolerance<float>()) return pto::TuneOutcome::wrong("mismatch");
    const double us = pto::last_launch()->device_us;
    measured[{{"block_dim", t.block_dim}, {"buffers", t.buffers}, {"wide", t.wide}}] = us;
    return pto::TuneOutcome::measured(us);
  };
  const auto r = pto::tune<Tunables>(evaluate, {.budget = 8});
  CHECK(r.exhaustive);
  CHECK(r.wrong == 0);
  REQUIRE(r.found);
  REQUIRE(measured.size() == 8);
  for (const auto& [config, us] : measured) CHECK(r.best.outcome.device_us <= us);
  CHECK(r.best.config.at("block_dim") == 8);  // more cores win on 200 rows
  // Simulated time is deterministic: the best configuration measures the same again.
  const double best = r.best.outcome.device_us;
  measured.clear();
  CHECK(evaluate(pto::tune_config_as<Tunables>(r.best.config)).device_us == best);
}

}  // namespace
