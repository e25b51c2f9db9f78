// pto_rt_stream_to_gm (KernelABI.hpp): the copy behind stores to large tensors. Whatever the
// destination's alignment and the length, it writes exactly [dst, dst + bytes) with the source's
// bytes (the wide path's aligned body, its head and its tail), and nothing around it.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "pto/backend/KernelABI.hpp"

TEST_CASE("stream_to_gm_copies_exactly_the_range_at_every_alignment_and_length") {
  std::vector<uint8_t> src(1024);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  alignas(64) static uint8_t dst[1024 + 256];
  for (int offset = 0; offset < 64; ++offset) {
    for (int64_t bytes : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 511, 512, 777, 1000}) {
      for (auto& b : dst) b = 0xA5;
      pto::pto_rt_fence();
      pto::pto_rt_stream_to_gm(dst + offset, src.data() + 5, bytes);
      pto::pto_rt_fence();
      int wrong = 0;
      for (int64_t i = 0; i < static_cast<int64_t>(sizeof dst); ++i) {
        const bool inside = i >= offset && i < offset + bytes;
        const uint8_t want = inside ? src[static_cast<size_t>(i - offset + 5)] : 0xA5;
        wrong += dst[i] != want;
      }
      CHECK_MESSAGE(wrong == 0, "offset ", offset, ", ", bytes, " bytes: ", wrong, " wrong");
    }
  }
}
