// Tile inlining (pto/backend/TileInlining.hpp): which tile expressions of a row fusion run are
// computed where they are read, and that results stay those of plain C++ and the same bytes as
// with row fusion off (no run, so nothing inlined): layernorm's centred rows, and the tiles that
// must stay written (stored to GM, read through a view, or read after an operand changed). The
// suite also runs on the interpreter, which writes and reads every tile.
#include "common.hpp"

#include "pto/backend/RowFusion.hpp"
#include "pto/backend/StoreForwarding.hpp"
#include "pto/backend/TileInlining.hpp"
#include "../../samples/08_layernorm/layernorm.hpp"

namespace pto::correctness {
namespace {

/// The tiles whose expressions are inlined in `k`'s specialisation for `args`: their groups, sorted.
template <class K, class... Args>
std::vector<int> inlined(const K& k, int block_dim, const Args&... args) {
  const auto& ir = k[{.block_dim = block_dim}].compile(args...)->ir;
  const auto forwarding = pto::backend::find_store_forwarding(ir);
  std::vector<int> groups;
  for (const auto* s : pto::backend::find_tile_inlining(ir, pto::backend::find_row_fusion(ir, forwarding), forwarding).inlined) {
    groups.push_back(static_cast<const pto::ir::VecCompute*>(s)->dst.group);
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

constexpr int64_t R = 8, C = 64;

/// d = x * 2 - m (m: the row sums), then e = d * d + d and out = e - d + m, stored; `variant` keeps
/// d written: 1 stores d too, 2 reads it through a view (which ends the run), 3 rewrites m between
/// d and its readers.
auto centred_kernel(int variant) {
  return pl::jit({.name = "inline_centred_" + std::to_string(variant)}, [variant](pl::Tensor<float> x, pl::Tensor<float> z, pl::Tensor<float> zd) {
    auto t = pl::make_tile<float>(pl::Vec, {R, C});
    auto m = pl::make_tile<float>(pl::Vec, {R, 1});
    auto d = pl::make_tile<float>(pl::Vec, {R, C});
    auto e = pl::make_tile<float>(pl::Vec, {R, C});
    auto out = pl::make_tile<float>(pl::Vec, {R, C});
    pl::load(t, x.slice(0, R, 0, C));
    pl::row_sum(m, t);
    d = t * 2 - m;
    if (variant == 3) m = m * 3;  // d's operand changes before e and out read d
    if (variant == 2) {
      e = d.view(0, R, 0, C) * 1 + d;  // the whole tile, but through a view
    } else {
      e = d * d + d;
    }
    out = e - d + m;
    pl::store(z.slice(0, R, 0, C), out);
    if (variant == 1) pl::store(zd.slice(0, R, 0, C), d);
  });
}

}  // namespace

TEST_CASE("a centred tile read back twice in its run is computed where it is read, and the results do not change") {
  for (int variant : {0, 1, 2, 3}) {
    CAPTURE(variant);
    const auto k = centred_kernel(variant);
    auto x = pto::Tensor<float>::random({R, C}, 31, -4, 4);
    auto z = pto::Tensor<float>::full({R, C}, 7.f), zd = pto::Tensor<float>::full({R, C}, 7.f);
    // The tiles are groups 0..4 in declaration order: t, m, d, e, out. With d inlined, e would
    // have five operations (over kMaxInlinedOperations); with d written, e (d * d + d, read by
    // out alone) is inlined instead, except where the view ends the run before e.
    const std::vector<std::vector<int>> want = {{2}, {3}, {}, {3}};
    CHECK(inlined(k, 1, x, z, zd) == want[static_cast<size_t>(variant)]);
    k[{.block_dim = 1}](x, z, zd);
    auto z_off = pto::Tensor<float>::full({R, C}, 7.f), zd_off = pto::Tensor<float>::full({R, C}, 7.f);
    unfused(k)[{.block_dim = 1}](x, z_off, zd_off);
    pto::synchronize();
    CHECK(bitwise_equal(z, z_off));
    CHECK(bitwise_equal(zd, zd_off));
    // Plain C++, in the kernel's float operations and order (row sums: lanes c % 8, then a tree).
    for (int64_t r = 0; r < R; ++r) {
      float lanes[8] = {};
      for (int64_t c = 0; c < C; ++c) lanes[c % 8] += static_cast<float>(x[r * C + c]);
      const float m = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
      const float m_late = variant == 3 ? m * 3 : m;
      for (int64_t c = 0; c < C; ++c) {
        const float d = static_cast<float>(x[r * C + c]) * 2 - m;
        const float e = variant == 2 ? d * 1 + d : d * d + d;
        CHECK(static_cast<float>(z[r * C + c]) == e - d + m_late);
        CHECK(static_cast<float>(zd[r * C + c]) == (variant == 1 ? d : 7.f));
      }
    }
  }
}

TEST_CASE_TEMPLATE("layernorm's centred rows are inlined, in float and from half", T, float, half) {
  // Its results with them inlined, against fusion off and plain C++: row_fusion_test's samples case.
  namespace ln = pto::samples::layernorm;
  const auto k = ln::make_kernel<T>({});
  auto x = pto::Tensor<T>::random({203, 300}, 32, -4, 4), y = pto::Tensor<T>::zeros({203, 300});
  auto gamma = pto::Tensor<T>::random({1, 300}, 33), beta = pto::Tensor<T>::random({1, 300}, 34);
  // Groups: x's slots, y's slots, x in float (xf), the centred rows (d), ...: d = x - mean, and from
  // half also xf (read by the row sum and by d).
  CHECK(inlined(k, 6, x, gamma, beta, y, 1e-5f) == (std::is_same_v<T, float> ? std::vector<int>{3} : std::vector<int>{2, 3}));
}

}  // namespace pto::correctness
