#include "Samples.hpp"

#include <chrono>

#include <fmt/format.h>

#include "01_vector_add/vector_add.hpp"
#include "02_softmax/softmax.hpp"
#include "03_matmul/matmul.hpp"
#include "04_matmul_bias_relu/matmul_bias_relu.hpp"
#include "05_matmul_softmax/matmul_softmax.hpp"
#include "06_flash_attention/flash_attention.hpp"
#include "07_tiling_key/tiling_key.hpp"
#include "08_layernorm/layernorm.hpp"

namespace pto::cli {

const std::vector<samples::SampleInfo>& all_samples() {
  static const std::vector<samples::SampleInfo> list = {samples::vector_add::sample(), samples::softmax::sample(),
                                                               samples::matmul::sample(), samples::matmul_bias_relu::sample(),
                                                               samples::matmul_softmax::sample(), samples::flash_attention::sample(),
                                                               samples::tiling_key::sample(), samples::layernorm::sample()};
  return list;
}

const samples::SampleInfo& find_sample(const std::string& name) {
  std::string known;
  for (const auto& s : all_samples()) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw UserError(fmt::format("unknown sample '{}'; the samples are: {}", name, known), {});
}

samples::PreparedRun prepare_run(const samples::SampleInfo& info, const samples::SampleArgs& args) {
  args.looked_up.clear();
  samples::PreparedRun run = info.prepare(args);
  for (const auto& [key, value] : args.params) {
    if (args.looked_up.count(key)) continue;
    std::string known;
    for (const auto& k : args.looked_up) known += (known.empty() ? "" : ", ") + k;
    throw UserError(fmt::format("--param {}={}: sample '{}' has no parameter '{}' (its parameters: {})", key, value, info.name, key,
                                known.empty() ? "none" : known),
                    {});
  }
  return run;
}

nlohmann::json sample_json(const samples::SampleInfo& info, const samples::SampleArgs& args, const samples::Verdict& verdict) {
  return {{"sample", info.name},
          {"shape", args.shape},
          {"dtype", dtype_name(args.dtype)},
          {"block_dim", args.block_dim},
          {"params", args.params},
          {"ok", verdict.ok}};
}

std::function<void()> launch_and_sync(const samples::PreparedRun& run) {
  return [&run] {
    run.launch();
    pto::synchronize();
  };
}

double timed_call_ms(const samples::PreparedRun& run) {
  const auto t = std::chrono::steady_clock::now();
  launch_and_sync(run)();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

double settle_tier_up(const samples::PreparedRun& run) {
  launch_and_sync(run)();
  return pto::await_tier_up(*run.compile());
}

std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> shape;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t x = text.find('x', pos);
    const std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    PTO_USER_CHECK(used == part.size() && !part.empty() && v > 0, ErrorSite{})
        << "--shape '" << text << "' is not of the form N, ROWSxCOLS, MxNxK (matmul) or SxD (attention) with positive integers";
    shape.push_back(v);
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return shape;
}

std::string shape_string(const std::vector<int64_t>& shape) { return fmt::format("{}", fmt::join(shape, "x")); }

DType parse_dtype(const std::string& text) {
  if (text == "f32" || text == "float") return DType::f32;
  if (text == "f16" || text == "half") return DType::f16;
  if (text == "bf16" || text == "bfloat16") return DType::bf16;
  throw UserError("--dtype '" + text + "' is not one of f32, f16, bf16", {});
}

}  // namespace pto::cli
