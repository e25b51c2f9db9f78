#pragma once
// The persistent compile cache: compiled kernel objects in a directory (PTO_CACHE_DIR, default
// ~/.cache/pto; PTO_CACHE_DIR=off disables it), shared by processes.
//
// An entry is content-addressed: its name is the xxHash of the key text, which holds the kernel's
// lowered IR (so a changed kernel body never finds a stale object), the specialisation, options,
// chip profile, LLVM version and host CPU. Files are written to a temporary name and renamed, so
// readers see whole entries or none and concurrent writers of one entry are harmless. Each entry
// carries its size and an xxHash checksum: a truncated or corrupted entry is detected, removed and
// rebuilt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct DiskCacheEntry {
  std::string file;       // path
  std::string kernel;     // kernel name
  uint64_t bytes = 0;     // file size
  double compile_ms = 0;  // what compiling it cost
};

struct DiskCacheStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t hits = 0;          // over all processes since the last clear
  uint64_t corrupt = 0;       // entries found corrupt and rebuilt, this process
  double compile_ms = 0;      // sum of the entries' compile times
};

class DiskCache {
 public:
  /// The cache of this process, configured from PTO_CACHE_DIR.
  static DiskCache& global();
  explicit DiskCache(std::string dir);  // an empty dir disables the cache

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  /// The object stored under `key`, verified; nullopt when missing or corrupt (then removed).
  std::optional<std::string> load(const std::string& key, std::string* symbol);
  void store(const std::string& key, const std::string& kernel, const std::string& symbol, const std::string& object,
             double compile_ms);

  std::vector<DiskCacheEntry> list() const;
  DiskCacheStats stats() const;
  void clear();

 private:
  std::string path_for(const std::string& key) const;
  std::string dir_;
  uint64_t corrupt_ = 0;
};

}  // namespace pto
