// Each of the advisor's rules, on a kernel built to show it; and no false alarm on good kernels.
#include <doctest/doctest.h>

#include <set>

#include "02_softmax/softmax.hpp"
#include "06_flash_attention/flash_attention.hpp"
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
  CHECK(verdict(vector_add({.tile = 8192}, 8192 * 40, 48)) == "too many cores");
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

TEST_CASE("a_few_cores_streaming_data_are_gm_bound") { CHECK(verdict(vector_add({}, 1 << 21, 4)) == "GM-bound"); }

TEST_CASE("fused_flash_attention_on_a5_is_bound_by_its_on_chip_moves_not_gm") {
  // S and PV leave L0C through FIX into the AIVs' UB (Acc -> Vec): FIX is the busiest pipe, but
  // not with GM traffic.
  namespace fa = pto::samples::flash_attention;
  const auto p = fa::default_params<pto::half>("a5");
  const auto kernel = fa::make_kernel<pto::half>(p);
  const int64_t S = 1024, D = 128;
  const int blocks = 8;
  auto q = pto::Tensor<pto::half>::random({S, D}, 1), k = pto::Tensor<pto::half>::random({S, D}, 2);
  auto v = pto::Tensor<pto::half>::random({S, D}, 3), o = pto::Tensor<pto::half>::zeros({S, D});
  fa::Workspace<pto::half> ws(blocks, p, D);
  const auto prof = kernel[{.block_dim = blocks}].run_sync(q, k, v, o, ws.scores, ws.probs, ws.values);
  CHECK(verdict(prof) == "on-chip move-bound");
  const auto fix = static_cast<size_t>(pto::ir::Pipe::FIX);
  CHECK(prof.cores[0].pipes[fix].on_chip == prof.cores[0].pipes[fix].busy);  // the AIC's FIX never stores to GM here
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
  // 48 cores can pull far more than HBM gives: the bound is bytes at HBM bandwidth
  CHECK(a.bound_us == doctest::Approx(p.launch_overhead_us + p.gm_bytes / (chip.hbm_gbps * 1e3)).epsilon(1e-9));
  CHECK(a.achieved_over_bound == doctest::Approx(p.device_us / a.bound_us));
}

}  // namespace
