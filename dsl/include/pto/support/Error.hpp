#pragma once
// The two error families, as in Halide: `UserError` for the kernel author's mistakes (misuse of
// the language, bad shapes, dtypes, block_dim, capacity, alignment, out-of-bounds, ...) and
// `InternalError` for PTO-JIT's own bugs. A user error's message names the kernel, the
// specialisation, and where they apply the core, pipe, instruction and the user's source line.
#include <cstdint>
#include <source_location>
#include <sstream>
#include <stdexcept>
#include <string>

namespace pto {

/// Where in the user's source an IR node came from.
struct SourceLoc {
  std::string file;
  uint32_t line = 0;

  static SourceLoc from(const std::source_location& l) { return {l.file_name(), l.line()}; }
  bool known() const { return line != 0; }
  std::string str() const;  // "file:line", the file shortened to its last two path components
};

/// What a user error is about: filled as far as it is known where the error is raised.
struct ErrorSite {
  std::string kernel;          // "vadd"
  std::string specialization;  // "x:f32[4096], y:f32[4096], z:f32[4096]"
  int core = -1;               // block index of the failing core
  std::string core_kind;       // "AIV", "AIC"
  std::string pipe;            // "MTE2", "V", ...
  std::string instruction;     // "#3 load xs[slot] <- x[...]"
  SourceLoc loc;
};

class UserError : public std::runtime_error {
 public:
  UserError(std::string what, ErrorSite site);
  const std::string& reason() const { return reason_; }
  const ErrorSite& site() const { return site_; }

 private:
  std::string reason_;
  ErrorSite site_;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

std::string format_user_error(const std::string& reason, const ErrorSite& site);

namespace detail {
/// Builds a message only when a check fails: `PTO_USER_CHECK(cond, site) << "text " << n;`
class ErrorBuilder {
 public:
  ErrorBuilder(bool user, ErrorSite site) : user_(user), site_(std::move(site)) {}
  template <class T> ErrorBuilder& operator<<(const T& v) { out_ << v; return *this; }
  [[noreturn]] ~ErrorBuilder() noexcept(false);

 private:
  bool user_;
  ErrorSite site_;
  std::ostringstream out_;
};
}  // namespace detail

}  // namespace pto

#define PTO_USER_CHECK(cond, site) \
  if (cond) {                      \
  } else                           \
    ::pto::detail::ErrorBuilder(true, (site))

#define PTO_INTERNAL_CHECK(cond)                                             \
  if (cond) {                                                                \
  } else                                                                     \
    ::pto::detail::ErrorBuilder(false, {}) << __FILE__ << ":" << __LINE__ << ": internal check '" #cond "' failed: "
