#include "pto/runtime/Tune.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "pto/support/Error.hpp"

namespace pto {

uint64_t TuneSpace::size() const {
  uint64_t n = 1;
  for (const auto& a : axes) {
    if (a.values.empty()) return 0;
    if (n > std::numeric_limits<uint64_t>::max() / a.values.size()) return std::numeric_limits<uint64_t>::max();
    n *= a.values.size();
  }
  return n;
}

TuneConfig TuneSpace::at(const std::vector<size_t>& index) const {
  TuneConfig c;
  for (size_t i = 0; i < axes.size(); ++i) c[axes[i].name] = axes[i].values.at(index.at(i));
  return c;
}

std::string TuneSpace::str(const TuneConfig& config) {
  std::string s;
  for (const auto& [k, v] : config) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

const char* tune_status_name(TuneStatus s) {
  switch (s) {
    case TuneStatus::ok: return "ok";
    case TuneStatus::wrong: return "wrong";
    case TuneStatus::skipped: return "skipped";
  }
  return "?";
}

namespace {

// SplitMix64: a small generator whose sequence is the same on every platform and library.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

using Index = std::vector<size_t>;

// The state of one search: which points were tried, and the trials in order.
class Search {
 public:
  Search(const TuneSpace& space, const TuneBatchEvaluator& evaluate, const TuneOptions& options)
      : space_(space), evaluate_(evaluate), options_(options) {}

  bool tried(const Index& i) const { return tried_.count(i) != 0; }
  int remaining() const { return options_.budget - static_cast<int>(result_.trials.size()); }

  void run_round(const std::vector<Index>& points) {
    if (points.empty()) return;
    std::vector<TuneConfig> configs;
    for (const auto& p : points) configs.push_back(space_.at(p));
    const auto outcomes = evaluate_(configs);
    PTO_USER_CHECK(outcomes.size() == configs.size(), ErrorSite{})
        << "tune: the evaluator returned " << outcomes.size() << " outcomes for " << configs.size() << " configurations";
    for (size_t k = 0; k < points.size(); ++k) {
      tried_.insert(points[k]);
      const TuneTrial trial{configs[k], outcomes[k]};
      result_.trials.push_back(trial);
      switch (trial.outcome.status) {
        case TuneStatus::ok:
          if (!result_.found || trial.outcome.device_us < result_.best.outcome.device_us) {
            result_.found = true;
            result_.best = trial;
          }
          verified_.emplace_back(trial.outcome.device_us, points[k]);
          break;
        case TuneStatus::wrong: ++result_.wrong; break;
        case TuneStatus::skipped: ++result_.skipped[trial.outcome.reason]; break;
      }
    }
    if (options_.on_round) options_.on_round(result_.trials, options_.budget);
  }

  // The untried points one value away (on one axis, down before up) from the fastest verified
  // point that still has any: the best first, then the runner-up, and so on.
  std::vector<Index> next_neighbours() const {
    std::vector<size_t> ranking;  // indices into verified_, fastest first, earlier first on ties
    for (size_t i = 0; i < verified_.size(); ++i) ranking.push_back(i);
    std::stable_sort(ranking.begin(), ranking.end(), [&](size_t a, size_t b) { return verified_[a].first < verified_[b].first; });
    for (size_t r : ranking) {
      const Index& centre = verified_[r].second;
      std::vector<Index> out;
      for (size_t a = 0; a < space_.axes.size(); ++a) {
        for (int step : {-1, 1}) {
          const int64_t v = static_cast<int64_t>(centre[a]) + step;
          if (v < 0 || v >= static_cast<int64_t>(space_.axes[a].values.size())) continue;
          Index n = centre;
          n[a] = static_cast<size_t>(v);
          if (!tried(n)) out.push_back(n);
        }
      }
      if (!out.empty()) return out;
    }
    return {};
  }

  TuneResult& result() { return result_; }

 private:
  const TuneSpace& space_;
  const TuneBatchEvaluator& evaluate_;
  const TuneOptions& options_;
  std::set<Index> tried_;
  std::vector<std::pair<double, Index>> verified_;  // device time and point of each verified trial, in order
  TuneResult result_;
};

// Every point in index order, the last axis fastest.
std::vector<Index> all_points(const TuneSpace& space) {
  std::vector<Index> out;
  Index i(space.axes.size(), 0);
  for (;;) {
    out.push_back(i);
    size_t a = space.axes.size();
    while (a > 0) {
      --a;
      if (++i[a] < space.axes[a].values.size()) break;
      i[a] = 0;
      if (a == 0) return out;
    }
    if (space.axes.empty()) return out;
  }
}

}  // namespace

TuneResult tune_batched(const TuneSpace& space, const TuneBatchEvaluator& evaluate, const TuneOptions& options) {
  PTO_USER_CHECK(options.budget >= 1, ErrorSite{}) << "tune: the budget must be at least 1 (got " << options.budget << ")";
  PTO_USER_CHECK(!space.axes.empty(), ErrorSite{}) << "tune: the space has no tunables";
  std::set<std::string> names;
  for (const auto& a : space.axes) {
    PTO_USER_CHECK(!a.values.empty(), ErrorSite{}) << "tune: tunable '" << a.name << "' has no values";
    PTO_USER_CHECK(names.insert(a.name).second, ErrorSite{}) << "tune: tunable '" << a.name << "' is declared twice";
  }
  Search search(space, evaluate, options);
  const uint64_t size = space.size();
  if (size <= static_cast<uint64_t>(options.budget)) {
    search.run_round(all_points(space));
    search.result().exhaustive = true;
  } else {
    SplitMix64 rng{options.seed};
    // Up to `n` distinct untried random points.
    const auto random_points = [&](int n) {
      std::vector<Index> out;
      std::set<Index> chosen;
      for (int attempts = 0; static_cast<int>(out.size()) < n && attempts < 64 * n; ++attempts) {
        Index i(space.axes.size());
        for (size_t a = 0; a < space.axes.size(); ++a) i[a] = static_cast<size_t>(rng.below(space.axes[a].values.size()));
        if (!search.tried(i) && chosen.insert(i).second) out.push_back(i);
      }
      return out;
    };
    search.run_round(random_points(std::max(1, options.budget / 2)));
    while (search.remaining() > 0) {
      auto round = search.next_neighbours();
      // Nothing verified yet, so no point to refine around: keep sampling at random.
      if (round.empty() && !search.result().found) round = random_points(std::min(search.remaining(), std::max(1, options.budget / 4)));
      if (round.empty()) break;  // every neighbour of every verified point is tried
      if (static_cast<int>(round.size()) > search.remaining()) round.resize(static_cast<size_t>(search.remaining()));
      search.run_round(round);
    }
  }
  TuneResult r = std::move(search.result());
  r.space_size = size;
  return r;
}

TuneResult tune(const TuneSpace& space, const std::function<TuneOutcome(const TuneConfig&)>& evaluate, const TuneOptions& options) {
  const TuneBatchEvaluator one_at_a_time = [&](const std::vector<TuneConfig>& configs) {
    std::vector<TuneOutcome> out;
    out.reserve(configs.size());
    for (const auto& c : configs) out.push_back(evaluate(c));
    return out;
  };
  return tune_batched(space, one_at_a_time, options);
}

}  // namespace pto
