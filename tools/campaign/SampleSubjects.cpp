// The campaign's sample subjects: each sample through its own prepare (as `pto run` does it), at a
// shape small enough for the exhaustive audit, in every sync mode it offers.
#include <fmt/format.h>

#include "Samples.hpp"
#include "SyncCampaign.hpp"

namespace pto::campaign {

std::vector<Subject> sample_subjects() {
  struct Case {
    const char* sample;
    std::vector<int64_t> shape;
    DType dtype;
    int block_dim;
    std::map<std::string, std::string> params;
  };
  const std::vector<Case> cases = {
      {"vector_add", {6000}, DType::f32, 3, {{"tile", "512"}, {"buffers", "2"}}},
      {"vector_add", {6000}, DType::f32, 3, {{"tile", "512"}, {"buffers", "2"}, {"sync", "manual"}}},
      {"vector_add", {2048}, DType::f16, 2, {{"tile", "512"}, {"buffers", "1"}, {"sync", "manual"}}},
      {"vector_add", {2048}, DType::f32, 5, {{"tile", "1024"}, {"buffers", "3"}}},
      {"softmax", {37, 100}, DType::f32, 3, {{"buffers", "2"}}},
      {"softmax", {37, 100}, DType::f32, 3, {{"buffers", "2"}, {"sync", "manual"}}},
      {"softmax", {16, 64}, DType::f16, 2, {{"buffers", "1"}, {"sync", "manual"}}},
      {"matmul", {64, 64, 128}, DType::f16, 2, {{"tm", "32"}, {"tn", "32"}, {"tk", "64"}}},
      {"matmul", {48, 80, 96}, DType::f32, 3, {{"tm", "32"}, {"tn", "32"}, {"tk", "32"}}},
      {"matmul", {128, 64, 256}, DType::bf16, 2, {{"tm", "32"}, {"tn", "32"}, {"tk", "64"}, {"buffers", "3"}}},
      {"matmul_bias_relu", {64, 64, 128}, DType::f16, 2, {{"tm", "32"}, {"tn", "32"}, {"tk", "64"}}},
      {"matmul_softmax", {64, 64, 64}, DType::f16, 2, {}},
      {"flash_attention", {128, 64}, DType::f16, 2, {{"tq", "64"}, {"tkv", "64"}}},
      {"flash_attention", {192, 64}, DType::f16, 2, {{"tq", "64"}, {"tkv", "64"}, {"preload", "2"}}},
      {"flash_attention", {320, 64}, DType::bf16, 2, {{"tq", "64"}, {"tkv", "64"}, {"preload", "1"}}},
      {"tiling_key", {5000}, DType::f32, 3, {}},
      {"layernorm", {19, 72}, DType::f32, 3, {}},
  };
  std::vector<Subject> out;
  for (const Case& c : cases) {
    const samples::SampleInfo& info = cli::find_sample(c.sample);
    samples::SampleArgs args{.shape = c.shape, .dtype = c.dtype, .block_dim = c.block_dim, .params = c.params};
    std::string params;
    for (const auto& [k, v] : c.params) params += fmt::format(" {}={}", k, v);
    Subject s;
    s.name = fmt::format("{} {} {} block_dim {}{}", c.sample, cli::shape_string(c.shape), dtype_name(c.dtype), c.block_dim, params);
    // A copy per call: prepare_run records the keys a sample looks up in its arguments.
    s.run = [&info, args] { return cli::prepare_run(info, samples::SampleArgs(args)).run_sync(); };
    s.compile = [&info, args] { return cli::prepare_run(info, samples::SampleArgs(args)).compile(); };
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace pto::campaign
