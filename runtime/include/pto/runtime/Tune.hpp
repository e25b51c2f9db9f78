#pragma once
// Search over a kernel's tunables by simulated device time (the seed's "change one factor at a
// time, keep every round's results", automated).
//
//   pto::TuneSpace space{{{"block_dim", {8, 16, 24, 48}}, {"buffers", {1, 2, 3}}}};
//   auto r = pto::tune(space, [&](const pto::TuneConfig& c) {
//     ... launch with c.at("block_dim"), c.at("buffers"); verify against the reference ...
//     return ok ? pto::TuneOutcome::measured(pto::last_launch()->device_us) : pto::TuneOutcome::wrong("mismatch");
//   }, {.budget = 32, .seed = 1});
//   r.best.config, r.trials, r.skipped
//
// Contract:
//   * a space of at most `budget` points is searched exhaustively, in index order (the last axis
//     varies fastest);
//   * a larger one gets `budget / 2` distinct random points (from `seed`), then local refinement:
//     each round evaluates the untried neighbours (one axis one value up or down: one factor at a
//     time) of the best verified point so far — of the runner-up once the best has none left, and
//     so on — until the budget is spent or no verified point has an untried neighbour; while no
//     point has verified, rounds of `budget / 4` further random points take the refinement's place;
//   * only verified points (`TuneStatus::ok`) compete; a wrong result is counted, a point that
//     cannot run (capacity, block_dim limit) is skipped and counted by its reason;
//   * ties go to the point evaluated first, so the same space, seed and evaluation give the same
//     answer. Rounds are handed to the evaluator whole (`tune_batched`), so a caller can spread one
//     over threads or processes without changing the result.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pto {

/// One tunable: its name and the values it may take, in order (neighbours are adjacent values).
struct TuneAxis {
  std::string name;
  std::vector<int64_t> values;
};

/// A configuration: one value per axis, by axis name.
using TuneConfig = std::map<std::string, int64_t>;

struct TuneSpace {
  std::vector<TuneAxis> axes;
  /// The number of points (the product of the value counts; saturates at UINT64_MAX).
  uint64_t size() const;
  /// The point with these per-axis value indices.
  TuneConfig at(const std::vector<size_t>& index) const;
  /// `axis=value ...` in axis order.
  static std::string str(const TuneConfig& config);
};

enum class TuneStatus { ok, wrong, skipped };
const char* tune_status_name(TuneStatus s);

struct TuneOutcome {
  TuneStatus status = TuneStatus::skipped;
  double device_us = 0;  // simulated device time, for ok points
  std::string reason;    // why a point is wrong or skipped (skipped points are counted by it)

  static TuneOutcome measured(double device_us) { return {TuneStatus::ok, device_us, {}}; }
  static TuneOutcome wrong(std::string why) { return {TuneStatus::wrong, 0, std::move(why)}; }
  static TuneOutcome skipped(std::string reason) { return {TuneStatus::skipped, 0, std::move(reason)}; }
};

struct TuneTrial {
  TuneConfig config;
  TuneOutcome outcome;
};

struct TuneOptions {
  int budget = 64;    // most points evaluated (at least 1)
  uint64_t seed = 1;  // random phase of a large space
  /// Called after each round with every trial so far and the budget (progress display).
  std::function<void(const std::vector<TuneTrial>& trials, int budget)> on_round;
};

struct TuneResult {
  bool found = false;                  // some point verified
  TuneTrial best;                      // the fastest verified point (first on ties)
  std::vector<TuneTrial> trials;       // every evaluated point, in evaluation order
  std::map<std::string, int> skipped;  // skipped points by reason
  int wrong = 0;                       // points whose result did not verify
  uint64_t space_size = 0;
  bool exhaustive = false;             // every point of the space was evaluated
};

/// Evaluates a round of points; returns their outcomes in the same order.
using TuneBatchEvaluator = std::function<std::vector<TuneOutcome>(const std::vector<TuneConfig>&)>;

/// The search described above, handing each round to `evaluate` whole. A UserError for an empty
/// space, an axis without values or a budget below 1.
TuneResult tune_batched(const TuneSpace& space, const TuneBatchEvaluator& evaluate, const TuneOptions& options = {});

/// The same search, one point at a time.
TuneResult tune(const TuneSpace& space, const std::function<TuneOutcome(const TuneConfig&)>& evaluate,
                const TuneOptions& options = {});

}  // namespace pto
