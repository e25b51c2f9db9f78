#pragma once
// The softmax operator: validation, a host tiling function and dispatch around the softmax
// kernel, called in two phases like an aclnn operator:
//
//   pto::OpExecutor exec;
//   softmax_op<float>().get_workspace_size(x, y, exec);
//   softmax_op<float>().run(exec, stream);
//
// The tiling function picks the TilingKey (buffer count) and block_dim from the shape, and passes
// the number of row blocks to the kernel as tiling data (a runtime scalar), so one specialisation
// serves every block_dim. The kernel's rows are pl::DYNAMIC: one specialisation per column count
// and key serves every row count (a batch of any size), as an aclnn operator's kernel does.
#include <boost/hana/define_struct.hpp>

#include "softmax.hpp"

namespace pto::samples::softmax {

struct OpKey {
  BOOST_HANA_DEFINE_STRUCT(OpKey, (pto::KeyField<int, 1, 3>, buffers));
};

struct OpTiling {
  BOOST_HANA_DEFINE_STRUCT(OpTiling, (int64_t, row_blocks));
};

/// The row count the op's kernel sizes its tiles for: any (its rows are dynamic).
inline constexpr int64_t kAnyRows = int64_t{1} << 40;

/// The kernel behind the op: softmax over row blocks; the block count arrives as tiling data.
template <class T>
auto make_op_kernel() {
  return pl::jit({.name = "softmax_op", .auto_mutex = true}, [](pl::Tensor<T, pl::DYNAMIC, pl::STATIC> x,
                                                                 pl::Tensor<T, pl::DYNAMIC, pl::STATIC> y, pl::Int row_blocks) {
    const auto key = pl::tiling_key<OpKey>();
    const int64_t r_tile = fitting_rows<T>(kAnyRows, x.dim(1), key.buffers, ChipProfile::default_profile().limits(pl::Vec).bytes);
    softmax_rows<T>(x, y, row_blocks, r_tile, key.buffers, SyncMode::automatic);
  });
}

/// The op's kernel (one per dtype), for launching it directly with an op's plan.
template <class T>
const auto& softmax_op_kernel() {
  static const auto kernel = make_op_kernel<T>();
  return kernel;
}

template <class T>
const pto::Op<pto::Tensor<T>, pto::Tensor<T>>& softmax_op() {
  static const auto& kernel = softmax_op_kernel<T>();
  static const pto::Op<pto::Tensor<T>, pto::Tensor<T>> op(
      "softmax",
      [](const pto::Tensor<T>& x, const pto::Tensor<T>& y) {
        PTO_USER_CHECK(x && y, (ErrorSite{.kernel = "softmax"})) << "softmax: x and y must be allocated tensors";
        PTO_USER_CHECK(x.rank() == 2, (ErrorSite{.kernel = "softmax"}))
            << "softmax: x must be 2-D [rows, cols], got " << x.rank() << " dimensions";
        PTO_USER_CHECK(x.shape() == y.shape(), (ErrorSite{.kernel = "softmax"})) << "softmax: y must have x's shape";
        const int64_t one_row = 2 * padded_cols<T>(x.dim(1)) * static_cast<int64_t>(sizeof(T)) + padded_cols<float>(x.dim(1)) * 4 + 8;
        const int64_t ub = ChipProfile::default_profile().limits(pl::Vec).bytes;
        PTO_USER_CHECK(one_row <= ub, (ErrorSite{.kernel = "softmax"}))
            << "softmax: a row of " << x.dim(1) << " columns needs " << one_row << " B of UB, more than the " << ub << " B there are";
      },
      [](const pto::Tensor<T>& x, const pto::Tensor<T>&) {
        const int64_t rows = x.dim(0), cols = x.dim(1);
        const int64_t ub = ChipProfile::default_profile().limits(pl::Vec).bytes;
        // Double-buffer when two slots still leave at least 4 rows per tile; otherwise one slot.
        const int buffers = fitting_rows<T>(rows, cols, 2, ub) >= std::min<int64_t>(rows, 4) ? 2 : 1;
        const int64_t r_tile = fitting_rows<T>(kAnyRows, cols, buffers, ub);  // the kernel's, which serves any row count
        const int64_t row_blocks = (rows + r_tile - 1) / r_tile;
        OpPlan plan;
        plan.block_dim = static_cast<int>(std::min<int64_t>(row_blocks, ChipProfile::default_profile().aiv_count));
        plan.tiling_key = OpKey{buffers};
        plan.tiling_data = flatten_tiling_data(OpTiling{row_blocks});
        return plan;
      },
      [](const OpPlan& plan, pto::Stream& stream, const pto::Tensor<T>& x, const pto::Tensor<T>& y) {
        kernel[{.block_dim = plan.block_dim, .stream = &stream, .tiling_key = plan.tiling_key}](x, y, plan.tiling_data.at(0));
      });
  return op;
}

}  // namespace pto::samples::softmax
