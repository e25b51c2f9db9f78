#pragma once
// Running a shell command from a test, as a user would at a prompt: its output and how it ended.
#include <cstdio>
#include <memory>
#include <string>

#include <sys/wait.h>

namespace pto::test {

struct ShellResult {
  int status;       // the exit status; 128 + the signal's number when a signal ended it (139: a crash)
  std::string out;  // what it printed on stdout (and on stderr, when the command redirects it there)
};

/// Runs `cmd` with /bin/sh and waits for it.
inline ShellResult shell(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return {-1, "popen failed: " + cmd};
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe.get())) out.append(buf, n);
  const int raw = pclose(pipe.release());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : WIFSIGNALED(raw) ? 128 + WTERMSIG(raw) : raw, std::move(out)};
}

}  // namespace pto::test
