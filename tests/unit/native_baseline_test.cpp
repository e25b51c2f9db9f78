// The native baselines of `pto bench --vs-native` (samples/common/native/): their half and
// bfloat16 conversions give pto::half's and pto::bfloat16's bits (every half, a sweep of floats
// with its ties, specials and SIMD tails), and every sample's baseline, in every dtype, computes
// what the sample verifies against plain C++ (a fast baseline that computed something else would
// make its ratio meaningless).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <pto/pto.hpp>

#include "01_vector_add/vector_add.hpp"
#include "02_softmax/softmax.hpp"
#include "03_matmul/matmul.hpp"
#include "04_matmul_bias_relu/matmul_bias_relu.hpp"
#include "05_matmul_softmax/matmul_softmax.hpp"
#include "06_flash_attention/flash_attention.hpp"
#include "07_tiling_key/tiling_key.hpp"
#include "08_layernorm/layernorm.hpp"
#include "common/native/NativeKernels.hpp"

namespace native = pto::samples::native;

namespace {

bool is_nan_half(uint16_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0; }
bool is_nan_bf16(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

/// Floats to round: every 4093rd bit pattern (every exponent, both signs, NaNs), the halfway
/// points between neighbouring halves and bfloat16s around 1 (ties to even), and specials.
std::vector<float> floats_to_round() {
  std::vector<float> v;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4093) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  for (uint32_t m = 0; m < 64; ++m) {
    v.push_back(std::bit_cast<float>(0x3f800000u + (m << 13) + 0x1000u));  // half ties
    v.push_back(std::bit_cast<float>(0x3f800000u + (m << 16) + 0x8000u));  // bfloat16 ties
  }
  for (float f : {0.0f, -0.0f, 65504.0f, 65520.0f, 65519.99f, 6.0e-8f, 3.0e-8f, INFINITY, -INFINITY, NAN}) v.push_back(f);
  return v;
}

}  // namespace

TEST_CASE("the native baselines widen every half and bfloat16 as pto::half and pto::bfloat16 do") {
  std::vector<uint16_t> all(65536);
  for (uint32_t b = 0; b < 65536; ++b) all[b] = static_cast<uint16_t>(b);
  // Whole, and from odd offsets with lengths that leave every SIMD tail.
  for (int64_t offset : {0, 3}) {
    for (int64_t n : {int64_t{65536} - offset, int64_t{1}, int64_t{7}, int64_t{9}, int64_t{17}, int64_t{31}}) {
      std::vector<float> h(static_cast<size_t>(n)), bf(static_cast<size_t>(n));
      native::f16_to_f32(all.data() + offset, h.data(), n);
      native::bf16_to_f32(all.data() + offset, bf.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t b = all[static_cast<size_t>(offset + i)];
        const float want_h = pto::half::from_bits(b), want_bf = pto::bfloat16::from_bits(b);
        if (is_nan_half(b)) {
          CHECK(std::isnan(h[static_cast<size_t>(i)]));
        } else if (std::bit_cast<uint32_t>(h[static_cast<size_t>(i)]) != std::bit_cast<uint32_t>(want_h)) {
          FAIL("half ", b, " widened to ", h[static_cast<size_t>(i)], ", want ", want_h);
        }
        if (is_nan_bf16(b)) {
          CHECK(std::isnan(bf[static_cast<size_t>(i)]));
        } else if (std::bit_cast<uint32_t>(bf[static_cast<size_t>(i)]) != std::bit_cast<uint32_t>(want_bf)) {
          FAIL("bfloat16 ", b, " widened to ", bf[static_cast<size_t>(i)], ", want ", want_bf);
        }
      }
    }
  }
}

TEST_CASE("the native baselines round floats to half and bfloat16 to nearest even, as pto::half and pto::bfloat16 do") {
  const std::vector<float> in = floats_to_round();
  const auto n = static_cast<int64_t>(in.size());
  for (int64_t offset : {int64_t{0}, n - 13}) {  // the whole sweep, then a tail shorter than two vectors
    const int64_t count = n - offset;
    std::vector<uint16_t> h(static_cast<size_t>(count)), bf(static_cast<size_t>(count));
    native::f32_to_f16(in.data() + offset, h.data(), count);
    native::f32_to_bf16(in.data() + offset, bf.data(), count);
    int wrong = 0;
    for (int64_t i = 0; i < count && wrong < 5; ++i) {
      const float f = in[static_cast<size_t>(offset + i)];
      const uint16_t got_h = h[static_cast<size_t>(i)], got_bf = bf[static_cast<size_t>(i)];
      const bool ok_h = std::isnan(f) ? is_nan_half(got_h) : got_h == pto::half(f).bits;
      const bool ok_bf = std::isnan(f) ? is_nan_bf16(got_bf) : got_bf == pto::bfloat16(f).bits;
      if (!ok_h || !ok_bf) {
        ++wrong;
        FAIL_CHECK(f, " (bits ", std::bit_cast<uint32_t>(f), "): half ", got_h, " want ", pto::half(f).bits, ", bfloat16 ", got_bf, " want ",
                   pto::bfloat16(f).bits);
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("every sample's native baseline computes what the sample verifies, in every dtype") {
  struct Case {
    pto::samples::SampleInfo info;
    std::vector<int64_t> shape;  // small, with tails where the sample has them
  };
  const std::vector<Case> cases = {
      {pto::samples::vector_add::sample(), {70001}},
      {pto::samples::tiling_key::sample(), {70001}},
      {pto::samples::softmax::sample(), {37, 300}},
      {pto::samples::layernorm::sample(), {37, 300}},
      {pto::samples::matmul::sample(), {96, 80, 64}},
      {pto::samples::matmul_bias_relu::sample(), {96, 80, 64}},
      {pto::samples::matmul_softmax::sample(), {96, 80, 64}},
      {pto::samples::flash_attention::sample(), {256, 64}},
  };
  for (const Case& c : cases) {
    for (pto::DType dtype : {pto::DType::f32, pto::DType::f16, pto::DType::bf16}) {
      const std::string dtype_text(pto::dtype_name(dtype));
      CAPTURE(c.info.name);
      CAPTURE(dtype_text);
      pto::samples::SampleArgs args;
      args.shape = c.shape;
      args.dtype = dtype;
      args.block_dim = 4;
      const pto::samples::PreparedRun run = c.info.prepare(args);
      REQUIRE(run.native);
      CHECK_FALSE(run.native_about.empty());
      run.native();  // writes the outputs the emulated launch would (no launch here)
      const pto::samples::Verdict v = run.verify();
      CHECK_MESSAGE(v.ok, "max |error| ", v.max_abs_error, " over the tolerance ", v.tolerance);
    }
  }
}
