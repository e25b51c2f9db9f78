#pragma once
// The cube tests' data and reference: random matmul inputs, the product summed in double from the
// exact products, and the comparison with dtype-appropriate tolerances (exact for int32).
#include "common.hpp"

namespace pto::correctness {

/// Random inputs: floats in [-1, 1) (rounded to T), int8 over its whole range with the extremes
/// -128 and 127 at the start.
template <class T>
pto::Tensor<T> mm_input(std::vector<int64_t> shape, uint64_t seed) {
  if constexpr (std::is_same_v<T, int8_t>) {
    auto t = pto::Tensor<T>::random(shape, seed, -128, 127);
    const int8_t ends[] = {-128, 127, -128, -128, 127};
    for (int64_t i = 0; i < std::min<int64_t>(5, t.numel()); ++i) t[i] = ends[i];
    return t;
  } else {
    return pto::Tensor<T>::random(shape, seed, -1.0, 1.0);
  }
}

/// The reference product in double: sum_k a[i, k] * B[k, j] of the exact products (B read as
/// N x K when transposed). Exact for int8 inputs.
template <class T>
std::vector<double> reference(const pto::Tensor<T>& a, const pto::Tensor<T>& b, bool transpose_b) {
  const int64_t M = a.dim(0), K = a.dim(1), N = transpose_b ? b.dim(0) : b.dim(1);
  std::vector<double> c(static_cast<size_t>(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double av = static_cast<double>(static_cast<float>(widen(a[i * K + k])));
        const double bv = static_cast<double>(static_cast<float>(widen(transpose_b ? b[j * K + k] : b[k * N + j])));
        s += av * bv;
      }
      c[static_cast<size_t>(i * N + j)] = s;
    }
  }
  return c;
}

/// The relative rounding of storing a float accumulator as O (0: no rounding).
template <class O>
double out_eps() {
  if constexpr (std::is_same_v<O, half>) return 0x1p-10;
  else if constexpr (std::is_same_v<O, bfloat16>) return 0x1p-7;
  else return 0;
}

/// Checks C against the reference: exact for int32 results; for floats within K roundings of
/// float sums (K * 2^-22 * max(1, max |ref|)) plus one rounding of the output dtype.
template <class O>
void check_product(const pto::Tensor<O>& c, const std::vector<double>& ref, int64_t K) {
  REQUIRE(static_cast<size_t>(c.numel()) == ref.size());
  int64_t bad = 0;
  std::string first;
  if constexpr (std::is_same_v<O, int32_t>) {
    for (int64_t i = 0; i < c.numel(); ++i) {
      const double w = ref[static_cast<size_t>(i)];
      if (static_cast<double>(c[i]) != w) {
        if (bad < 4) first += "\n  [" + std::to_string(i) + "] got " + std::to_string(c[i]) + ", want " + std::to_string(static_cast<int64_t>(w));
        ++bad;
      }
    }
  } else {
    double biggest = 0;
    for (double v : ref) biggest = std::max(biggest, std::abs(v));
    const double kerr = static_cast<double>(K) * 0x1p-22 * std::max(1.0, biggest);
    const double eps = out_eps<O>();
    double worst = 0;
    for (int64_t i = 0; i < c.numel(); ++i) {
      const double w = ref[static_cast<size_t>(i)];
      const double g = static_cast<double>(static_cast<float>(c[i]));
      const double tol = kerr + eps * (std::abs(w) + kerr);
      const double err = std::abs(g - w);
      worst = std::max(worst, err / tol);
      if (!(err <= tol)) {  // also catches nan
        if (bad < 4) {
          std::ostringstream os;
          os.precision(10);
          os << "\n  [" << i << "] got " << g << ", want " << w << " (err " << err << ", tol " << tol << ")";
          first += os.str();
        }
        ++bad;
      }
    }
    INFO("worst error / tolerance: " << worst);
    CHECK(worst <= 1.0);
  }
  INFO("mismatches of " << c.numel() << ":" << first);
  CHECK(bad == 0);
}

}  // namespace pto::correctness
