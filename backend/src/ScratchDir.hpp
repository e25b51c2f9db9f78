#pragma once
// A private temporary directory of the process, removed with everything in it when the process
// exits: where kernels' shared objects pass through on their way to dlopen, and lld's inputs and
// outputs. Under $TMPDIR when it is set; else in /dev/shm when that is memory (tmpfs) that may hold
// executable mappings, so nothing touches a disk; else under /tmp.
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "pto/support/Error.hpp"

namespace pto::backend {

class ScratchDir {
 public:
  explicit ScratchDir(const char* prefix) {
    const std::filesystem::path base = base_dir();
    std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw InternalError("pto: cannot create a temporary directory in " + base.string());
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
  static std::filesystem::path base_dir() {
    const char* tmpdir = std::getenv("TMPDIR");
    struct statvfs shm {};
    if ((tmpdir == nullptr || *tmpdir == '\0') && ::statvfs("/dev/shm", &shm) == 0 && !(shm.f_flag & ST_NOEXEC) &&
        !(shm.f_flag & ST_RDONLY) && ::access("/dev/shm", W_OK) == 0) {
      return "/dev/shm";
    }
    return std::filesystem::temp_directory_path();
  }
  std::filesystem::path path_;
};

}  // namespace pto::backend
