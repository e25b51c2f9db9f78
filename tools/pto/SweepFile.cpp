#include "SweepFile.hpp"

#include "pto/runtime/JsonFile.hpp"


namespace pto::cli {

nlohmann::json sweep_json(const std::vector<CaseResult>& cases) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : cases) list.push_back(case_json(c));
  return {{"version", kSweepFileVersion}, {"cases", list}};
}

std::vector<CaseResult> load_sweep_file(const std::string& path) {
  std::vector<CaseResult> out;
  read_json_file(path, "sweep results file", "cannot read the sweep results file '" + path + "'", [&](const nlohmann::json& j) {
    PTO_USER_CHECK(j.is_object() && j.value("version", 0) == kSweepFileVersion, ErrorSite{})
        << "'" << path << "' is not a pto sweep results file (version " << kSweepFileVersion << "): write one with pto sweep --save";
    for (const auto& c : j.at("cases")) out.push_back(case_from_json(c));
  });
  return out;
}

}  // namespace pto::cli
