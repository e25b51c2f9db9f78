#pragma once
// The format strings of pl::printf and pl::pto_assert, C style: %d %i %u %x %X (with l/ll) take an
// integer, %f %F %e %E %g %G a float, %p a tensor (its GM address); each may carry flags, a width
// and a precision ("%-8.3f", "%08x"). {} takes any argument (%lld for an integer, %g for a float,
// %p for a tensor); %% and {{ }} are literal. Arguments travel as 64-bit words: an integer's value,
// a float's bits, a tensor's parameter index.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

/// What a printf argument is.
enum class DebugArgKind : uint8_t { Integer, Float, Tensor };

/// `format` with every {} spelled as the conversion its argument takes, checked against `kinds`
/// (one per argument); nullopt with `error` set when a spec is malformed, the count differs, or
/// a conversion does not fit its argument (`error` reads on after the quoted format: ": ..." or " has ...").
std::optional<std::string> normalize_debug_format(const std::string& format, const std::vector<DebugArgKind>& kinds,
                                                  std::string* error);
/// A normalised `format` with its placeholders replaced by `args`; `address` turns a %p
/// argument (a tensor's index) into its address.
std::string format_debug(const std::string& format, const int64_t* args, int count,
                         const std::function<uint64_t(int64_t)>& address = {});

}  // namespace pto
