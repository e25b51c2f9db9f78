#include "pto/support/Error.hpp"

#include <fmt/format.h>

namespace pto {

std::string SourceLoc::str() const {
  if (!known()) return "<unknown>";
  std::string_view f = file;
  // Keep the last two path components: enough to find the file, short enough to read.
  size_t cut = f.rfind('/');
  if (cut != std::string_view::npos && cut > 0) {
    size_t prev = f.rfind('/', cut - 1);
    if (prev != std::string_view::npos) f = f.substr(prev + 1);
  }
  return fmt::format("{}:{}", f, line);
}

std::string format_user_error(const std::string& reason, const ErrorSite& site) {
  std::string out = "pto: ";
  if (!site.kernel.empty()) {
    out += fmt::format("kernel '{}'", site.kernel);
    if (!site.specialization.empty()) out += fmt::format(" ({})", site.specialization);
    out += ": ";
  }
  out += reason;
  if (site.core >= 0) out += fmt::format("\n  core: {} {}", site.core_kind.empty() ? "core" : site.core_kind, site.core);
  if (!site.pipe.empty()) out += fmt::format("\n  pipe: {}", site.pipe);
  if (!site.instruction.empty()) out += fmt::format("\n  instruction: {}", site.instruction);
  if (site.loc.known()) out += fmt::format("\n  at: {}", site.loc.str());
  return out;
}

UserError::UserError(std::string what, ErrorSite site)
    : std::runtime_error(format_user_error(what, site)), reason_(std::move(what)), site_(std::move(site)) {}

namespace detail {
ErrorBuilder::~ErrorBuilder() noexcept(false) {
  if (user_) throw UserError(out_.str(), std::move(site_));
  throw InternalError("pto internal error: " + out_.str());
}
}  // namespace detail

}  // namespace pto
