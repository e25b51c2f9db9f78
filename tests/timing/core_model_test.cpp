// Cycle-exact rules of the pipeline model and the launch replay, on hand-built instruction
// streams (Ramulator style: each test is named after the rule it checks and asserts exact cycles).
#include <doctest/doctest.h>

#include <algorithm>

#include <cmath>

#include <pto/pto.hpp>
#include <pto/runtime/timing/Replay.hpp>

#include "common/A2Cost.hpp"

namespace {

using pto::CoreModel;
using pto::CostModel;
using pto::ir::Pipe;

using pto::test::a2_cost;

/// Replays hand-built cores together on `chip`; `footprint` > 0 tells the L2 that every address is below it.
pto::timing::ReplayResult replay(std::vector<const CoreModel*> cores, const pto::ChipProfile& chip = pto::ChipProfile::get("a2"),
                                 uint64_t footprint = 0) {
  std::vector<const pto::timing::CoreTrace*> traces;
  for (const auto* c : cores) traces.push_back(&c->trace());
  return pto::timing::replay({.chip = &chip, .cores = traces, .gm_footprint = footprint});
}

/// The end of op `op` of a single core.
double end_of(const CoreModel& m, int op) { return replay({&m}).cores[0].op_end[static_cast<size_t>(op)]; }

TEST_CASE("pipes_without_flags_overlap") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  const int load = m.run(Pipe::MTE2, 100);  // issued at 0
  const int add = m.run(Pipe::V, 50);       // issued at 1, does not wait for MTE2
  const auto r = replay({&m}).cores[0];
  CHECK(r.op_end[load] == 100);
  CHECK(r.op_end[add] == 51);
  CHECK(r.end_cycles == 100);
}

TEST_CASE("instructions_on_one_pipe_run_in_order") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  const int second = m.run(Pipe::MTE2, 30);
  const auto r = replay({&m}).cores[0];
  CHECK(r.op_end[second] == 130);
  CHECK(r.pipes[static_cast<int>(Pipe::MTE2)].busy == 130);
}

TEST_CASE("wait_flag_delays_consumer_until_producer_completes") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.set_flag(Pipe::MTE2, Pipe::V, 0);
  m.wait_flag(Pipe::MTE2, Pipe::V, 0);
  const int add = m.run(Pipe::V, 50);
  const auto r = replay({&m}).cores[0];
  CHECK(r.op_end[add] == 150);
  CHECK(r.pipes[static_cast<int>(Pipe::V)].wait == 100);
  CHECK_FALSE(m.failure().has_value());
}

TEST_CASE("set_flag_marks_the_producer_work_issued_before_it_only") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.set_flag(Pipe::MTE2, Pipe::V, 3);
  m.run(Pipe::MTE2, 400);  // after the set: not waited for
  m.wait_flag(Pipe::MTE2, Pipe::V, 3);
  CHECK(end_of(m, m.run(Pipe::V, 10)) == 110);
}

TEST_CASE("barrier_all_joins_every_pipe") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.run(Pipe::V, 10);
  m.barrier(Pipe::ALL);
  const int store = m.run(Pipe::MTE3, 5);  // issued at 100, when every pipe has drained
  const int add = m.run(Pipe::V, 5);       // issued one cycle later
  const auto r = replay({&m}).cores[0];
  CHECK(r.op_end[store] == 105);
  CHECK(r.op_end[add] == 106);
}

TEST_CASE("barrier_on_one_pipe_does_not_order_other_pipes") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.barrier(Pipe::V);
  CHECK(end_of(m, m.run(Pipe::V, 5)) == 6);
}

TEST_CASE("mutex_orders_sections_on_different_pipes_in_program_order") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.lock(7, Pipe::MTE2);
  m.run(Pipe::MTE2, 100);
  m.unlock(7, Pipe::MTE2);
  m.lock(7, Pipe::V);
  const int consumer = m.run(Pipe::V, 20);
  m.unlock(7, Pipe::V);
  m.lock(7, Pipe::MTE2);  // the next producer waits for the consumer (WAR)
  const int producer = m.run(Pipe::MTE2, 1);
  m.unlock(7, Pipe::MTE2);
  const auto r = replay({&m}).cores[0];
  CHECK(r.op_end[consumer] == 120);
  CHECK(r.op_end[producer] == 121);
}

TEST_CASE("wait_without_a_prior_set_is_a_deadlock_report_not_a_hang") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.wait_flag(Pipe::MTE3, Pipe::V, 2);
  REQUIRE(m.failure().has_value());
  CHECK(m.failure()->first.find("deadlock") != std::string::npos);
  CHECK(m.failure()->first.find("MTE3 -> V, event 2") != std::string::npos);
}

TEST_CASE("flag_event_ids_are_0_to_15") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.set_flag(Pipe::MTE2, Pipe::V, 16);
  REQUIRE(m.failure().has_value());
  CHECK(m.failure()->first.find("out of range 0..15") != std::string::npos);
}

TEST_CASE("unsynchronised_read_after_write_on_another_pipe_is_a_race") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  const CoreModel::Access write[] = {{5, true}};
  const CoreModel::Access read[] = {{5, false}};
  m.run(Pipe::MTE2, 100, 0, write);
  m.run(Pipe::V, 10, 1, read);
  REQUIRE(m.races().size() == 1);
  CHECK(m.races()[0].kind == "RAW");
  CHECK(m.races()[0].first_instr == 0);
  CHECK(m.races()[0].second_instr == 1);
}

TEST_CASE("a_flag_between_producer_and_consumer_removes_the_race") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  const CoreModel::Access write[] = {{5, true}};
  const CoreModel::Access read[] = {{5, false}};
  m.run(Pipe::MTE2, 100, 0, write);
  m.set_flag(Pipe::MTE2, Pipe::V, 0);
  m.wait_flag(Pipe::MTE2, Pipe::V, 0);
  m.run(Pipe::V, 10, 1, read);
  CHECK(m.races().empty());
}

TEST_CASE("overwriting_a_tile_another_pipe_still_reads_is_a_war_race") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  const CoreModel::Access write[] = {{1, true}};
  const CoreModel::Access read[] = {{1, false}};
  m.run(Pipe::V, 10, 0, read);
  m.run(Pipe::MTE2, 10, 1, write);
  REQUIRE(m.races().size() == 1);
  CHECK(m.races()[0].kind == "WAR");
}

TEST_CASE("same_pipe_accesses_never_race") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  const CoreModel::Access write[] = {{1, true}};
  m.run(Pipe::V, 10, 0, write);
  m.run(Pipe::V, 10, 1, write);
  CHECK(m.races().empty());
}

/// A GM read of `bytes` of tensor 0 at element `lo` (1-D, f32).
int read_gm(CoreModel& m, double bytes, int64_t lo = 0) {
  const pto::timing::GmRegion region{0, 4, lo, lo + static_cast<int64_t>(bytes) / 4, 0, false};
  return m.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, region);
}

TEST_CASE("a_transfer_alone_takes_its_path_latency_plus_bytes_at_the_path_peak") {
  const auto& chip = pto::ChipProfile::get("a2");
  const auto& path = chip.path(pto::PathId::GmToVec);
  CoreModel m(nullptr, a2_cost(), 0, true);
  const int load = read_gm(m, 65536);
  // pto-isa's profiled TLOAD f32 128 x 128 GM -> UB: 776 cycles.
  CHECK(end_of(m, load) == doctest::Approx(path.latency_cycles + 65536 / path.peak_bytes_per_cycle));
  CHECK(end_of(m, load) == doctest::Approx(776));
}

TEST_CASE("hbm_is_shared_fairly_by_the_transfers_in_flight_and_idle_cores_take_none") {
  const auto& chip = pto::ChipProfile::get("a2");
  const double latency = chip.path(pto::PathId::GmToVec).latency_cycles;
  const double hbm = chip.hbm_gbps / chip.clock_ghz;  // bytes per cycle
  const double bytes = 4 << 20;                       // misses in a cold L2: all of it goes to HBM
  const int n = 48;
  std::vector<CoreModel> cores;
  cores.reserve(n);
  std::vector<const CoreModel*> busy;
  for (int c = 0; c < n; ++c) {
    cores.emplace_back(nullptr, a2_cost(), c, false, 0, nullptr, 1, c);
    read_gm(cores.back(), bytes, int64_t{c} * (8 << 20) / 4);  // disjoint regions
    busy.push_back(&cores.back());
  }
  const auto all = replay(busy);
  // 48 equal transfers share HBM: each gets hbm / 48, below its own path peak.
  CHECK(all.cores[0].end_cycles == doctest::Approx(latency + bytes * n / hbm).epsilon(1e-9));
  CHECK(all.hbm_bytes == doctest::Approx(bytes * n));
  // Idle cores beside 3 busy ones change nothing.
  std::vector<CoreModel> idle;
  idle.reserve(n);
  std::vector<const CoreModel*> three(busy.begin(), busy.begin() + 3);
  for (int c = 3; c < n; ++c) three.push_back(&idle.emplace_back(nullptr, a2_cost(), c, false, 0, nullptr, 1, c));
  const auto few = replay(std::vector<const CoreModel*>(busy.begin(), busy.begin() + 3));
  const auto with_idle = replay(three);
  CHECK(few.cores[0].end_cycles == with_idle.cores[0].end_cycles);
  CHECK(few.cores[0].end_cycles == doctest::Approx(latency + bytes / std::min(chip.path(pto::PathId::GmToVec).peak_bytes_per_cycle, hbm / 3)));
}

/// a2 with an L2 of `bytes` in `ways`-way sets of `line`-byte lines (small: evictions show).
pto::ChipProfile with_l2(int64_t bytes, int64_t line, int ways) {
  pto::ChipProfile chip = pto::ChipProfile::get("a2");
  chip.l2_bytes = bytes;
  chip.l2_line_bytes = line;
  chip.l2_ways = ways;
  return chip;
}

TEST_CASE("a_second_read_of_the_same_bytes_hits_the_shared_l2_and_takes_no_hbm") {
  CoreModel first(nullptr, a2_cost(), 0, false, 0, nullptr, 1, 0), second(nullptr, a2_cost(), 1, false, 0, nullptr, 1, 1);
  read_gm(first, 65536);
  first.barrier(Pipe::ALL);
  read_gm(first, 65536);  // again, after the first has ended
  const auto r = replay({&first});
  CHECK(r.hbm_bytes == 65536);
  CHECK(r.l2_read_hit_bytes == 65536);
  // Another core reading the same bytes later hits too.
  read_gm(second, 65536);
  const auto both = replay({&first, &second});
  CHECK(both.l2_read_hit_bytes + both.l2_read_miss_bytes == 3 * 65536);
}

TEST_CASE("an_l2_that_holds_the_whole_footprint_answers_as_the_set_associative_one") {
  // Reads that start and end inside lines (partial edge lines) and overlap earlier ones.
  CoreModel m(nullptr, a2_cost(), 0, false, 0, nullptr, 1, 0);
  const std::pair<int64_t, double> reads[] = {{0, 65536}, {100, 1000}, {1000, 70000}, {16000, 40}, {30000, 200000}, {7, 4}};
  for (const auto& [lo, bytes] : reads) {
    read_gm(m, bytes, lo);
    m.barrier(Pipe::ALL);  // one after another: the L2 sees them in this order
  }
  const auto set_associative = replay({&m});
  const auto bitmap = replay({&m}, pto::ChipProfile::get("a2"), uint64_t{1} << 20);
  CHECK(bitmap.l2_read_hit_bytes == set_associative.l2_read_hit_bytes);
  CHECK(bitmap.hbm_bytes == set_associative.hbm_bytes);
  CHECK(bitmap.cores[0].end_cycles == set_associative.cores[0].end_cycles);
  CHECK(set_associative.l2_read_hit_bytes > 0);
}

TEST_CASE("the_set_associative_l2_evicts_the_least_recently_used_line_of_a_set") {
  // An L2 of two sets of two 512-byte lines: line l goes to set l % 2.
  const pto::ChipProfile chip = with_l2(2048, 512, 2);
  const CostModel cost(chip);
  CoreModel m(nullptr, cost, 0, false, 0, nullptr, 1, 0);
  // Lines 0-3 fill both sets; 4 evicts 0 (set 0's oldest); 2 hits and makes 4 the oldest; 0
  // evicts 4; 2 hits; 4 misses again.
  const int lines[] = {0, 1, 2, 3, 4, 2, 0, 2, 4};
  for (int line : lines) {
    const pto::timing::GmRegion region{0, 4, line * 128, line * 128 + 128, 0, false};
    m.transfer(Pipe::MTE2, pto::PathId::GmToVec, 512, region);
    m.barrier(Pipe::ALL);  // one after another: the L2 sees them in this order
  }
  const auto r = replay({&m}, chip);
  CHECK(r.l2_read_hit_bytes == 2 * 512);
  CHECK(r.l2_read_miss_bytes == 7 * 512);
  CHECK(r.hbm_bytes == 7 * 512);
}

/// 400 reads of random lines, some 2 to 5 lines long, on an L2 of `ways`-way sets, against a list per
/// set kept most recent first: hit and miss bytes must be the list's.
void check_against_a_plain_lru_model(int ways) {
  constexpr int kSets = 3, kLine = 512;
  const pto::ChipProfile chip = with_l2(int64_t{ways} * kSets * kLine, kLine, ways);
  const CostModel cost(chip);
  CoreModel m(nullptr, cost, 0, false, 0, nullptr, 1, 0);
  std::vector<std::vector<int>> sets(kSets);  // per set, its lines, most recent first
  int hits = 0, misses = 0;
  uint32_t seed = 12345;
  auto next = [&] { return (seed = seed * 1664525u + 1013904223u) >> 8; };  // an LCG's low bits cycle: drop them
  for (int i = 0; i < 400; ++i) {
    // One line mostly, now and then a run of 2 to 5 (the lines between its ends go as one run).
    const int line = static_cast<int>(next() % static_cast<uint32_t>(kSets * ways * 3));
    const int count = next() % 4 == 0 ? 2 + static_cast<int>(next() % 4) : 1;
    const pto::timing::GmRegion region{0, 4, line * (kLine / 4), (line + count) * (kLine / 4), 0, false};
    m.transfer(Pipe::MTE2, pto::PathId::GmToVec, count * kLine, region);
    m.barrier(Pipe::ALL);  // one after another: the L2 sees them in this order
    for (int l = line; l < line + count; ++l) {
      auto& set = sets[static_cast<size_t>(l % kSets)];
      const auto at = std::find(set.begin(), set.end(), l);
      if (at != set.end()) {
        ++hits;
        set.erase(at);
      } else {
        ++misses;
        if (set.size() == static_cast<size_t>(ways)) set.pop_back();  // the least recently used
      }
      set.insert(set.begin(), l);
    }
  }
  REQUIRE(hits > 50);
  REQUIRE(misses > 50);
  const auto r = replay({&m}, chip);
  CHECK(r.l2_read_hit_bytes == hits * kLine);
  CHECK(r.l2_read_miss_bytes == misses * kLine);
}

TEST_CASE("the_set_associative_l2_of_16_ways_answers_as_a_plain_lru_model") {
  check_against_a_plain_lru_model(16);  // the profiles' way count: the replay's SIMD path where the host has AVX-512
}

TEST_CASE("the_set_associative_l2_of_other_way_counts_answers_as_a_plain_lru_model") {
  for (int ways : {1, 5, 24}) {  // the portable path
    CAPTURE(ways);
    check_against_a_plain_lru_model(ways);
  }
}

TEST_CASE("vector_cost_is_a_head_plus_a_slope_per_repeat_by_operation_class") {
  const auto& chip = pto::ChipProfile::get("a2");
  const CostModel cost(chip);
  pto::ir::VecOpCounts add{}, exp{}, fused{};
  add[static_cast<int>(pto::ir::VecOp::Binary)] = 1;
  exp[static_cast<int>(pto::ir::VecOp::Exp)] = 1;
  fused[static_cast<int>(pto::ir::VecOp::Binary)] = 1;
  fused[static_cast<int>(pto::ir::VecOp::Exp)] = 1;
  const auto& b = chip.vector_op(pto::ir::VecOp::Binary);
  const auto& e = chip.vector_op(pto::ir::VecOp::Exp);
  // f32 64 x 64: 64 repeats of 256 B (pto-isa profiled TADD 160, TEXP 159).
  CHECK(cost.vector(add, pto::DType::f32, 4096).total() == doctest::Approx(b.head + 64 * b.per_repeat));
  CHECK(cost.vector(exp, pto::DType::f32, 4096).total() == doctest::Approx(159));
  // A fused expression pays one head (the larger) and every body.
  CHECK(cost.vector(fused, pto::DType::f32, 4096).total() == doctest::Approx(e.head + 64 * (b.per_repeat + e.per_repeat)));
  // A count that is not a whole number of repeats pays the unaligned penalty per operation.
  CHECK(cost.vector(add, pto::DType::f32, 100).total() == doctest::Approx(b.head + 2 * b.per_repeat + chip.vector_unaligned_cycles));
  // Half: 128 elements a repeat.
  CHECK(cost.vector(exp, pto::DType::f16, 4096).total() == doctest::Approx(e.head + 32 * e.per_repeat_16bit));
}

TEST_CASE("the_vector_head_is_paid_only_when_the_pipe_starts_from_idle") {
  CoreModel m(nullptr, a2_cost(), 0, false);
  m.run(Pipe::MTE2, 1000);
  m.set_flag(Pipe::MTE2, Pipe::V, 0);
  m.run(Pipe::MTE2, 4000);
  m.set_flag(Pipe::MTE2, Pipe::V, 1);
  m.wait_flag(Pipe::MTE2, Pipe::V, 0);
  const int first = m.run(Pipe::V, 128, -1, {}, 24);   // starts the idle pipe at 1000: head + body
  const int queued = m.run(Pipe::V, 128, -1, {}, 24);  // queued behind it: body only
  m.wait_flag(Pipe::MTE2, Pipe::V, 1);
  const int later = m.run(Pipe::V, 128, -1, {}, 24);   // the pipe idles until 5000: head again
  const auto r = replay({&m}).cores[0];
  CHECK(r.op_end[first] == 1000 + 24 + 128);
  CHECK(r.op_end[queued] == 1000 + 24 + 128 + 128);
  CHECK(r.op_end[later] == 5000 + 24 + 128);
}

TEST_CASE("matmul_costs_its_fractal_blocks_plus_the_cube_head") {
  const auto& chip = pto::ChipProfile::get("a2");
  const CostModel cost(chip);
  // pto-isa's profiled TMATMUL f16 40 x 50 x 60: 3 * 4 * 4 = 48 fractals + 6 = 54 cycles.
  CHECK(cost.matmul(pto::DType::f16, 3 * 4 * 4).total() == 54);
  CHECK(chip.cube_macs(pto::DType::f16) == 4096);
  CHECK(chip.cube_macs(pto::DType::f32) == 1024);
}

TEST_CASE("local_moves_cost_their_path_acc_to_vec_and_vec_to_mat_on_a5") {
  const auto& chip = pto::ChipProfile::get("a5");
  const CostModel cost(chip);
  const double bytes = 40 * 64 * 2;  // a 40 x 64 half tile
  for (auto p : {pto::PathId::MatToLeft, pto::PathId::MatToRight, pto::PathId::AccToVec, pto::PathId::VecToMat}) {
    CAPTURE(pto::path_name(p));
    const auto& path = chip.path(p);
    REQUIRE(path.present());
    CHECK(cost.transfer(p, bytes).total() == doctest::Approx(path.latency_cycles + bytes / path.peak_bytes_per_cycle));
  }
  CHECK(pto::move_path(pto::ir::MemSpace::Vec, pto::ir::MemSpace::Acc) == pto::PathId::AccToVec);
  CHECK(pto::move_path(pto::ir::MemSpace::Mat, pto::ir::MemSpace::Vec) == pto::PathId::VecToMat);
  CHECK_FALSE(pto::ChipProfile::get("a2").path(pto::PathId::AccToVec).present());
}

}  // namespace

TEST_CASE("a_trace_whose_deps_are_not_its_ops_deps_in_order_is_an_internal_error_and_the_replay_stays_usable") {
  // The replay finds each dep's owner from the ops' dep runs (CoreTrace::deps): a trace that
  // breaks that (an entry no op owns, or runs out of order) is refused, not read out of bounds.
  CoreModel m(nullptr, a2_cost(), 0, true);
  const int load = m.run(Pipe::MTE2, 100);
  m.set_flag(Pipe::MTE2, Pipe::V, 0);
  m.wait_flag(Pipe::MTE2, Pipe::V, 0);
  const int add = m.run(Pipe::V, 50);
  const std::vector<double> ends = replay({&m}).cores[0].op_end;
  CHECK(ends[static_cast<size_t>(add)] >= ends[static_cast<size_t>(load)] + 50);  // the add waited for the load

  const auto& chip = pto::ChipProfile::get("a2");
  auto replay_trace = [&](const pto::timing::CoreTrace& t) {
    const pto::timing::CoreTrace* traces[] = {&t};
    return pto::timing::replay({.chip = &chip, .cores = traces});
  };
  pto::timing::CoreTrace extra = m.trace();
  extra.deps.push_back({0, 0});  // owned by no op
  CHECK_THROWS_AS(replay_trace(extra), pto::InternalError);
  pto::timing::CoreTrace shifted = m.trace();
  for (auto& op : shifted.ops) {
    if (op.dep_count > 0) op.dep_begin += 1;  // past the run it owns
  }
  shifted.deps.push_back({0, 0});
  CHECK_THROWS_AS(replay_trace(shifted), pto::InternalError);
  // The same storage replays a good trace again, to the same cycles.
  CHECK(replay_trace(m.trace()).cores[0].op_end == ends);
}

TEST_CASE("a_rectangle_of_rows_touches_the_l2_as_its_rows_one_by_one") {
  // A 2-D transfer (rows of a view `width` floats wide) against the same rows read one transfer
  // each: the same hits, misses and HBM bytes, on the set-associative L2 (4 sets of 2 lines of
  // 512 bytes: the order of touches decides evictions) and the one that holds the footprint.
  // Whole rows on line boundaries are touched as one range; partial or unaligned rows row by row.
  const pto::ChipProfile chip = with_l2(4096, 512, 2);
  const CostModel cost(chip);
  struct Shape {
    int64_t width, lo, hi;  // floats
  };
  const Shape shapes[] = {
      {256, 0, 6 * 256},          // whole rows of two lines each, on line boundaries: one range
      {256, 256, 5 * 256},        // the same, not from row 0
      {200, 0, 6 * 200},          // whole rows, but rows share lines: row by row
      {256, 64, 4 * 256 + 192},   // columns [64, 192) of rows 0-4: row by row
      {256, 128, 7 * 256},        // a first partial row, then whole rows: row by row
  };
  for (const Shape& s : shapes) {
    CAPTURE(s.width);
    CAPTURE(s.lo);
    CAPTURE(s.hi);
    auto fill = [&](CoreModel& m) {  // earlier reads the rectangle partly hits, and lines it evicts
      read_gm(m, 2048, 128);
      m.barrier(Pipe::ALL);
      read_gm(m, 1024, 4 * 256);
      m.barrier(Pipe::ALL);
    };
    CoreModel whole(nullptr, cost, 0, false, 0, nullptr, 1, 0), rows(nullptr, cost, 0, false, 0, nullptr, 1, 0);
    fill(whole);
    fill(rows);
    const int64_t w = s.width, r0 = s.lo / w, c0 = s.lo % w, r1 = (s.hi - c0 - 1) / w, c1 = s.hi - r1 * w;
    const double bytes = static_cast<double>((r1 - r0 + 1) * (c1 - c0) * 4);
    // The rectangle, one a row further on (half new lines), then the first again (the bitmap
    // L2 remembers rectangles it has touched: all hits, as row by row).
    for (const int64_t shift : {int64_t{0}, w, int64_t{0}}) {
      whole.transfer(Pipe::MTE2, pto::PathId::GmToVec, bytes, {0, 4, s.lo + shift, s.hi + shift, w, false});
      whole.barrier(Pipe::ALL);
      for (int64_t r = r0; r <= r1; ++r) {
        rows.transfer(Pipe::MTE2, pto::PathId::GmToVec, static_cast<double>((c1 - c0) * 4),
                      {0, 4, r * w + c0 + shift, r * w + c1 + shift, 0, false});
        rows.barrier(Pipe::ALL);
      }
    }
    for (const uint64_t footprint : {uint64_t{0}, uint64_t{1} << 20}) {
      CAPTURE(footprint);
      const pto::ChipProfile l2 = footprint > 0 ? with_l2(int64_t{1} << 20, 512, 2) : chip;
      const auto a = replay({&whole}, l2, footprint), b = replay({&rows}, l2, footprint);
      CHECK(a.l2_read_hit_bytes == b.l2_read_hit_bytes);
      CHECK(a.l2_read_miss_bytes == b.l2_read_miss_bytes);
      CHECK(a.hbm_bytes == b.hbm_bytes);
      CHECK(a.l2_read_hit_bytes > 0);
    }
  }
}

TEST_CASE("a_replay_without_op_times_gives_the_same_cycles") {
  // The emulator asks for each op's start and end only when the debug log needs them.
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.set_flag(Pipe::MTE2, Pipe::V, 0);
  m.wait_flag(Pipe::MTE2, Pipe::V, 0);
  m.run(Pipe::V, 50);
  read_gm(m, 4096);
  const std::vector<const pto::timing::CoreTrace*> traces{&m.trace()};
  const auto& chip = pto::ChipProfile::get("a2");
  const auto with = pto::timing::replay({.chip = &chip, .cores = traces});
  const auto without = pto::timing::replay({.chip = &chip, .cores = traces, .op_times = false});
  REQUIRE(with.cores[0].op_end.size() == m.trace().ops.size());
  CHECK(without.cores[0].op_start.empty());
  CHECK(without.cores[0].op_end.empty());
  CHECK(without.cores[0].end_cycles == with.cores[0].end_cycles);
  CHECK(without.cores[0].end_cycles > 150);
  for (size_t p = 0; p < with.cores[0].pipes.size(); ++p) {
    CHECK(without.cores[0].pipes[p].busy == with.cores[0].pipes[p].busy);
    CHECK(without.cores[0].pipes[p].wait == with.cores[0].pipes[p].wait);
  }
}
