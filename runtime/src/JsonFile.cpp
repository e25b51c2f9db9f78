#include "JsonFile.hpp"

#include <fstream>
#include <sstream>

#include "pto/support/Error.hpp"

namespace pto {

void read_json_file(const std::filesystem::path& path, const std::string& kind, const std::string& missing,
                    const std::function<void(const nlohmann::json&)>& read) {
  std::ifstream in(path);
  PTO_USER_CHECK(in.good(), ErrorSite{}) << missing;
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    read(nlohmann::json::parse(ss.str()));
  } catch (const nlohmann::json::exception& e) {
    std::string why = e.what();
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);  // drop "[json.exception.x.y] "
    PTO_USER_CHECK(false, ErrorSite{}) << "'" << path.string() << "' is not a valid " << kind << ": " << why;
  }
}

}  // namespace pto
