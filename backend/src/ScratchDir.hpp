#pragma once
// A private temporary directory of the process (mkdtemp under TMPDIR or /tmp), removed with
// everything in it when the process exits: where kernels' shared objects pass through on their
// way to dlopen, and lld's inputs and outputs.
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "pto/support/Error.hpp"

namespace pto::backend {

class ScratchDir {
 public:
  explicit ScratchDir(const char* prefix) {
    namespace fs = std::filesystem;
    std::string pattern = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw InternalError("pto: cannot create a temporary directory in " + fs::temp_directory_path().string());
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pto::backend
