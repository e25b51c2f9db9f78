#pragma once
// Running the `pto` command line as a user does, for the CLI tests: exit status and output.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/Shell.hpp"

#include <sys/wait.h>
#include <unistd.h>

namespace pto_cli_test {

struct Output {
  int status;
  std::string text;
};

/// Runs the CLI; `stderr_to` is the shell redirection of its stderr (default: into the output).
inline Output run(const std::string& args, const std::string& stderr_to = "2>&1", const std::string& env = "") {
  auto r = pto::test::shell(env + (env.empty() ? "" : " ") + std::string(PTO_CLI) + " " + args + " " + stderr_to);
  return {r.status, std::move(r.out)};
}

/// Runs the CLI with stdout and stderr apart: {status, stdout, stderr}.
struct SplitOutput {
  int status;
  std::string out, err;
};
inline SplitOutput run_split(const std::string& args) {
  const std::string err_path = "/tmp/pto_cli_test_stderr_" + std::to_string(getpid());
  const Output o = run(args, "2>" + err_path);
  std::ifstream f(err_path);
  std::string err((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::remove(err_path.c_str());
  return {o.status, o.text, err};
}

/// The JSON a run prints on stdout (what it prints on stderr, warnings, stays apart).
inline nlohmann::json run_json(const std::string& args, int want_status = 0) {
  auto o = run_split(args + " --json");
  INFO(o.out);
  INFO(o.err);
  REQUIRE(o.status == want_status);
  return nlohmann::json::parse(o.out);
}

inline std::string temp_dir(const std::string& name) {
  const std::string d = "/tmp/pto_cli_test_" + name;
  std::system(("rm -rf " + d).c_str());
  return d;
}

/// Writes `text` to DIR/NAME (DIR created).
inline std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::filesystem::create_directories(dir);
  std::ofstream(std::filesystem::path(dir) / name) << text;
  return dir;
}

struct Rendered {
  std::string body;           // the <body ...> tag after the page's scripts ran
  long screenshot_bytes = 0;  // size of a 1200x1400 PNG screenshot
};

/// Loads an HTML file in headless Chromium (a profile under `work_dir`): the body tag, where the
/// pages' self-check writes data-charts / data-charts-rendered / data-script-errors, and a screenshot.
inline Rendered render_in_chromium(const std::string& html_path, const std::string& work_dir) {
  const bool have_chromium = std::system("command -v chromium > /dev/null 2>&1") == 0;
  REQUIRE_MESSAGE(have_chromium, "chromium is not installed: run scripts/bootstrap.sh");
  const std::string flags =
      "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync "
      "--no-first-run --user-data-dir=" + work_dir + "/chromium-profile";
  const std::string url = "file://" + html_path;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(("timeout 120 chromium " + flags + " --dump-dom " + url + " 2>/dev/null").c_str(), "r"),
                                             pclose);
  REQUIRE(pipe != nullptr);
  std::string dom;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe.get())) dom.append(buf, n);
  Rendered r;
  const size_t at = dom.find("<body");
  if (at != std::string::npos) r.body = dom.substr(at, dom.find('>', at) - at);
  const std::string png = work_dir + "/page.png";
  REQUIRE(std::system(("timeout 120 chromium " + flags + " --window-size=1200,1400 --screenshot=" + png + " " + url +
                       " > /dev/null 2>&1").c_str()) == 0);
  std::unique_ptr<FILE, int (*)(FILE*)> f(fopen(png.c_str(), "rb"), fclose);
  REQUIRE(f != nullptr);
  fseek(f.get(), 0, SEEK_END);
  r.screenshot_bytes = ftell(f.get());
  return r;
}

}  // namespace pto_cli_test
