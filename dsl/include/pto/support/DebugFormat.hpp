#pragma once
// The format strings of pl::printf and pl::pto_assert: C-style %d %i %u %x %X %ld %lld %lu %llx ...
// or {} placeholders, each taking one 64-bit integer argument; %% and {{ }} are literal.
#include <cstdint>
#include <optional>
#include <string>

namespace pto {

/// The number of placeholders of `format`, or nullopt with `error` set when it is malformed.
std::optional<int> count_debug_placeholders(const std::string& format, std::string* error);
/// `format` with its placeholders replaced by `args` (the caller checked the count).
std::string format_debug(const std::string& format, const int64_t* args, int count);

}  // namespace pto
