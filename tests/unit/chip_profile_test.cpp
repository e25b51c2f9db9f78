// Chip profiles: the built-in a2 and a5 numbers, parsing and its errors, profiles from files.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <pto/pto.hpp>

using pto::ChipProfile;
using pto::ir::MemSpace;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string a2_text() { return read_text(std::string(PTO_TEST_CHIP_DIR) + "/a2.json"); }

/// The message of the UserError that parsing `text` throws ("" when it does not throw).
std::string parse_error(const std::string& text, const std::string& origin = "test.json") {
  try {
    (void)ChipProfile::from_json(text, origin);
  } catch (const pto::UserError& e) {
    return e.what();
  }
  return "";
}

/// a2.json with the field at `path` ("cores", "aiv") removed.
std::string without(std::vector<std::string> path) {
  auto j = nlohmann::json::parse(a2_text());
  nlohmann::json* node = &j;
  for (size_t i = 0; i + 1 < path.size(); ++i) node = &(*node)[path[i]];
  REQUIRE(node->contains(path.back()));
  node->erase(path.back());
  return j.dump();
}

std::string with(std::vector<std::string> path, nlohmann::json value) {
  auto j = nlohmann::json::parse(a2_text());
  nlohmann::json* node = &j;
  for (const auto& p : path) node = &(*node)[p];
  *node = std::move(value);
  return j.dump();
}

}  // namespace

TEST_CASE("the built-in a2 profile has 48 AIV and 24 AIC cores and a 196608-byte UB with 32-byte alignment") {
  const ChipProfile& a2 = ChipProfile::get("a2");
  CHECK(a2.name == "a2");
  CHECK(a2.aiv_count == 48);
  CHECK(a2.aic_count == 24);
  CHECK(a2.limits(MemSpace::Vec).bytes == 196608);
  CHECK(a2.limits(MemSpace::Vec).align == 32);
  CHECK(a2.limits(MemSpace::Mat).bytes == 524288);
  CHECK(a2.limits(MemSpace::Left).align == 512);
  CHECK(a2.limits(MemSpace::Acc).bytes == 131072);
  CHECK(a2.clock_ghz == doctest::Approx(1.8));
  CHECK(a2.path(pto::PathId::GmToVec).peak_bytes_per_cycle == 128);
  CHECK(a2.path(pto::PathId::GmToVec).latency_cycles == 264);
  CHECK(a2.l2_bytes == 192 * 1024 * 1024);
  CHECK(a2.hbm_peak_gbps == 1600);
  CHECK(a2.cube_macs(pto::DType::f16) == 4096);
  CHECK(a2.vector_op(pto::ir::VecOp::Exp).head == 31);
  CHECK_FALSE(a2.path(pto::PathId::AccToVec).present());
}

TEST_CASE("the built-in a5 profile differs from a2 in cores and memory sizes") {
  const ChipProfile& a5 = ChipProfile::get("a5");
  const ChipProfile& a2 = ChipProfile::get("a2");
  CHECK(a5.name == "a5");
  CHECK(a5.aiv_count == 64);
  CHECK(a5.aic_count == 32);
  CHECK(a5.limits(MemSpace::Vec).bytes == 253952);
  CHECK(a5.limits(MemSpace::Acc).bytes == 262144);
  CHECK(a5.aiv_count != a2.aiv_count);
  CHECK(a5.limits(MemSpace::Vec).bytes != a2.limits(MemSpace::Vec).bytes);
}

TEST_CASE("the default profile is a2 and profiles are loaded once") {
  CHECK(&ChipProfile::default_profile() == &ChipProfile::get("a2"));
  CHECK(&ChipProfile::get("a5") == &ChipProfile::get("a5"));
  CHECK(ChipProfile::builtin_names() == std::vector<std::string>{"a2", "a5"});
}

TEST_CASE("the embedded a2 profile equals runtime/chips/a2.json parsed from the source tree") {
  const ChipProfile p = ChipProfile::from_json(a2_text(), "a2.json");
  const ChipProfile& a2 = ChipProfile::get("a2");
  CHECK(p.aiv_count == a2.aiv_count);
  CHECK(p.limits(MemSpace::Vec).bytes == a2.limits(MemSpace::Vec).bytes);
  CHECK(p.hbm_gbps == a2.hbm_gbps);
  CHECK(p.launch_overhead_us == a2.launch_overhead_us);
}

TEST_CASE("from_json with a missing field throws a UserError naming the field and the origin") {
  struct Case {
    std::vector<std::string> path;
    std::string named;
  };
  const Case cases[] = {
      {{"name"}, "'name'"},
      {{"cores"}, "'cores'"},
      {{"cores", "aiv"}, "'cores.aiv'"},
      {{"cores", "aic", "value"}, "'cores.aic.value'"},
      {{"clock_ghz"}, "'clock_ghz'"},
      {{"memories", "Vec"}, "'memories.Vec'"},
      {{"memories", "Vec", "bytes"}, "'memories.Vec.bytes'"},
      {{"memories", "Acc", "align"}, "'memories.Acc.align'"},
      {{"paths", "gm_to_vec"}, "'paths.gm_to_vec'"},
      {{"paths", "mat_to_left", "latency_cycles"}, "'paths.mat_to_left.latency_cycles'"},
      {{"vector", "ops", "exp"}, "'vector.ops.exp'"},
      {{"vector", "ops", "div", "per_repeat_16bit"}, "'vector.ops.div.per_repeat_16bit'"},
      {{"cube", "i8"}, "'cube.i8'"},
      {{"cube", "f16", "k0"}, "'cube.f16.k0'"},
      {{"l2", "bytes"}, "'l2.bytes'"},
      {{"hbm", "sustained_gbps"}, "'hbm.sustained_gbps'"},
      {{"launch", "fixed_us"}, "'launch.fixed_us'"},
      {{"launch", "block_dispatch_cycles"}, "'launch.block_dispatch_cycles'"},
      {{"launch", "sync_all_cycles"}, "'launch.sync_all_cycles'"},
      {{"issue_cycles"}, "'issue_cycles'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.named);
    const std::string msg = parse_error(without(c.path), "my_chip.json");
    CHECK(msg.find("missing field " + c.named) != std::string::npos);
    CHECK(msg.find("chip profile my_chip.json") != std::string::npos);
  }
}

TEST_CASE("from_json with a non-numeric number field throws a UserError naming the field") {
  const std::string msg = parse_error(with({"memories", "Vec", "bytes"}, "lots"));
  CHECK(msg.find("field 'memories.Vec.bytes' is not a number") != std::string::npos);
  const std::string msg2 = parse_error(with({"clock_ghz", "value"}, nlohmann::json::array()));
  CHECK(msg2.find("field 'clock_ghz' is not a number") != std::string::npos);
  const std::string msg3 = parse_error(with({"paths", "gm_to_vec", "latency_cycles"}, "slow"), "my_chip.json");
  CHECK(msg3.find("chip profile my_chip.json: field 'paths.gm_to_vec.latency_cycles' is not a number") != std::string::npos);
}

TEST_CASE("from_json with a negative field throws a UserError naming the field and the file") {
  const std::string msg = parse_error(with({"hbm", "sustained_gbps", "value"}, -5), "neg.json");
  CHECK(msg.find("chip profile neg.json: field 'hbm.sustained_gbps' is negative") != std::string::npos);
  const std::string msg2 = parse_error(with({"vector", "ops", "mul", "head"}, -1), "neg.json");
  CHECK(msg2.find("field 'vector.ops.mul.head' is negative") != std::string::npos);
}

TEST_CASE("from_json rejects invalid JSON and non-positive core counts with a UserError") {
  CHECK(parse_error("{ not json", "broken.json").find("chip profile broken.json is not valid JSON") != std::string::npos);
  CHECK(parse_error(with({"cores", "aiv", "value"}, 0)).find("core counts must be positive") != std::string::npos);
}

TEST_CASE("from_json with a mistyped name field throws a UserError naming the field") {
  bool user_error = false;
  std::string msg;
  try {
    (void)ChipProfile::from_json(with({"name"}, 42), "typed.json");
  } catch (const pto::UserError& e) {
    user_error = true;
    msg = e.what();
  } catch (const std::exception&) {
  }
  CHECK(user_error);
  CHECK(msg.find("'name'") != std::string::npos);
}

TEST_CASE("ChipProfile::get loads a JSON file by path and rejects unknown names") {
  const auto path = std::filesystem::temp_directory_path() / "pto_unit_chip_small.json";
  {
    std::ofstream out(path);
    out << with({"cores", "aiv", "value"}, 4);
  }
  const ChipProfile& p = ChipProfile::get(path.string());
  CHECK(p.aiv_count == 4);
  CHECK(p.limits(MemSpace::Vec).bytes == 196608);
  std::filesystem::remove(path);

  bool threw = false;
  try {
    (void)ChipProfile::get("no_such_chip_zz9");
  } catch (const pto::UserError& e) {
    threw = true;
    CHECK(std::string(e.what()).find("unknown chip 'no_such_chip_zz9'") != std::string::npos);
  }
  CHECK(threw);
}

TEST_CASE("layouts: each memory's default and allowed layouts per chip, and a profile naming an unknown or disallowed one") {
  using pto::ir::Layout;
  const auto& a2 = ChipProfile::get("a2").layouts;
  const auto& a5 = ChipProfile::get("a5").layouts;
  CHECK(a2.default_of(MemSpace::Mat) == Layout::NZ);
  CHECK(a2.default_of(MemSpace::Left) == Layout::ZZ);
  CHECK(a5.default_of(MemSpace::Left) == Layout::NZ);
  CHECK(a2.default_of(MemSpace::Right) == Layout::ZN);
  CHECK(a2.default_of(MemSpace::Acc) == Layout::NZ);
  CHECK(a2.default_of(MemSpace::Vec) == Layout::ND);
  CHECK(a2.allows(MemSpace::Left, Layout::NZ));
  CHECK_FALSE(a5.allows(MemSpace::Left, Layout::ZZ));
  CHECK(a5.rejected_in_cube == ((1u << static_cast<int>(Layout::ZZ)) | (1u << static_cast<int>(Layout::NN))));
  // ND -> NZ at 0.9 of the rate for 256 B rows, 0.5 otherwise; 4-byte block transposes at 0.5.
  CHECK(a2.efficiency(pto::ir::Conversion::Nd2Nz, pto::DType::f16, 512) == 0.9);
  CHECK(a2.efficiency(pto::ir::Conversion::Nd2Nz, pto::DType::f16, 240) == 0.5);
  CHECK(a2.efficiency(pto::ir::Conversion::Transpose, pto::DType::f32, 0) == 0.5);
  CHECK(a2.efficiency(pto::ir::Conversion::Transpose, pto::DType::f16, 0) == 1.0);
  auto replaced = [](const std::string& from, const std::string& to) {
    std::string t = a2_text();
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(parse_error(replaced("\"Left\": \"ZZ\"", "\"Left\": \"XY\""), "bad.json").find(
            "chip profile bad.json: field 'layouts.defaults.Left' names layout 'XY'; the layouts are ND, DN, NZ, ZN, ZZ, NN") != std::string::npos);
  CHECK(parse_error(replaced("\"Acc\": \"NZ\"", "\"Acc\": \"ND\""), "bad.json").find(
            "chip profile bad.json: the default layout of Acc is not among its allowed layouts") != std::string::npos);
  CHECK(parse_error(replaced("\"efficiency\": 0.9", "\"efficiency\": 1.5"), "bad.json").find(
            "chip profile bad.json: a conversion's efficiency is in (0, 1], got 1.5") != std::string::npos);
}
