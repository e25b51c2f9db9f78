#include "pto/backend/ChipProfile.hpp"

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

namespace pto::generated {
extern const std::string_view chip_a2_json;
extern const std::string_view chip_a5_json;
}  // namespace pto::generated

namespace pto {
namespace {

using nlohmann::json;

const json& field(const json& j, const char* key, const std::string& origin, const std::string& path) {
  PTO_USER_CHECK(j.is_object() && j.contains(key), ErrorSite{})
      << "chip profile " << origin << ": missing field '" << path << key << "'";
  return j.at(key);
}

double number(const json& j, const char* key, const std::string& origin, const std::string& path = "") {
  const json& f = field(j, key, origin, path);
  const json& v = f.is_object() ? field(f, "value", origin, path + key + ".") : f;
  PTO_USER_CHECK(v.is_number(), ErrorSite{}) << "chip profile " << origin << ": field '" << path << key << "' is not a number";
  return v.get<double>();
}

}  // namespace

static std::string text_field(const nlohmann::json& j, const char* key, const std::string& origin, bool required) {
  if (!required && !(j.is_object() && j.contains(key))) return "";
  const json& f = field(j, key, origin, "");
  PTO_USER_CHECK(f.is_string(), ErrorSite{}) << "chip profile " << origin << ": field '" << key << "' is not a string";
  return f.get<std::string>();
}

ChipProfile ChipProfile::from_json(std::string_view text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw UserError("chip profile " + origin + " is not valid JSON: " + e.what(), {});
  }
  ChipProfile p;
  p.name = text_field(j, "name", origin, true);
  p.description = text_field(j, "description", origin, false);
  const json& cores = field(j, "cores", origin, "");
  p.aic_count = static_cast<int>(number(cores, "aic", origin, "cores."));
  p.aiv_count = static_cast<int>(number(cores, "aiv", origin, "cores."));
  p.clock_ghz = number(j, "clock_ghz", origin);
  const json& mem = field(j, "memories", origin, "");
  for (auto space : {ir::MemSpace::Vec, ir::MemSpace::Mat, ir::MemSpace::Left, ir::MemSpace::Right, ir::MemSpace::Acc}) {
    const char* name = ir::mem_space_name(space);
    const json& m = field(mem, name, origin, "memories.");
    auto& lim = p.memory[static_cast<size_t>(space)];
    lim.bytes = static_cast<int64_t>(number(m, "bytes", origin, std::string("memories.") + name + "."));
    lim.align = static_cast<int64_t>(number(m, "align", origin, std::string("memories.") + name + "."));
  }
  const json& bw = field(j, "bandwidth_gibps", origin, "");
  p.gm_to_vec_gibps = number(bw, "gm_to_vec", origin, "bandwidth_gibps.");
  p.gm_to_mat_gibps = number(bw, "gm_to_mat", origin, "bandwidth_gibps.");
  p.vec_to_gm_gibps = number(bw, "vec_to_gm", origin, "bandwidth_gibps.");
  p.acc_to_gm_gibps = number(bw, "acc_to_gm", origin, "bandwidth_gibps.");
  p.mat_to_left_gibps = number(bw, "mat_to_left", origin, "bandwidth_gibps.");
  p.mat_to_right_gibps = number(bw, "mat_to_right", origin, "bandwidth_gibps.");
  // Optional paths: chips without them (a2) have no Acc -> Vec or Vec -> Mat move.
  if (bw.contains("acc_to_vec")) p.acc_to_vec_gibps = number(bw, "acc_to_vec", origin, "bandwidth_gibps.");
  if (bw.contains("vec_to_mat")) p.vec_to_mat_gibps = number(bw, "vec_to_mat", origin, "bandwidth_gibps.");
  p.hbm_gbps = number(j, "hbm_gbps", origin);
  p.vector_bytes_per_cycle = number(j, "vector_bytes_per_cycle", origin);
  const json& cube = field(j, "cube_macs_per_cycle", origin, "");
  p.cube_macs_f16 = number(cube, "f16", origin, "cube_macs_per_cycle.");
  p.cube_macs_bf16 = number(cube, "bf16", origin, "cube_macs_per_cycle.");
  p.cube_macs_f32 = number(cube, "f32", origin, "cube_macs_per_cycle.");
  p.cube_macs_i8 = number(cube, "i8", origin, "cube_macs_per_cycle.");
  p.issue_cycles = number(j, "issue_cycles", origin);
  p.launch_overhead_us = number(j, "launch_overhead_us", origin);
  PTO_USER_CHECK(p.aiv_count > 0 && p.aic_count > 0, ErrorSite{}) << "chip profile " << origin << ": core counts must be positive";
  return p;
}

std::vector<std::string> ChipProfile::builtin_names() { return {"a2", "a5"}; }

const ChipProfile& ChipProfile::get(const std::string& name_or_path) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<ChipProfile>> loaded;
  std::lock_guard lock(mu);
  auto it = loaded.find(name_or_path);
  if (it != loaded.end()) return *it->second;
  ChipProfile p;
  if (name_or_path == "a2") {
    p = from_json(generated::chip_a2_json, "a2 (built in)");
  } else if (name_or_path == "a5") {
    p = from_json(generated::chip_a5_json, "a5 (built in)");
  } else {
    std::ifstream in(name_or_path);
    PTO_USER_CHECK(in.good(), ErrorSite{}) << "unknown chip '" << name_or_path
                                           << "': not a built-in profile (a2, a5) nor a readable JSON file";
    std::stringstream ss;
    ss << in.rdbuf();
    p = from_json(ss.str(), name_or_path);
  }
  p.origin = name_or_path;
  auto& slot = loaded[name_or_path];
  slot = std::make_unique<ChipProfile>(std::move(p));
  return *slot;
}

const ChipProfile& ChipProfile::default_profile() {
  static const ChipProfile& p = get("a2");
  return p;
}

double ChipProfile::cube_macs(DType dtype) const {
  switch (dtype) {
    case DType::f16: return cube_macs_f16;
    case DType::bf16: return cube_macs_bf16;
    case DType::i8: return cube_macs_i8;
    default: return cube_macs_f32;
  }
}

}  // namespace pto
