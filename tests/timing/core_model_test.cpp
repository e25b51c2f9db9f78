// Cycle-exact rules of the pipeline model, on hand-built instruction streams (Ramulator style:
// each test is named after the rule it checks and asserts exact cycles).
#include <doctest/doctest.h>

#include <cmath>

#include <pto/pto.hpp>

namespace {

using pto::CoreModel;
using pto::CostModel;
using pto::ir::Pipe;

const CostModel& a2_cost() {
  static const CostModel cost(pto::ChipProfile::get("a2"), 1);
  return cost;
}

TEST_CASE("pipes_without_flags_overlap") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  CHECK(m.run(Pipe::MTE2, 100) == 100);  // issued at 0
  CHECK(m.run(Pipe::V, 50) == 51);       // issued at 1, does not wait for MTE2
  CHECK(m.timing().end_cycles == 100);
}

TEST_CASE("instructions_on_one_pipe_run_in_order") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  CHECK(m.run(Pipe::MTE2, 30) == 130);
  CHECK(m.timing().pipes[static_cast<int>(Pipe::MTE2)].busy == 130);
}

TEST_CASE("wait_flag_delays_consumer_until_producer_completes") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.set_flag(Pipe::MTE2, Pipe::V, 0);
  m.wait_flag(Pipe::MTE2, Pipe::V, 0);
  CHECK(m.run(Pipe::V, 50) == 150);
  CHECK(m.timing().pipes[static_cast<int>(Pipe::V)].wait == 100);
  CHECK_FALSE(m.failure().has_value());
}

TEST_CASE("set_flag_marks_the_producer_work_issued_before_it_only") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.set_flag(Pipe::MTE2, Pipe::V, 3);
  m.run(Pipe::MTE2, 400);  // after the set: not waited for
  m.wait_flag(Pipe::MTE2, Pipe::V, 3);
  CHECK(m.run(Pipe::V, 10) == 110);
}

TEST_CASE("barrier_all_joins_every_pipe") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.run(Pipe::V, 10);
  m.barrier(Pipe::ALL);
  CHECK(m.run(Pipe::MTE3, 5) == 105);  // issued at 100, when every pipe has drained
  CHECK(m.run(Pipe::V, 5) == 106);     // issued one cycle later
}

TEST_CASE("barrier_on_one_pipe_does_not_order_other_pipes") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.run(Pipe::MTE2, 100);
  m.barrier(Pipe::V);
  CHECK(m.run(Pipe::V, 5) == 6);
}

TEST_CASE("mutex_orders_sections_on_different_pipes_in_program_order") {
  CoreModel m(nullptr, a2_cost(), 0, true);
  m.lock(7, Pipe::MTE2);
  m.run(Pipe::MTE2, 100);
  m.unlock(7, Pipe::MTE2);
  m.lock(7, Pipe::V);
  CHECK(m.run(Pipe::V, 20) == 120);
  m.unlock(7, Pipe::V);
  m.lock(7, Pipe::MTE2);  // the next producer waits for the consumer (WAR)
  CHECK(m.run(Pipe::MTE2, 1) == 121);
  m.unlock(7, Pipe::MTE2);
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

TEST_CASE("shared_gm_bandwidth_slows_each_core") {
  const auto& chip = pto::ChipProfile::get("a2");
  const double bytes = 32768;
  auto expected = [&](int cores) {
    const double path = chip.gm_to_vec_gibps * 1073741824.0 / (chip.clock_ghz * 1e9);
    const double share = chip.hbm_gbps * 1e9 / cores / (chip.clock_ghz * 1e9);
    return chip.issue_cycles + std::ceil(bytes / std::min(path, share));
  };
  const CostModel one(chip, 1), all(chip, chip.aiv_count);
  CHECK(one.load_cycles(pto::ir::MemSpace::Vec, bytes) == expected(1));
  CHECK(all.load_cycles(pto::ir::MemSpace::Vec, bytes) == expected(chip.aiv_count));
  CHECK(all.load_cycles(pto::ir::MemSpace::Vec, bytes) > one.load_cycles(pto::ir::MemSpace::Vec, bytes));
  // one core alone is limited by its own path, not by HBM
  CHECK(one.load_cycles(pto::ir::MemSpace::Vec, bytes) == chip.issue_cycles + std::ceil(bytes / (chip.gm_to_vec_gibps * 1073741824.0 / (chip.clock_ghz * 1e9))));
}

TEST_CASE("vector_cost_counts_every_fused_operation") {
  const auto& chip = pto::ChipProfile::get("a2");
  const CostModel cost(chip, 1);
  const double one_op = std::ceil(8192 * 4 / chip.vector_bytes_per_cycle);
  CHECK(cost.vector_cycles(pto::DType::f32, 8192, 1) == chip.issue_cycles + one_op);
  CHECK(cost.vector_cycles(pto::DType::f32, 8192, 3) == chip.issue_cycles + 3 * one_op);
  CHECK(cost.vector_cycles(pto::DType::f16, 8192, 1) == chip.issue_cycles + one_op / 2);
}

TEST_CASE("local_moves_cost_their_path_bandwidth_acc_to_vec_and_vec_to_mat_on_a5") {
  const auto& chip = pto::ChipProfile::get("a5");
  const CostModel cost(chip, 1);
  const double bytes = 40 * 64 * 2;  // a 40 x 64 half tile
  auto at = [&](double gibps) { return chip.issue_cycles + std::ceil(bytes / (gibps * 1073741824.0 / (chip.clock_ghz * 1e9))); };
  CHECK(cost.move_cycles(pto::ir::MemSpace::Left, bytes) == at(chip.mat_to_left_gibps));
  CHECK(cost.move_cycles(pto::ir::MemSpace::Right, bytes) == at(chip.mat_to_right_gibps));
  CHECK(cost.move_cycles(pto::ir::MemSpace::Vec, bytes) == at(chip.acc_to_vec_gibps));  // FIX, Acc -> Vec
  CHECK(cost.move_cycles(pto::ir::MemSpace::Mat, bytes) == at(chip.vec_to_mat_gibps));  // MTE3, Vec -> Mat
  // Local paths do not share HBM: the same cost with every core of the chip active.
  const CostModel all(chip, chip.aiv_count);
  CHECK(all.move_cycles(pto::ir::MemSpace::Vec, bytes) == at(chip.acc_to_vec_gibps));
}

}  // namespace
