#include "pto/support/DebugFormat.hpp"

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <string_view>

namespace pto {
namespace {

/// A placeholder: the text between '%' and the conversion (flags, width, precision, length), and
/// the conversion; '{' for {}.
struct Spec {
  std::string options;
  char conv;
};

DebugArgKind kind_of(char conv) {
  if (std::string_view("fFeEgG").find(conv) != std::string_view::npos) return DebugArgKind::Float;
  if (conv == 'p') return DebugArgKind::Tensor;
  return DebugArgKind::Integer;
}

/// Walks `f`, calling out(literal char) and arg(spec) in order; false (with `error`) on a bad spec.
template <class Literal, class Arg>
bool walk(const std::string& f, Literal&& out, Arg&& arg, std::string* error) {
  for (size_t i = 0; i < f.size(); ++i) {
    const char c = f[i];
    const char next = i + 1 < f.size() ? f[i + 1] : '\0';
    if ((c == '{' && next == '{') || (c == '}' && next == '}')) {
      out(c);
      ++i;
    } else if (c == '{' && next == '}') {
      arg(Spec{"", '{'});
      ++i;
    } else if (c == '%' && next == '%') {
      out('%');
      ++i;
    } else if (c == '%') {
      size_t j = i + 1;
      while (j < f.size() && std::string_view("-+ #0").find(f[j]) != std::string_view::npos) ++j;
      while (j < f.size() && f[j] >= '0' && f[j] <= '9') ++j;
      if (j < f.size() && f[j] == '.') {
        ++j;
        while (j < f.size() && f[j] >= '0' && f[j] <= '9') ++j;
      }
      const size_t length = j;
      while (j < f.size() && f[j] == 'l') ++j;
      if (j >= f.size() || std::string_view("diuxXfFeEgGp").find(f[j]) == std::string_view::npos) {
        if (error) {
          *error = ": unsupported conversion at \"" + f.substr(i, std::min<size_t>(j - i + 1, f.size() - i)) +
                   "\": use %d %i %u %x %X (integers, with optional l/ll), %f %e %g (floats), %p (a tensor) or {}, "
                   "with optional flags, width and precision";
        }
        return false;
      }
      arg(Spec{f.substr(i + 1, length - i - 1), f[j]});
      i = j;
    } else {
      out(c);
    }
  }
  return true;
}

const char* kind_name(DebugArgKind k) {
  switch (k) {
    case DebugArgKind::Integer: return "an integer";
    case DebugArgKind::Float: return "a float";
    case DebugArgKind::Tensor: return "a tensor";
  }
  return "?";
}

}  // namespace

std::optional<std::string> normalize_debug_format(const std::string& format, const std::vector<DebugArgKind>& kinds,
                                                  std::string* error) {
  std::string out;
  size_t n = 0;
  bool fits = true;
  const bool ok = walk(format, [&](char c) { out += c == '%' ? "%%" : c == '{' ? "{{" : c == '}' ? "}}" : std::string(1, c); },
                       [&](const Spec& s) {
                         const DebugArgKind want = n < kinds.size() ? kinds[n] : DebugArgKind::Integer;
                         if (s.conv == '{') {
                           out += want == DebugArgKind::Float ? "%g" : want == DebugArgKind::Tensor ? "%p" : "%lld";
                         } else {
                           if (n < kinds.size() && kind_of(s.conv) != want && fits) {
                             fits = false;
                             if (error) {
                               *error = ": placeholder " + std::to_string(n + 1) + " (%" + s.options + s.conv + ") takes " +
                                        kind_name(kind_of(s.conv)) + " but argument " + std::to_string(n + 1) + " is " +
                                        kind_name(want);
                             }
                           }
                           out += "%" + s.options + s.conv;
                         }
                         ++n;
                       },
                       error);
  if (!ok || !fits) return std::nullopt;
  if (n != kinds.size()) {
    if (error) *error = " has " + std::to_string(n) + " placeholders but " + std::to_string(kinds.size()) + " arguments";
    return std::nullopt;
  }
  return out;
}

std::string format_debug(const std::string& format, const int64_t* args, int count, const std::function<uint64_t(int64_t)>& address) {
  std::string out;
  int next = 0;
  walk(format, [&](char c) { out += c; },
       [&](const Spec& s) {
         const int64_t v = next < count ? args[next] : 0;
         ++next;
         std::string options = s.options;
         while (!options.empty() && options.back() == 'l') options.pop_back();  // the length is ours to choose
         char buf[128];
         const std::string spec = "%" + options;
         switch (kind_of(s.conv)) {
           case DebugArgKind::Float:
             std::snprintf(buf, sizeof buf, (spec + s.conv).c_str(),
                           static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v))));
             break;
           case DebugArgKind::Tensor:
             std::snprintf(buf, sizeof buf, ("%#" + options + PRIx64).c_str(), address ? address(v) : static_cast<uint64_t>(v));
             break;
           case DebugArgKind::Integer: {
             const char* conv = s.conv == 'u' ? PRIu64 : s.conv == 'x' ? PRIx64 : s.conv == 'X' ? PRIX64 : PRId64;
             std::snprintf(buf, sizeof buf, (spec + conv).c_str(), v);
             break;
           }
         }
         out += buf;
       },
       nullptr);
  return out;
}

}  // namespace pto
