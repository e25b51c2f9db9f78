#include "SweepFile.hpp"

#include <fstream>
#include <sstream>

namespace pto::cli {

nlohmann::json sweep_json(const std::vector<CaseResult>& cases) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : cases) list.push_back(case_json(c));
  return {{"version", kSweepFileVersion}, {"cases", list}};
}

std::vector<CaseResult> load_sweep_file(const std::string& path) {
  std::ifstream in(path);
  PTO_USER_CHECK(in.good(), ErrorSite{}) << "cannot read the sweep results file '" << path << "'";
  std::stringstream text;
  text << in.rdbuf();
  std::vector<CaseResult> out;
  try {
    const auto j = nlohmann::json::parse(text.str());
    PTO_USER_CHECK(j.is_object() && j.value("version", 0) == kSweepFileVersion, ErrorSite{})
        << "'" << path << "' is not a pto sweep results file (version " << kSweepFileVersion << "): write one with pto sweep --save";
    for (const auto& c : j.at("cases")) out.push_back(case_from_json(c));
  } catch (const nlohmann::json::exception& e) {
    throw UserError("'" + path + "' is not a valid sweep results file: " + std::string(e.what()).substr(std::string(e.what()).find(']') + 2), {});
  } catch (const UserError& e) {
    if (e.reason().rfind("'" + path + "'", 0) == 0) throw;
    throw UserError("'" + path + "' is not a valid sweep results file: " + e.reason(), {});
  }
  return out;
}

}  // namespace pto::cli
