// Misuse of explicit tile placement (PyPTO Pro's addrs=): an address past the memory, a
// misaligned one, a negative one, slot addresses without a constant step, the wrong number of
// addresses. Each names the kernel, the tile and the line of its declaration.
#include "error_common.hpp"

namespace pto::error_test {

TEST_CASE("tile addresses past the memory, misaligned, negative, without a constant step or of the wrong count are errors") {
  int line = 0;
  struct Case {
    const char* name;
    std::function<void()> declare;
    std::string phrase;
  };
  const std::vector<Case> cases = {
      {"addr_past_memory", [&] { line = __LINE__; (void)pl::make_tile<float>(pl::Vec, {1, 16}, pl::Addrs{196608 - 32}); },
       "tile t0 placed at byte 196576 of Vec needs 64 B up to byte 196640, past the 196608 B the a2 profile gives Vec"},
      {"addr_misaligned", [&] { line = __LINE__; (void)pl::make_tile<float>(pl::Vec, {1, 16}, pl::Addrs{0x10}); },
       "tile t0 placed at byte 16 of Vec, not a multiple of its 32 B alignment"},
      {"addr_negative", [&] { line = __LINE__; (void)pl::make_tile<float>(pl::Vec, {1, 16}, pl::Addrs{-64}); },
       "a tile address is a byte offset in its memory, >= 0; got -64"},
      {"addr_step", [&] { line = __LINE__; (void)pl::make_tile_group<float>(pl::Vec, {1, 16}, {0, 1, 2}, pl::Addrs{0, 0x100, 0x180}); },
       "the addrs of tile group t0 must rise by one constant step of at least its slot size (64 B); got 0, 256, 384"},
      {"addr_overlapping_slots", [&] { line = __LINE__; (void)pl::make_tile_group<float>(pl::Vec, {1, 16}, {0, 1}, pl::Addrs{0, 32}); },
       "must rise by one constant step of at least its slot size (64 B)"},
      {"addr_count", [&] { line = __LINE__; (void)pl::make_tile_group<float>(pl::Vec, {1, 16}, {0, 1}, pl::Addrs{0}); },
       "addrs gives 1 addresses for a tile group of 2 slots: one per slot"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto k = pl::jit({.name = c.name}, [&](pl::Tensor<float> x) {
      (void)x;
      c.declare();
    });
    CHECK_HAS(user_error([&] { k[{.block_dim = 1}](pto::Tensor<float>::zeros({64})); }), std::string("kernel '") + c.name + "'", c.phrase,
              PTO_AT(line));
  }
  check_runtime_usable();
}

}  // namespace pto::error_test
