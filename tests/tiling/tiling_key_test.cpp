// TilingKey: encoding, specialisation per key value, validation errors.
#include <doctest/doctest.h>

#include <boost/hana/define_struct.hpp>

#include "07_tiling_key/tiling_key.hpp"

namespace {

namespace pl = pto::lang;
namespace tk = pto::samples::tiling_key;

enum class Layout { row, column, blocked };

struct Key3 {
  BOOST_HANA_DEFINE_STRUCT(Key3,
    (bool, fast),
    (pto::KeyField<Layout, 0, 2>, layout),
    (pto::KeyField<int, 4, 11>, log_tile));
  bool valid() const { return !(fast && layout.value == Layout::blocked); }
};

struct Other {
  BOOST_HANA_DEFINE_STRUCT(Other, (bool, fast));
};

TEST_CASE("a_key_encodes_its_fields_in_declared_bits") {
  static_assert(pto::KeyField<int, 4, 11>::bits == 3);
  static_assert(pto::KeyField<Layout, 0, 2>::bits == 2);
  static_assert(pto::detail::key_bits<Key3>() == 1 + 2 + 3);
  const pto::TilingKey k(Key3{true, Layout::column, 7});
  // fast = 1 (bit 0), layout = 1 (bits 1-2), log_tile - 4 = 3 (bits 3-5)
  CHECK(k.code() == (1u | (1u << 1) | (3u << 3)));
  CHECK(k.invalid_reason().empty());
  CHECK(pto::TilingKey(Key3{true, Layout::column, 7}).code() == k.code());
  CHECK(pto::TilingKey(Key3{false, Layout::column, 7}).code() != k.code());
  CHECK(pto::TilingKey(Other{true}).type_hash() != k.type_hash());
  CHECK(k.get<Key3>()->log_tile == 7);
  CHECK(k.get<Other>() == nullptr);
}

TEST_CASE("out_of_range_fields_and_failed_valid_make_a_key_invalid") {
  CHECK(pto::TilingKey(Key3{false, Layout::row, 12}).invalid_reason() == "log_tile");
  CHECK(pto::TilingKey(Key3{true, Layout::blocked, 5}).invalid_reason() == "valid()");
}

/// PyPTO Pro's `TilingKeyField(bits, values=[...])` and `is_valid()`.
struct ListKey {
  BOOST_HANA_DEFINE_STRUCT(ListKey,
    (pto::KeyValues<int, 64, 128, 256>, tile),
    (bool, tail));
  bool is_valid() const { return !(tail && tile == 256); }
};

TEST_CASE("value-list fields encode their value's index in the list; a value not listed or a failed is_valid() is invalid") {
  static_assert(pto::KeyValues<int, 64, 128, 256>::bits == 2);
  static_assert(pto::KeyValues<int, 7>::bits == 0);
  static_assert(pto::detail::key_bits<ListKey>() == 3);
  CHECK(pto::TilingKey(ListKey{64, false}).code() == 0);
  CHECK(pto::TilingKey(ListKey{128, true}).code() == (1u | (1u << 2)));
  CHECK(pto::TilingKey(ListKey{256, false}).code() == 2);
  CHECK(pto::TilingKey(ListKey{256, false}).get<ListKey>()->tile == 256);
  CHECK(pto::TilingKey(ListKey{128, false}).invalid_reason().empty());
  CHECK(pto::TilingKey(ListKey{100, false}).invalid_reason() == "tile");
  CHECK(pto::TilingKey(ListKey{256, true}).invalid_reason() == "is_valid()");
}

TEST_CASE("each_key_value_is_its_own_specialisation_and_selects_its_code_path") {
  const auto kernel = tk::make_kernel<float>();
  const int64_t n = 8 * tk::kTile;
  auto x = pto::Tensor<float>::random({n}), y = pto::Tensor<float>::zeros({n}), want = pto::Tensor<float>::zeros({n});
  tk::reference(x, want);
  const auto before = pto::runtime_stats().compiles;
  auto aligned = kernel[{.block_dim = 4, .tiling_key = tk::ScaleKey{true, 2}}].run_sync(x, y);
  CHECK(pto::samples::max_abs_diff(y, want) == 0);
  auto generic = kernel[{.block_dim = 4, .tiling_key = tk::ScaleKey{false, 2}}].run_sync(x, y);
  CHECK(pto::samples::max_abs_diff(y, want) == 0);
  kernel[{.block_dim = 4, .tiling_key = tk::ScaleKey{true, 2}}].run_sync(x, y);  // cache hit
  CHECK(pto::runtime_stats().compiles - before == 2);
  // the generic path zero-pads every tile: one more vector instruction per tile
  uint64_t v_aligned = 0, v_generic = 0;
  for (const auto& c : aligned.cores) v_aligned += c.pipes[static_cast<int>(pto::ir::Pipe::V)].instructions;
  for (const auto& c : generic.cores) v_generic += c.pipes[static_cast<int>(pto::ir::Pipe::V)].instructions;
  CHECK(v_generic == v_aligned + 8);
  CHECK(aligned.device_us < generic.device_us);
  CHECK(aligned.specialization.find("key=0x") != std::string::npos);
}

TEST_CASE("an_invalid_key_is_a_user_error_at_launch") {
  const auto kernel = tk::make_kernel<float>();
  auto x = pto::Tensor<float>::random({tk::kTile}), y = pto::Tensor<float>::zeros({tk::kTile});
  auto bad = [&] { kernel[{.block_dim = 1, .tiling_key = tk::ScaleKey{true, 4}}](x, y); };
  CHECK_THROWS_WITH_AS(bad(), doctest::Contains("field 'buffers' is outside its declared values"), pto::UserError);
  CHECK(y[0] == 0.0f);  // nothing ran
  kernel[{.block_dim = 1, .tiling_key = tk::ScaleKey{true, 1}}](x, y);
  pto::synchronize();
  CHECK(y[0] == x[0] * 2.0f + 1.0f);
}

TEST_CASE("a_kernel_asking_for_a_key_the_launch_did_not_pass_is_a_user_error") {
  const auto kernel = tk::make_kernel<float>();
  auto x = pto::Tensor<float>::random({tk::kTile}), y = pto::Tensor<float>::zeros({tk::kTile});
  auto none = [&] { kernel[{.block_dim = 1}](x, y); };
  auto other = [&] { kernel[{.block_dim = 1, .tiling_key = Other{true}}](x, y); };
  CHECK_THROWS_WITH_AS(none(), doctest::Contains("the launch passed none"), pto::UserError);
  CHECK_THROWS_WITH_AS(other(), doctest::Contains("of another type"), pto::UserError);
}

TEST_CASE("the_aligned_key_on_an_unaligned_shape_fails_its_require") {
  const auto kernel = tk::make_kernel<float>();
  auto x = pto::Tensor<float>::random({1000}), y = pto::Tensor<float>::zeros({1000});
  auto unaligned = [&] { kernel[{.block_dim = 1, .tiling_key = tk::ScaleKey{true, 2}}](x, y); };
  CHECK_THROWS_WITH_AS(unaligned(), doctest::Contains("the aligned key needs a length that is a multiple of the tile"), pto::UserError);
}

}  // namespace
