#include "pto/support/DebugFormat.hpp"

#include <cinttypes>
#include <cstdio>

namespace pto {
namespace {

/// Walks `format`, calling out(literal text) and arg(conversion char) in order; false on a bad spec.
template <class Literal, class Arg>
bool walk(const std::string& f, Literal&& out, Arg&& arg, std::string* error) {
  for (size_t i = 0; i < f.size(); ++i) {
    const char c = f[i];
    if (c == '{' && i + 1 < f.size() && f[i + 1] == '{') {
      out('{');
      ++i;
    } else if (c == '}' && i + 1 < f.size() && f[i + 1] == '}') {
      out('}');
      ++i;
    } else if (c == '{' && i + 1 < f.size() && f[i + 1] == '}') {
      arg('d');
      ++i;
    } else if (c == '%') {
      size_t j = i + 1;
      if (j < f.size() && f[j] == '%') {
        out('%');
        i = j;
        continue;
      }
      while (j < f.size() && f[j] == 'l') ++j;
      if (j >= f.size() || std::string_view("diuxX").find(f[j]) == std::string_view::npos) {
        if (error) *error = "unsupported conversion at \"" + f.substr(i, std::min<size_t>(4, f.size() - i)) +
                            "\": use %d, %i, %u, %x, %X (with optional l/ll) or {}; arguments are 64-bit integers";
        return false;
      }
      arg(f[j]);
      i = j;
    } else {
      out(c);
    }
  }
  return true;
}

}  // namespace

std::optional<int> count_debug_placeholders(const std::string& format, std::string* error) {
  int n = 0;
  if (!walk(format, [](char) {}, [&](char) { ++n; }, error)) return std::nullopt;
  return n;
}

std::string format_debug(const std::string& format, const int64_t* args, int count) {
  std::string out;
  int next = 0;
  walk(format, [&](char c) { out += c; },
       [&](char conv) {
         const int64_t v = next < count ? args[next] : 0;
         ++next;
         char buf[32];
         switch (conv) {
           case 'u': std::snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(v)); break;
           case 'x': std::snprintf(buf, sizeof buf, "%" PRIx64, static_cast<uint64_t>(v)); break;
           case 'X': std::snprintf(buf, sizeof buf, "%" PRIX64, static_cast<uint64_t>(v)); break;
           default: std::snprintf(buf, sizeof buf, "%" PRId64, v); break;
         }
         out += buf;
       },
       nullptr);
  return out;
}

}  // namespace pto
