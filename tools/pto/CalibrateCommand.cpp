// `pto calibrate`: the timing model held against published Ascend figures (docs/calibration.md).
// Each point runs a kernel with the published kernel's algorithm and tiling (as far as the
// language expresses it) and compares the simulated figure with the published one.
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "Samples.hpp"

namespace pto::cli {
namespace {

namespace pl = pto::lang;

struct Point {
  std::string name, what, unit, source;
  double published = 0;
  double tolerance = 0.25;                       // relative
  std::function<double(const std::string&)> simulate;  // chip -> the simulated figure
};

/// Busy cycles of `pipe` on core 0 of a one-core launch.
double busy_cycles(const LaunchProfile& p, ir::Pipe pipe) { return p.cores.at(0).pipes[static_cast<size_t>(pipe)].busy; }

double single_load(const std::string& chip) {
  const auto k = pl::jit({.name = "cal_tload", .chip = chip}, [](pl::Tensor<float> x) {
    auto t = pl::make_tile<float>(pl::Vec, {128, 128});
    pl::load(t, x.slice(0, 128, 0, 128));
  });
  auto x = Tensor<float>::random({128, 128});
  return busy_cycles(k[{.block_dim = 1}].run_sync(x), ir::Pipe::MTE2);
}

double single_vector(const std::string& chip, bool exp) {
  const auto k = pl::jit({.name = exp ? "cal_texp" : "cal_tadd", .auto_mutex = true, .chip = chip},
                         [exp](pl::Tensor<float> x, pl::Tensor<float> y, pl::Tensor<float> z) {
    auto a = pl::make_tile<float>(pl::Vec, {64, 64});
    auto b = pl::make_tile<float>(pl::Vec, {64, 64});
    auto c = pl::make_tile<float>(pl::Vec, {64, 64});
    pl::load(a, x.slice(0, 64, 0, 64));
    if (exp) {
      c = pl::exp(a);
    } else {
      pl::load(b, y.slice(0, 64, 0, 64));
      c = a + b;
    }
    pl::store(z.slice(0, 64, 0, 64), c);
  });
  auto x = Tensor<float>::random({64, 64}), y = Tensor<float>::random({64, 64}), z = Tensor<float>::zeros({64, 64});
  return busy_cycles(k[{.block_dim = 1}].run_sync(x, y, z), ir::Pipe::V);
}

double single_matmul(const std::string& chip) {
  const auto k = pl::jit({.name = "cal_tmatmul", .auto_mutex = true, .chip = chip},
                         [](pl::Tensor<half> a, pl::Tensor<half> b, pl::Tensor<float> c) {
    auto am = pl::make_tile<half>(pl::Mat, {48, 64});
    auto bm = pl::make_tile<half>(pl::Mat, {64, 64});
    auto l = pl::make_tile<half>(pl::Left, {48, 64});
    auto r = pl::make_tile<half>(pl::Right, {64, 64});
    auto acc = pl::make_tile<float>(pl::Acc, {48, 64});
    pl::load(am, a.slice(0, 40, 0, 50));
    pl::load(bm, b.slice(0, 50, 0, 60));
    pl::move(l, am);
    pl::move(r, bm);
    pl::matmul(acc, l, r);
    pl::store(c.slice(0, 40, 0, 60), acc);
  });
  auto a = Tensor<half>::random({40, 50}), b = Tensor<half>::random({50, 60});
  auto c = Tensor<float>::zeros({40, 60});
  return busy_cycles(k[{.block_dim = 1}].run_sync(a, b, c), ir::Pipe::M);
}

/// A sample's simulated device time (us) for one launch, verified against its reference.
double sample_us(const std::string& sample, std::vector<int64_t> shape, DType dtype, int block_dim,
                 std::map<std::string, std::string> params, const std::string& chip) {
  samples::SampleArgs args;
  args.shape = std::move(shape);
  args.dtype = dtype;
  args.block_dim = block_dim;
  args.params = std::move(params);
  args.chip = chip;
  auto run = prepare_run(find_sample(sample), args);
  run.launch();
  synchronize();
  const auto verdict = run.verify();
  PTO_USER_CHECK(verdict.ok, ErrorSite{}) << "calibration kernel " << sample << " computed a wrong result (error "
                                          << verdict.max_abs_error << " over " << verdict.tolerance << ")";
  return last_launch()->device_us;
}

/// The published GEMM's tiling (pto-isa gemm_performance README): 128 x 256 output blocks, A
/// [128 x 256] and B [256 x 256] panels in L1 (double-buffered), walked into L0 in four 64-deep K
/// slices (pl::extract, L0 double-buffered), one 128 x 256 f32 accumulator in L0C.
const char* const gemm_source = "hw-native-sys/pto-isa kernels/manual/a2a3/gemm_performance/README.md";
std::string gemm_what(int64_t n) {
  return fmt::format("GEMM f16 in, m=k=n={}, 24 AICs, 128x256 blocks, 256-deep L1 panels walked into L0 in 64-deep K slices", n);
}
double gemm_us(int64_t n, const std::string& chip) {
  return sample_us("matmul", {n, n, n}, DType::f16, 24, {{"tm", "128"}, {"tn", "256"}, {"tk", "256"}, {"k0", "64"}}, chip);  // sample 03's f16 defaults, spelled out
}

std::vector<Point> points() {
  const std::string isa = "hw-native-sys/pto-isa tests/costmodel/st/testcase";
  // pto-dsl pull request 50: 8192-element fp32 tiles on 24 blocks x 2 vector cores, N = 39,321,600
  // (12 B per element: 471.9 MB); L2 flushed between runs.
  const int64_t add_n = 39321600;
  return {
      {"tload_f32_128x128", "TLOAD f32 128x128 GM -> UB, one AIV", "cycles", isa + "/tload (profiled)", 776, 0.25,
       [](const std::string& c) { return single_load(c); }},
      {"tadd_f32_64x64", "TADD f32 64x64, one AIV", "cycles", isa + "/a2a3/tadd (profiled)", 160, 0.25,
       [](const std::string& c) { return single_vector(c, false); }},
      {"texp_f32_64x64", "TEXP f32 64x64, one AIV", "cycles", isa + "/texp (profiled)", 159, 0.25,
       [](const std::string& c) { return single_vector(c, true); }},
      {"tmatmul_f16_40x50x60", "TMATMUL f16 40x50x60, one AIC", "cycles", isa + "/tmatmul", 54, 0.25,
       [](const std::string& c) { return single_matmul(c); }},
      {"add_f32_single_buffer", "fp32 add, 471.9 MB, 48 AIVs, 8192-element tiles, single-buffered", "us",
       "huawei-csl/pto-dsl pull request 50 (910B2)", 489, 0.25,
       [=](const std::string& c) { return sample_us("vector_add", {add_n}, DType::f32, 48, {{"buffers", "1"}, {"tile", "8192"}}, c); }},
      {"add_f32_double_buffer", "fp32 add, 471.9 MB, 48 AIVs, 8192-element tiles, double-buffered", "us",
       "huawei-csl/pto-dsl pull request 50 (910B2)", 447, 0.25,
       [=](const std::string& c) { return sample_us("vector_add", {add_n}, DType::f32, 48, {{"buffers", "2"}, {"tile", "8192"}}, c); }},
      {"gemm_f16_1536", gemm_what(1536), "us", gemm_source, 38.8, 0.25, [](const std::string& c) { return gemm_us(1536, c); }},
      {"gemm_f16_6144", gemm_what(6144), "us", gemm_source, 1506, 0.25, [](const std::string& c) { return gemm_us(6144, c); }},
      {"flash_attention_s1024_d128", "flash attention D=128, S0=S1=1024, 1 head, 128-row Q and KV blocks, 8 blocks, QK two steps ahead of PV", "us",
       "hw-native-sys/pto-isa kernels/manual/common/flash_atten/README.md (910B2)", 20.96, 0.25,
       [](const std::string& c) {
         return sample_us("flash_attention", {1024, 128}, DType::f16, 8, {{"tq", "128"}, {"tkv", "128"}, {"preload", "2"}}, c);
       }},
  };
}

}  // namespace

int calibrate_command(const std::string& chip, bool json) {
  (void)ChipProfile::get(chip);  // a bad profile is one clear error before any output
  nlohmann::json rows = nlohmann::json::array();
  int outside = 0;
  std::vector<double> errors;
  if (!json) {
    fmt::print("calibration of the timing model on chip '{}' against published figures (docs/calibration.md)\n\n", chip);
    fmt::print("{:<28} {:>10} {:>10} {:>8}  {}\n", "point", "published", "simulated", "error", "what / source");
  }
  for (const auto& p : points()) {
    const double sim = p.simulate(chip);
    const double err = sim / p.published - 1;
    const bool ok = std::abs(err) <= p.tolerance;
    outside += ok ? 0 : 1;
    errors.push_back(err);
    rows.push_back({{"name", p.name}, {"what", p.what}, {"unit", p.unit}, {"published", p.published}, {"simulated", sim},
                    {"relative_error", err}, {"tolerance", p.tolerance}, {"within", ok}, {"source", p.source}});
    if (!json) {
      fmt::print("{:<28} {:>10.2f} {:>10.2f} {:>+7.1f}%{} {} [{}]\n", p.name, p.published, sim, 100 * err, ok ? " " : "!", p.what,
                 p.source);
    }
  }
  std::vector<double> sorted = errors;
  for (auto& e : sorted) e = std::abs(e);
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  auto simulated = [&](const std::string& name) {
    for (const auto& r : rows) {
      if (r["name"] == name) return r["simulated"].get<double>();
    }
    return 0.0;
  };
  const double add_ratio = simulated("add_f32_single_buffer") / simulated("add_f32_double_buffer");
  const bool ranked = add_ratio >= 1.05 && add_ratio <= 1.15;
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"chip", chip},
                                      {"points", rows},
                                      {"median_abs_error", median},
                                      {"outside_tolerance", outside},
                                      {"double_over_single_add_speedup", add_ratio},
                                      {"variants_ranked", ranked}}
                           .dump(2));
  } else {
    fmt::print("\nmedian |error| {:.1f}% (target 10%); {} of {} points outside +-25%; double- over single-buffered add {:.3f}x "
               "(published 1.094x, target 1.05-1.15x)\n",
               100 * median, outside, rows.size(), add_ratio);
  }
  return outside == 0 && ranked && median <= 0.10 ? 0 : 1;
}

}  // namespace pto::cli
