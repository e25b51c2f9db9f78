#include "pto/backend/ChipProfile.hpp"

#include <algorithm>
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
  const double d = v.get<double>();
  PTO_USER_CHECK(d >= 0, ErrorSite{}) << "chip profile " << origin << ": field '" << path << key << "' is negative (" << d << ")";
  return d;
}

ir::Layout layout_named(const json& v, const std::string& origin, const std::string& at) {
  PTO_USER_CHECK(v.is_string(), ErrorSite{}) << "chip profile " << origin << ": field '" << at << "' is not a layout name";
  for (int l = 1; l < ir::kLayoutCount; ++l) {
    if (v.get<std::string>() == ir::layout_name(static_cast<ir::Layout>(l))) return static_cast<ir::Layout>(l);
  }
  throw UserError("chip profile " + origin + ": field '" + at + "' names layout '" + v.get<std::string>() +
                      "'; the layouts are ND, DN, NZ, ZN, ZZ, NN",
                  {});
}

uint8_t layout_set(const json& list, const std::string& origin, const std::string& at) {
  PTO_USER_CHECK(list.is_array(), ErrorSite{}) << "chip profile " << origin << ": field '" << at << "' is not a list of layouts";
  uint8_t bits = 0;
  for (const auto& v : list) bits |= static_cast<uint8_t>(1u << static_cast<int>(layout_named(v, origin, at)));
  return bits;
}

/// The "layouts" section (optional: a profile without one takes PyPTO Pro's a2/a3 defaults, every
/// layout in every memory, and conversions at full rate).
LayoutRules parse_layouts(const json& j, const std::string& origin) {
  using ir::Layout;
  using ir::MemSpace;
  LayoutRules r;
  r.defaults = {Layout::ND, Layout::ND, Layout::NZ, Layout::ZZ, Layout::ZN, Layout::NZ};
  r.allowed.fill(0x7e);
  if (!j.contains("layouts")) return r;
  const json& lj = j.at("layouts");
  const json& defaults = field(lj, "defaults", origin, "layouts.");
  const json& allowed = field(lj, "allowed", origin, "layouts.");
  for (auto space : {MemSpace::Vec, MemSpace::Mat, MemSpace::Left, MemSpace::Right, MemSpace::Acc}) {
    const char* name = ir::mem_space_name(space);
    const auto i = static_cast<size_t>(space);
    r.defaults[i] = layout_named(field(defaults, name, origin, "layouts.defaults."), origin, std::string("layouts.defaults.") + name);
    r.allowed[i] = layout_set(field(allowed, name, origin, "layouts.allowed."), origin, std::string("layouts.allowed.") + name);
    PTO_USER_CHECK(r.allows(space, r.defaults[i]), ErrorSite{}) << "chip profile " << origin << ": the default layout of " << name
                                                                << " is not among its allowed layouts";
  }
  if (lj.contains("rejected_in_cube")) {
    r.rejected_in_cube = layout_set(field(lj.at("rejected_in_cube"), "value", origin, "layouts.rejected_in_cube."), origin,
                                    "layouts.rejected_in_cube.value");
  }
  const json& conv = field(lj, "conversions", origin, "layouts.");
  const json& nd2nz = field(conv, "nd2nz", origin, "layouts.conversions.");
  r.nd2nz_efficiency = number(nd2nz, "efficiency", origin, "layouts.conversions.nd2nz.");
  r.nd2nz_unaligned_efficiency = number(nd2nz, "unaligned_efficiency", origin, "layouts.conversions.nd2nz.");
  r.nd2nz_aligned_bytes = static_cast<int64_t>(number(nd2nz, "aligned_bytes", origin, "layouts.conversions.nd2nz."));
  r.nz2nd_efficiency = number(field(conv, "nz2nd", origin, "layouts.conversions."), "efficiency", origin, "layouts.conversions.nz2nd.");
  const json& tr = field(conv, "transpose", origin, "layouts.conversions.");
  r.transpose_efficiency = number(tr, "efficiency", origin, "layouts.conversions.transpose.");
  r.transpose_efficiency_32bit = number(tr, "efficiency_32bit", origin, "layouts.conversions.transpose.");
  for (double e : {r.nd2nz_efficiency, r.nd2nz_unaligned_efficiency, r.nz2nd_efficiency, r.transpose_efficiency,
                   r.transpose_efficiency_32bit}) {
    PTO_USER_CHECK(e > 0 && e <= 1, ErrorSite{}) << "chip profile " << origin << ": a conversion's efficiency is in (0, 1], got " << e;
  }
  PTO_USER_CHECK(r.nd2nz_aligned_bytes > 0, ErrorSite{}) << "chip profile " << origin
                                                         << ": field 'layouts.conversions.nd2nz.aligned_bytes' must be positive";
  return r;
}

}  // namespace

double LayoutRules::efficiency(ir::Conversion c, DType dtype, int64_t gm_row_bytes) const {
  switch (c) {
    case ir::Conversion::Nd2Nz: return gm_row_bytes % nd2nz_aligned_bytes == 0 ? nd2nz_efficiency : nd2nz_unaligned_efficiency;
    case ir::Conversion::Nz2Nd: return nz2nd_efficiency;
    case ir::Conversion::Transpose: return dtype_size(dtype) >= 4 ? transpose_efficiency_32bit : transpose_efficiency;
    case ir::Conversion::None: break;
  }
  return 1;
}

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
  const json& paths = field(j, "paths", origin, "");
  for (int i = 0; i < kPathCount; ++i) {
    const auto id = static_cast<PathId>(i);
    const char* key = path_name(id);
    // Acc -> Vec and Vec -> Mat are optional: chips without them (a2) pass data through GM.
    if ((id == PathId::AccToVec || id == PathId::VecToMat) && !paths.contains(key)) continue;
    const std::string at = std::string("paths.") + key + ".";
    const json& pj = field(paths, key, origin, "paths.");
    auto& path = p.paths[static_cast<size_t>(i)];
    path.peak_bytes_per_cycle = number(pj, "peak_bytes_per_cycle", origin, at);
    path.latency_cycles = number(pj, "latency_cycles", origin, at);
    PTO_USER_CHECK(path.peak_bytes_per_cycle > 0, ErrorSite{}) << "chip profile " << origin << ": field '" << at
                                                               << "peak_bytes_per_cycle' must be positive";
  }
  const json& vec = field(j, "vector", origin, "");
  p.vector_repeat_bytes = number(vec, "repeat_bytes", origin, "vector.");
  p.vector_unaligned_cycles = number(vec, "unaligned_cycles", origin, "vector.");
  const json& ops = field(vec, "ops", origin, "vector.");
  for (int i = 0; i < ir::kVecOpCount; ++i) {
    const char* key = ir::vec_op_name(static_cast<ir::VecOp>(i));
    const std::string at = std::string("vector.ops.") + key + ".";
    const json& oj = field(ops, key, origin, "vector.ops.");
    auto& c = p.vector_ops[static_cast<size_t>(i)];
    c.head = number(oj, "head", origin, at);
    c.per_repeat = number(oj, "per_repeat", origin, at);
    c.per_repeat_16bit = number(oj, "per_repeat_16bit", origin, at);
  }
  PTO_USER_CHECK(p.vector_repeat_bytes > 0, ErrorSite{}) << "chip profile " << origin << ": field 'vector.repeat_bytes' must be positive";
  // Optional (profiles written before vector functions): the largest operation head.
  p.vector_vf_head_cycles = 0;
  for (const auto& c : p.vector_ops) p.vector_vf_head_cycles = std::max(p.vector_vf_head_cycles, c.head);
  if (vec.contains("vf_head_cycles")) p.vector_vf_head_cycles = number(vec, "vf_head_cycles", origin, "vector.");
  p.vector_vf_op_cycles = vec.contains("vf_op_cycles") ? number(vec, "vf_op_cycles", origin, "vector.") : 1.0;
  const json& cube = field(j, "cube", origin, "");
  p.cube_head_cycles = number(cube, "head_cycles", origin, "cube.");
  const std::pair<const char*, CubeRate*> rates[] = {{"f16", &p.cube_f16}, {"bf16", &p.cube_bf16}, {"f32", &p.cube_f32}, {"i8", &p.cube_i8}};
  for (const auto& [key, rate] : rates) {
    const std::string at = std::string("cube.") + key + ".";
    const json& cj = field(cube, key, origin, "cube.");
    rate->k0 = number(cj, "k0", origin, at);
    rate->cycles = number(cj, "cycles_per_fractal", origin, at);
    PTO_USER_CHECK(rate->k0 > 0 && rate->cycles > 0, ErrorSite{}) << "chip profile " << origin << ": field '" << at
                                                                  << "k0' and 'cycles_per_fractal' must be positive";
  }
  const json& l2 = field(j, "l2", origin, "");
  p.l2_bytes = static_cast<int64_t>(number(l2, "bytes", origin, "l2."));
  p.l2_line_bytes = static_cast<int64_t>(number(l2, "line_bytes", origin, "l2."));
  p.l2_ways = static_cast<int>(number(l2, "ways", origin, "l2."));
  p.l2_gbps = number(l2, "gbps", origin, "l2.");
  PTO_USER_CHECK(p.l2_line_bytes > 0 && p.l2_ways > 0 && p.l2_gbps > 0, ErrorSite{})
      << "chip profile " << origin << ": fields 'l2.line_bytes', 'l2.ways' and 'l2.gbps' must be positive";
  const json& hbm = field(j, "hbm", origin, "");
  p.hbm_gbps = number(hbm, "sustained_gbps", origin, "hbm.");
  p.hbm_peak_gbps = number(hbm, "peak_gbps", origin, "hbm.");
  PTO_USER_CHECK(p.hbm_gbps > 0, ErrorSite{}) << "chip profile " << origin << ": field 'hbm.sustained_gbps' must be positive";
  const json& launch = field(j, "launch", origin, "");
  p.launch_overhead_us = number(launch, "fixed_us", origin, "launch.");
  p.block_dispatch_cycles = number(launch, "block_dispatch_cycles", origin, "launch.");
  p.sync_all_cycles = number(launch, "sync_all_cycles", origin, "launch.");
  p.issue_cycles = number(j, "issue_cycles", origin);
  p.layouts = parse_layouts(j, origin);
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

const char* path_name(PathId p) {
  static constexpr const char* kNames[kPathCount] = {"gm_to_vec",  "gm_to_mat",    "vec_to_gm",  "acc_to_gm",
                                                     "mat_to_left", "mat_to_right", "acc_to_vec", "vec_to_mat"};
  return kNames[static_cast<int>(p)];
}

PathId load_path(ir::MemSpace dst) { return dst == ir::MemSpace::Mat ? PathId::GmToMat : PathId::GmToVec; }
PathId store_path(ir::MemSpace src) { return src == ir::MemSpace::Acc ? PathId::AccToGm : PathId::VecToGm; }
PathId move_path(ir::MemSpace dst, ir::MemSpace src) {
  if (dst == ir::MemSpace::Right) return PathId::MatToRight;
  if (dst == ir::MemSpace::Vec && src == ir::MemSpace::Acc) return PathId::AccToVec;
  if (dst == ir::MemSpace::Mat && src == ir::MemSpace::Vec) return PathId::VecToMat;
  return PathId::MatToLeft;
}

const CubeRate& ChipProfile::cube_rate(DType dtype) const {
  switch (dtype) {
    case DType::f16: return cube_f16;
    case DType::bf16: return cube_bf16;
    case DType::i8: return cube_i8;
    default: return cube_f32;
  }
}

double ChipProfile::cube_macs(DType dtype) const {
  const CubeRate& r = cube_rate(dtype);
  return 16.0 * r.k0 * 16.0 / r.cycles;
}

double ChipProfile::vector_bytes_per_cycle() const {
  const double slope = vector_op(ir::VecOp::Binary).per_repeat;
  return slope > 0 ? vector_repeat_bytes / slope : vector_repeat_bytes;
}

}  // namespace pto
