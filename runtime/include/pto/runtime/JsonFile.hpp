#pragma once
// Reading the JSON files a user hands the tools (profile.json, a package's manifest.json): a file
// that is missing, not JSON, or not of the expected shape is a pto::UserError naming the file,
// never an escaping nlohmann exception.
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace pto {

/// Parses `path` and hands it to `read`, which may use .at() and get<>() freely: a parse error, a
/// missing or mistyped field, or a UserError `read` raises becomes "'PATH' is not a valid KIND:
/// ..." (KIND e.g. "profile"; a UserError that already starts with 'PATH' passes as it is). A
/// directory is "'PATH' is a directory, not a KIND"; `missing` is the message when the file
/// cannot be opened.
void read_json_file(const std::filesystem::path& path, const std::string& kind, const std::string& missing,
                    const std::function<void(const nlohmann::json&)>& read);

}  // namespace pto
