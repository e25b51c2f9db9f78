#pragma once
// The samples the `pto` command line knows, by name.
#include <string>
#include <vector>

#include "common/Sample.hpp"

namespace pto::cli {

const std::vector<samples::SampleInfo>& all_samples();
/// The sample called `name`; a UserError listing the known names otherwise.
const samples::SampleInfo& find_sample(const std::string& name);

/// "1024x512" -> {1024, 512}; a UserError on anything else.
std::vector<int64_t> parse_shape(const std::string& text);
std::string shape_string(const std::vector<int64_t>& shape);
DType parse_dtype(const std::string& text);

}  // namespace pto::cli
