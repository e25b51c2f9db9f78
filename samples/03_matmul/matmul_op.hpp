#pragma once
// The matmul operator: C = A x B with validation, a host tiling function and dispatch, called in
// two phases like an aclnn operator:
//
//   pto::OpExecutor exec;
//   matmul_op<float>().get_workspace_size(a, b, c, exec);
//   matmul_op<float>().run(exec, stream);
//
// The tiling function picks the TilingKey from the shape — the K step (deep for half inputs, and
// one K step covering all of K when K is small) and whether L1/L0 are double-buffered (only worth
// it when there is more than one K step) — and block_dim = the number of output tiles, at most
// the chip's AIC count.
#include <boost/hana/define_struct.hpp>

#include "matmul.hpp"

namespace pto::samples::matmul {

struct OpKey {
  BOOST_HANA_DEFINE_STRUCT(OpKey, (pto::KeyField<int, 1, 2>, buffers), (pto::KeyField<int, 0, 2>, k_step));
};

/// The K step of key value `k` (16 << k elements for 0..2 would be too shallow): 32, 64 or 128.
inline int64_t k_step_elems(int k) { return int64_t{32} << k; }

/// The kernel behind the op: sample 03's kernel body with the tile sizes the key selects.
template <class T>
auto make_op_kernel() {
  return pl::jit({.name = "matmul_op", .auto_mutex = true}, [](pl::Tensor<T> a, pl::Tensor<T> b, pl::Tensor<out_t<T>> c) {
    const auto key = pl::tiling_key<OpKey>();
    const Params p{.tm = 128, .tn = 128, .tk = k_step_elems(key.k_step), .buffers = key.buffers};
    matmul_tiles<T>(a, b, p, pl::get_block_idx(), pl::get_block_num(),
                    [&](const auto& acc, const pl::Int& m0, const pl::Int& mlen, const pl::Int& n0, const pl::Int& nlen) {
                      pl::store(c.slice(m0, mlen, n0, nlen), acc);
                    });
  });
}

/// The plan for C = A x B with A of M x K and B of K x N.
template <class T>
OpPlan plan_matmul(int64_t M, int64_t N, int64_t K) {
  // The deepest K step whose double-buffered Left and Right tiles (128 x tk, tk x 128) fit L0A/L0B.
  const int64_t l0 = ChipProfile::default_profile().limits(ir::MemSpace::Left).bytes;
  int k_step = 2;
  while (k_step > 0 && 2 * 128 * k_step_elems(k_step) * static_cast<int64_t>(sizeof(T)) > l0) --k_step;
  const int steps = static_cast<int>((K + k_step_elems(k_step) - 1) / k_step_elems(k_step));
  OpPlan plan;
  plan.tiling_key = OpKey{steps > 1 ? 2 : 1, k_step};
  const int64_t tiles = (M + 127) / 128 * ((N + 127) / 128);
  plan.block_dim = static_cast<int>(std::min<int64_t>(tiles, ChipProfile::default_profile().aic_count));
  return plan;
}

template <class T>
const pto::Op<pto::Tensor<T>, pto::Tensor<T>, pto::Tensor<out_t<T>>>& matmul_op() {
  static const auto kernel = make_op_kernel<T>();
  static const pto::Op<pto::Tensor<T>, pto::Tensor<T>, pto::Tensor<out_t<T>>> op(
      "matmul",
      [](const pto::Tensor<T>& a, const pto::Tensor<T>& b, const pto::Tensor<out_t<T>>& c) {
        const ErrorSite site{.kernel = "matmul"};
        PTO_USER_CHECK(a && b && c, site) << "matmul: a, b and c must be allocated tensors";
        PTO_USER_CHECK(a.rank() == 2 && b.rank() == 2 && c.rank() == 2, site) << "matmul: a, b and c must be 2-D matrices";
        PTO_USER_CHECK(a.dim(1) == b.dim(0), site)
            << "matmul: a is " << a.dim(0) << " x " << a.dim(1) << " but b is " << b.dim(0) << " x " << b.dim(1) << "; K must match";
        PTO_USER_CHECK(c.dim(0) == a.dim(0) && c.dim(1) == b.dim(1), site)
            << "matmul: c must be " << a.dim(0) << " x " << b.dim(1) << ", got " << c.dim(0) << " x " << c.dim(1);
      },
      [](const pto::Tensor<T>& a, const pto::Tensor<T>& b, const pto::Tensor<out_t<T>>&) {
        return plan_matmul<T>(a.dim(0), b.dim(1), a.dim(1));
      },
      [](const OpPlan& plan, pto::Stream& stream, const pto::Tensor<T>& a, const pto::Tensor<T>& b, const pto::Tensor<out_t<T>>& c) {
        kernel[{.block_dim = plan.block_dim, .stream = &stream, .tiling_key = plan.tiling_key}](a, b, c);
      });
  return op;
}

}  // namespace pto::samples::matmul
