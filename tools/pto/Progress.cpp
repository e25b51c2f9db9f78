#include "Progress.hpp"

#include <cstdio>

#include <fmt/format.h>
#include <unistd.h>

#include "Ranks.hpp"

namespace pto::cli {

Progress::Progress(std::string what, int total, bool json)
    : what_(std::move(what)),
      total_(total),
      shown_(!json && Ranks::root() && isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(int done, int failures) {
  if (!shown_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total_ && now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? done / seconds : 0;
  const double left = rate > 0 ? (total_ - done) / rate : 0;
  fmt::print(stderr, "\r\033[K{}: {}/{} cases, {:.1f}/s, {:.0f} s left, {} failed", what_, done, total_, rate, left, failures);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace pto::cli
