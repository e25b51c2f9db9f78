#include "pto/runtime/Package.hpp"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pto/runtime/JsonFile.hpp"
#include "pto/runtime/Pipeline.hpp"
#include "pto/runtime/TierUp.hpp"

namespace pto {
namespace fs = std::filesystem;

namespace {

struct OpenPackage {
  std::string dir;
  PackageOptions options;
  std::unique_ptr<DiskCache> objects;
};

std::mutex open_mu;
std::vector<OpenPackage>& open_packages() {
  static std::vector<OpenPackage> list;
  return list;
}

}  // namespace

std::string PackageSummary::str() const {
  std::string out = fmt::format("package {}: {} keys, {} bytes of objects, {:.1f} ms of first compilation\n", dir, keys, bytes, compile_ms);
  for (const auto& e : entries) out += fmt::format("  {:<12} {:>7} B {:>8.2f} ms  {}\n", e.kernel, e.bytes, e.compile_ms, e.specialization);
  for (const auto& w : warnings) out += fmt::format("warning: {}\n", w);
  return out;
}

PackageBuilder::PackageBuilder(std::string dir) : dir_(std::move(dir)), objects_((fs::path(dir_) / "objects").string()) {
  PTO_USER_CHECK(objects_.enabled(), ErrorSite{}) << "cannot create the package directory '" << dir_ << "'";
}

void PackageBuilder::add_compiled(const CompiledKernel& ck) {
  PTO_INTERNAL_CHECK(!ck.object.empty() && !ck.object_key.empty()) << "a compiled kernel without its object";
  if (ck.quick) {  // a package serves optimised code: a quick-tier kernel's is compiled now
    backend::ObjectCode full;
    detail::compile_for_cache(ck.ir, *ck.chip, ck.tier_up->options, /*quick=*/false, ck.object_key, full);
    objects_.store(ck.object_key, ck.ir.name, full.symbol, full.bytes, ck.cold.total_ms());
  } else {
    objects_.store(ck.object_key, ck.ir.name, ck.symbol, ck.object, ck.cold.total_ms());
  }
  for (const auto& e : entries_) {
    if (e.kernel == ck.ir.name && e.specialization == ck.ir.specialization) return;  // added before
  }
  entries_.push_back({ck.ir.name, ck.ir.specialization, "", ck.object.size(), ck.cold.total_ms()});
}

namespace {
std::vector<std::string> delivery_warnings(const std::vector<PackageEntry>& entries, uint64_t total_bytes, const PackageLimits& limits) {
  std::vector<std::string> out;
  for (const auto& e : entries) {
    if (limits.max_object_bytes > 0 && e.bytes > limits.max_object_bytes) {
      out.push_back(fmt::format("{} ({}): object is {} B, over the limit of {} B", e.kernel, e.specialization, e.bytes, limits.max_object_bytes));
    }
    if (limits.max_compile_ms > 0 && e.compile_ms > limits.max_compile_ms) {
      out.push_back(fmt::format("{} ({}): first compile took {:.1f} ms, over the limit of {:.1f} ms", e.kernel, e.specialization,
                                e.compile_ms, limits.max_compile_ms));
    }
  }
  if (limits.max_total_bytes > 0 && total_bytes > limits.max_total_bytes) {
    out.push_back(fmt::format("the package's objects are {} B, over the limit of {} B", total_bytes, limits.max_total_bytes));
  }
  if (limits.max_keys > 0 && entries.size() > limits.max_keys) {
    out.push_back(fmt::format("the package holds {} specialisations (keys), over the limit of {}; the tuning guide: keep TilingKeys few, "
                              "make a wide runtime range a dynamic value rather than keys",
                              entries.size(), limits.max_keys));
  }
  return out;
}
}  // namespace

PackageSummary PackageBuilder::finish(const PackageLimits& limits) {
  nlohmann::json entries = nlohmann::json::array();
  uint64_t entry_bytes = 0;
  double compile_ms = 0;
  for (const auto& e : entries_) {
    entries.push_back({{"kernel", e.kernel}, {"specialization", e.specialization}, {"bytes", e.bytes}, {"compile_ms", e.compile_ms}});
    entry_bytes += e.bytes;
    compile_ms += e.compile_ms;
  }
  const uint64_t total_bytes = objects_.stats().bytes;
  const auto warnings = delivery_warnings(entries_, total_bytes, limits);
  std::ofstream out(fs::path(dir_) / "manifest.json");
  PTO_USER_CHECK(out.good(), ErrorSite{}) << "cannot write " << (fs::path(dir_) / "manifest.json").string();
  out << nlohmann::json{{"format", "pto-package-1"},
                        {"entries", entries},
                        {"totals", {{"keys", entries_.size()}, {"bytes", total_bytes}, {"object_bytes", entry_bytes}, {"compile_ms", compile_ms}}},
                        {"limits",
                         {{"max_object_bytes", limits.max_object_bytes},
                          {"max_total_bytes", limits.max_total_bytes},
                          {"max_keys", limits.max_keys},
                          {"max_compile_ms", limits.max_compile_ms}}},
                        {"warnings", warnings}}
             .dump(2);
  out.close();
  return Package::summary(dir_);
}

PackageSummary Package::summary(const std::string& dir) {
  PackageSummary s;
  s.dir = dir;
  read_json_file(fs::path(dir) / "manifest.json", "package manifest", "'" + dir + "' is not a PTO package: manifest.json is missing",
                 [&](const nlohmann::json& j) {
                   for (const auto& e : j.at("entries")) {
                     s.entries.push_back({e.at("kernel"), e.at("specialization"), "", e.at("bytes"), e.at("compile_ms")});
                     s.compile_ms += s.entries.back().compile_ms;
                   }
                   s.warnings = j.value("warnings", std::vector<std::string>{});
                 });
  s.keys = s.entries.size();
  s.bytes = DiskCache((fs::path(dir) / "objects").string()).stats().bytes;
  return s;
}

PackageSummary Package::open(const std::string& dir, PackageOptions options) {
  PackageSummary s = summary(dir);
  std::lock_guard lock(open_mu);
  open_packages().push_back({dir, options, std::make_unique<DiskCache>((fs::path(dir) / "objects").string())});
  return s;
}

void Package::close_all() {
  std::lock_guard lock(open_mu);
  open_packages().clear();
}

std::optional<std::string> Package::lookup(const std::string& key, std::string* symbol, const ErrorSite& site) {
  std::lock_guard lock(open_mu);
  if (open_packages().empty()) return std::nullopt;
  bool strict = false;
  for (auto& p : open_packages()) {
    if (auto object = p.objects->load(key, symbol)) return object;
    strict |= p.options.fallback == PackageFallback::error;
  }
  PTO_USER_CHECK(!strict, site) << "this specialisation is not in the open package(s) (" << open_packages().front().dir
                                << ", ...) and they were opened with fallback = error; add it to the package with pto aot "
                                   "or PackageBuilder, or open them with fallback = jit";
  return std::nullopt;
}

}  // namespace pto
