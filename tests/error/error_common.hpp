#pragma once
// Helpers of the error tests: run a statement, catch the pto::UserError it must throw, and check
// the message's key phrases and source line.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <pto/pto.hpp>

#include "common/TensorHelpers.hpp"

namespace pto::error_test {

namespace pl = pto::lang;

/// "file.cpp:LINE" for a line of the calling test file, as a user error's location shows it.
inline std::string file_line(const char* file, int line) {
  const char* slash = std::strrchr(file, '/');
  return std::string(slash ? slash + 1 : file) + ":" + std::to_string(line);
}
#define PTO_AT(line) (::pto::error_test::file_line(__FILE__, (line)))

/// The what() of the pto::UserError that `f` throws; fails the test when it throws nothing
/// (any other exception escapes and fails the test too).
inline std::string user_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const pto::UserError& e) {
    return e.what();
  }
  FAIL_CHECK("expected a pto::UserError, nothing was thrown");
  return "";
}

/// The message contains every phrase.
#define CHECK_HAS(msg, ...)                                                            \
  do {                                                                                 \
    const std::string pto_msg_ = (msg);                                                \
    for (const std::string& pto_phrase_ : std::initializer_list<std::string>{__VA_ARGS__}) {                          \
      CHECK_MESSAGE(pto_msg_.find(pto_phrase_) != std::string::npos,                   \
                    "the message\n---\n" << pto_msg_ << "\n---\nlacks: " << pto_phrase_); \
    }                                                                                  \
  } while (0)

using pto::test::bitwise_equal;
using pto::test::copy_of;

/// z = x + 1 over 1-D tensors in tiles of 64: a correct kernel to launch after an error.
inline const auto& good_kernel() {
  static const auto k = pl::jit({.name = "good_after_error"}, [](pl::Tensor<float> x, pl::Tensor<float> z) {
    const int64_t n = x.numel();
    auto t = pl::make_tile<float>(pl::Vec, {64});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, 64), pl::get_block_num())) {
      auto len = pl::min(64, n - i * 64);
      pl::load(t, x.slice(i * 64, len));
      t = t + 1;
      pl::store(z.slice(i * 64, len), t);
    }
  });
  return k;
}

/// A kernel body that must fail at trace time with `phrase`, at the line it stores in the test's
/// `line` variable.
struct TraceErrorCase {
  const char* name;
  std::function<void(pl::Tensor<float>)> body;
  std::string phrase;
};
/// Launches each case as kernel `name` on an 8 x 8 tensor: its error names the kernel, the phrase
/// and `line` of `file` (the test's __FILE__; `line` as the case's body left it).
inline void check_trace_errors(const std::vector<TraceErrorCase>& cases, const int& line, const char* file) {
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto k = pl::jit({.name = c.name}, [&](pl::Tensor<float> x) { c.body(x); });
    auto x = pto::Tensor<float>::zeros({8, 8});
    const std::string msg = user_error([&] { k[{.block_dim = 1}].run_sync(x); });
    CHECK_MESSAGE(msg.find(std::string("kernel '") + c.name + "'") != std::string::npos, msg);
    CHECK_MESSAGE(msg.find(c.phrase) != std::string::npos, "the message\n---\n" << msg << "\n---\nlacks: " << c.phrase);
    CHECK_MESSAGE(msg.find(file_line(file, line)) != std::string::npos, msg);
  }
}

/// The runtime stays usable: a correct launch on the default stream succeeds with right results.
inline void check_runtime_usable() {
  auto x = pto::Tensor<float>::random({1000}, 77);
  auto z = pto::Tensor<float>::zeros({1000});
  CHECK_NOTHROW(good_kernel()[{.block_dim = 4}](x, z));
  CHECK_NOTHROW(pto::synchronize());
  int bad = 0;
  for (int64_t i = 0; i < 1000; ++i) bad += z[i] != x[i] + 1.0f;
  CHECK(bad == 0);
}

/// The AIC's part of the good mix kernels run after an error: acc = A x B over the first
/// 16 x 16 of each (float).
inline void product_16x16(const pl::Tile<float>& acc, const pl::Tensor<float>& a, const pl::Tensor<float>& b) {
  auto am = pl::make_tile<float>(pl::Mat, {16, 16});
  auto bm = pl::make_tile<float>(pl::Mat, {16, 16});
  auto l = pl::make_tile<float>(pl::Left, {16, 16});
  auto r = pl::make_tile<float>(pl::Right, {16, 16});
  pl::load(am, a.slice(0, 16, 0, 16));
  pl::load(bm, b.slice(0, 16, 0, 16));
  pl::move(l, am);
  pl::move(r, bm);
  pl::matmul(acc, l, r);
}

/// Elements of the 16 x 16 `c` further from A x B (summed in double) than 16 float roundings.
inline int product_16x16_mismatches(const pto::Tensor<float>& c, const pto::Tensor<float>& a, const pto::Tensor<float>& b) {
  int bad = 0;
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 16; ++k) s += static_cast<double>(a[i * 16 + k]) * static_cast<double>(b[k * 16 + j]);
      bad += !(std::abs(static_cast<double>(c[i * 16 + j]) - s) <= 16 * 0x1p-22 * 16);
    }
  }
  return bad;
}

}  // namespace pto::error_test
