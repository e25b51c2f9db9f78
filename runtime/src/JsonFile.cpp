#include "pto/runtime/JsonFile.hpp"

#include <fstream>
#include <sstream>

#include "pto/support/Error.hpp"

namespace pto {

void read_json_file(const std::filesystem::path& path, const std::string& kind, const std::string& missing,
                    const std::function<void(const nlohmann::json&)>& read) {
  std::error_code ec;
  PTO_USER_CHECK(!std::filesystem::is_directory(path, ec), ErrorSite{}) << "'" << path.string() << "' is a directory, not a " << kind;
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
  } catch (const UserError& e) {  // a value `read` refused: name the file, once
    if (e.reason().rfind("'" + path.string() + "'", 0) == 0) throw;
    PTO_USER_CHECK(false, ErrorSite{}) << "'" << path.string() << "' is not a valid " << kind << ": " << e.reason();
  }
}

}  // namespace pto
