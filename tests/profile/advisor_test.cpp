// Each of the advisor's rules, on a kernel built to show it; and no false alarm on good kernels.
#include <doctest/doctest.h>

#include <set>

#include "02_softmax/softmax.hpp"
#include "common/SampleProfiles.hpp"

namespace {

namespace pl = pto::lang;
namespace va = pto::samples::vector_add;
namespace sm = pto::samples::softmax;
using pto::samples::SyncMode;

pto::LaunchProfile vector_add(va::Params p, int64_t n, int block_dim) { return pto::test::vector_add_profile(p, n, block_dim); }

std::string verdict(const pto::LaunchProfile& p) {
  const auto a = pto::advise(p);
  CAPTURE(a.evidence);
  CHECK(a.bound_us > 0);
  CHECK(a.achieved_over_bound >= 1.0);
  CHECK_FALSE(a.suggestion.empty());
  return a.bottleneck;
}

TEST_CASE("a_tiny_launch_is_launch_dominated") { CHECK(verdict(vector_add({.tile = 1024}, 2048, 1)) == "launch-dominated"); }

TEST_CASE("more_blocks_than_tiles_is_too_many_cores") {
  // 40 tiles on 48 blocks, each tile large enough that the launch's fixed cost does not dominate
  CHECK(verdict(vector_add({.buffers = 1, .tile = 16384}, 16384 * 40, 48)) == "too many cores");
}

TEST_CASE("work_concentrated_on_one_core_is_core_imbalance") {
  // block 0 processes 32 tiles, every other block 8
  const auto kernel = pl::jit({.name = "lopsided", .auto_mutex = true}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile_group<float>(pl::Vec, {4096}, {0, 1});
    auto tiles = [&](int64_t count) {
      for (auto i : pl::range(0, count)) {
        auto off = (pl::get_block_idx() * 32 + i) * 4096;
        pl::load(t.current(), x.slice(off, 4096));
        t.current() = t.current() + 1.0f;
        pl::store(y.slice(off, 4096), t.current());
        t.next();
      }
    };
    pl::if_(pl::get_block_idx() == 0, [&] { tiles(32); }, [&] { tiles(8); });
  });
  auto x = pto::Tensor<float>::random({4 * 32 * 4096}), y = pto::Tensor<float>::zeros({4 * 32 * 4096});
  CHECK(verdict(kernel[{.block_dim = 4}].run_sync(x, y)) == "core imbalance");
}

TEST_CASE("many_cores_on_a_bandwidth_bound_kernel_saturate_hbm") {
  CHECK(verdict(vector_add({}, 1 << 22, 48)) == "bandwidth-saturated");
}

TEST_CASE("re_reads_that_hit_l2_are_not_hbm_bound") {
  // 48 blocks each read the same 32 KB 64 times: after the first read, L2 serves every byte.
  const auto kernel = pl::jit({.name = "rereads", .auto_mutex = true}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile_group<float>(pl::Vec, {8192}, {0, 1});
    auto out = pl::make_tile<float>(pl::Vec, {8192});
    for (auto i : pl::range(0, 64)) {
      (void)i;
      pl::load(t.current(), x.slice(0, 8192));
      out = t.current() + 1.0f;
      t.next();
    }
    pl::store(y.slice(pl::get_block_idx() * 8192, 8192), out);
  });
  auto x = pto::Tensor<float>::random({8192}), y = pto::Tensor<float>::zeros({48 * 8192});
  const auto p = kernel[{.block_dim = 48}].run_sync(x, y);
  CHECK(p.races.empty());
  const double read = 48.0 * 64 * 8192 * 4;
  CHECK(p.l2_hit_bytes == doctest::Approx(read - 8192 * 4));     // only the very first read of each line misses
  CHECK(p.hbm_bytes == doctest::Approx(8192 * 4 + 48 * 8192 * 4));  // that miss, and the writes
  const auto a = pto::advise(p);
  CHECK(a.bottleneck != "bandwidth-saturated");
  bool l2_named = false;
  for (const auto& e : a.evidence) l2_named = l2_named || e.find("L2 served 100% of the GM bytes read") != std::string::npos;
  CHECK(l2_named);
  for (int64_t i = 0; i < 48 * 8192; ++i) REQUIRE(y[i] == x[i % 8192] + 1.0f);
}

TEST_CASE("a_few_cores_streaming_data_are_gm_bound") { CHECK(verdict(vector_add({}, 1 << 21, 4)) == "GM-bound"); }

TEST_CASE("a_cube_streaming_its_accumulator_into_the_aivs_is_on_chip_move_bound_not_gm_bound") {
  // The AIC moves one 128 x 128 float accumulator into its AIVs' UB 32 times (Acc -> Vec on FIX,
  // 64 KB each); each AIV adds 1 to its half and hands the slot back. FIX is the busiest pipe,
  // but with no GM traffic.
  const auto kernel = pl::jit({.name = "acc_stream", .auto_mutex = true, .chip = "a5"}, [](pl::Tensor<float> a, pl::Tensor<float> y) {
    auto v = pl::make_tile_group<float>(pl::Vec, {64, 128}, {0, 1});
    pl::section_cube([&] {
      auto m = pl::make_tile<float>(pl::Mat, {128, 128});
      auto l = pl::make_tile<float>(pl::Left, {128, 128});
      auto r = pl::make_tile<float>(pl::Right, {128, 128});
      auto acc = pl::make_tile<float>(pl::Acc, {128, 128});
      pl::load(m, a.slice(0, 128, 0, 128));
      pl::move(l, m);
      pl::move(r, m);
      pl::matmul(acc, l, r);
      for (auto i : pl::range(32)) {
        (void)i;
        pl::wait_cross_core(pl::Pipe::FIX, 1);
        pl::move(v.current(), acc, {.acc_to_vec_mode = pl::AccToVecMode::DualModeSplitM});
        pl::set_cross_core(pl::Pipe::FIX, 0);
        v.next();
      }
    });
    pl::section_vector([&] {
      auto out = pl::make_tile<float>(pl::Vec, {64, 128});
      for (int slot = 0; slot < 2; ++slot) pl::set_cross_core(pl::Pipe::V, 1);
      for (auto i : pl::range(32)) {
        (void)i;
        pl::wait_cross_core(pl::Pipe::V, 0);
        pl::set_validshape(v.current(), 64, 128);
        out = v.current() + 1.0f;
        pl::set_cross_core(pl::Pipe::V, 1);
        v.next();
      }
      pl::store(y.slice((pl::get_block_idx() * 2 + pl::get_subblock_idx()) * 64, 64, 0, 128), out);  // this AIV's rows
    });
  });
  const int blocks = 4;
  auto a = pto::Tensor<float>::random({128, 128}, 1), y = pto::Tensor<float>::zeros({blocks * 128, 128});
  const auto prof = kernel[{.block_dim = blocks}].run_sync(a, y);
  CHECK(prof.races.empty());
  CHECK(verdict(prof) == "on-chip move-bound");
  const auto fix = static_cast<size_t>(pto::ir::Pipe::FIX);
  CHECK(prof.cores[0].pipes[fix].on_chip == prof.cores[0].pipes[fix].busy);  // the AIC's FIX never stores to GM here
  CHECK(prof.cores[0].pipes[fix].busy > 0);
}

TEST_CASE("a_vector_heavy_kernel_is_compute_bound") {
  const auto kernel = sm::make_kernel<float>({.buffers = 2});
  auto x = pto::Tensor<float>::random({512, 1024}, 3), y = pto::Tensor<float>::zeros({512, 1024});
  CHECK(verdict(kernel[{.block_dim = 8}].run_sync(x, y)) == "compute-bound");
}

TEST_CASE("single_buffering_with_comparable_stages_is_load_compute_serialised") {
  const std::string chip = PTO_TEST_DATA_DIR "/comparable.json";
  CHECK(verdict(vector_add({.buffers = 1, .tile = 4096, .chip = chip}, 4096 * 32, 1)) == "load/compute serialised");
  // the fix the advice names: with two slots the same kernel is no longer serialised
  CHECK(verdict(vector_add({.buffers = 2, .tile = 4096, .chip = chip}, 4096 * 32, 1)) != "load/compute serialised");
}

TEST_CASE("barriers_after_every_instruction_are_sync_waits") {
  const auto kernel = pl::jit({.name = "barriers"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    auto t = pl::make_tile<float>(pl::Vec, {2048});
    for (auto i : pl::range(pl::get_block_idx(), x.numel() / 2048, pl::get_block_num())) {
      pl::load(t, x.slice(i * 2048, 2048));
      pl::pipe_barrier(pl::Pipe::ALL);
      t = pl::exp(t) * 2.0f + 1.0f;
      pl::pipe_barrier(pl::Pipe::ALL);
      pl::store(y.slice(i * 2048, 2048), t);
      pl::pipe_barrier(pl::Pipe::ALL);
    }
  });
  auto x = pto::Tensor<float>::random({2048 * 64}), y = pto::Tensor<float>::zeros({2048 * 64});
  const auto p = kernel[{.block_dim = 4}].run_sync(x, y);
  CHECK(p.races.empty());
  CHECK(verdict(p) == "sync waits");
}

TEST_CASE("loads_into_l1_whose_rows_are_not_256_byte_aligned_spend_their_time_in_format_conversions") {
  // [256, cols] half panels into NZ L1 tiles: 224 B rows convert ND -> NZ at half the DMA's rate
  // (a2's table); 256 B rows at 0.9 of it, which is no bottleneck.
  auto profile = [](int64_t cols) {
    const auto k = pl::jit({.name = "advise_nd2nz_" + std::to_string(cols), .auto_mutex = true}, [cols](pl::Tensor<pto::half> x) {
      auto t = pl::make_tile_group<pto::half>(pl::Mat, {256, cols}, {0, 1});
      for (auto i : pl::range(0, x.dim(0) / 256)) pl::load(t.next(), x.slice(i * 256, 256, 0, cols));
    });
    auto x = pto::Tensor<pto::half>::random({256 * 40, cols}, 3);
    return k[{.block_dim = 1}].run_sync(x);
  };
  const auto unaligned = pto::advise(profile(112));
  CAPTURE(unaligned.evidence);
  CHECK(unaligned.bottleneck == "format conversions");
  CHECK(unaligned.suggestion.find("multiple of 256 B") != std::string::npos);
  bool named = false;
  for (const auto& e : unaligned.evidence) named |= e.find("MTE2 spends") != std::string::npos && e.find("ND -> NZ") != std::string::npos;
  CHECK(named);
  CHECK(pto::advise(profile(128)).bottleneck != "format conversions");
}

TEST_CASE("well_tuned_samples_get_no_false_alarm") {
  const std::set<std::string> alarms = {"sync waits", "core imbalance", "too many cores", "load/compute serialised", "launch-dominated"};
  CHECK(alarms.count(verdict(vector_add({}, 1 << 22, 8))) == 0);
  const auto kernel = sm::make_kernel<float>({});
  auto x = pto::Tensor<float>::random({1024, 1024}, 3), y = pto::Tensor<float>::zeros({1024, 1024});
  CHECK(alarms.count(verdict(kernel[{.block_dim = 16}].run_sync(x, y))) == 0);
}

TEST_CASE("the_roofline_bound_follows_bytes_and_flops") {
  const auto p = vector_add({}, 1 << 22, 48);
  const auto a = pto::advise(p);
  const auto& chip = pto::ChipProfile::get("a2");
  // 48 cores can pull far more than HBM gives, and a streaming kernel reads nothing twice: every
  // byte goes to HBM (read misses and writes), and the bound is those bytes at HBM's sustained rate
  CHECK(p.hbm_bytes == doctest::Approx(p.gm_bytes));
  CHECK(a.bound_us == doctest::Approx(p.launch_overhead_us + p.hbm_bytes / (chip.hbm_gbps * 1e3)).epsilon(1e-9));
  CHECK(a.achieved_over_bound == doctest::Approx(p.device_us / a.bound_us));
}

}  // namespace
