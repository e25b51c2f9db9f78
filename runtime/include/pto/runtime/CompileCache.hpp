#pragma once
// The in-memory compile cache. The key is the kernel's identity, the static shapes and dtypes
// of its tensor arguments, the compile options and the chip profile. Thread-safe: concurrent
// first calls of one specialisation compile it once and all receive the result (or the error).
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "pto/runtime/CompiledKernel.hpp"

namespace pto {

struct SpecKey {
  std::string bytes;   // canonical encoding of every keyed field
  uint64_t hash = 0;   // xxHash3 of bytes
  bool operator==(const SpecKey& o) const { return hash == o.hash && bytes == o.bytes; }
};

struct SpecKeyFields {
  uint64_t kernel_uid;
  int opt_level;
  bool auto_mutex;
  bool timing;
  bool race_check;
  bool elide_copies;
  bool fuse_rows;
  const std::string* chip;
  const detail::LaunchArgs* args;
};
SpecKey make_spec_key(const SpecKeyFields& f);

struct CacheStats {
  uint64_t entries = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;   // = compilations started
  double compile_ms = 0; // total cold time of all compilations
};

class CompileCache {
 public:
  using Entry = std::shared_ptr<const CompiledKernel>;
  static CompileCache& global();

  /// The cached specialisation, or compiles it with `compile` (exactly once per key, even
  /// when called concurrently). A failed compilation is not cached: the next call retries.
  Entry get_or_compile(const SpecKey& key, const std::function<Entry()>& compile);
  CacheStats stats() const;
  void clear();

 private:
  struct Hash {
    size_t operator()(const SpecKey& k) const { return static_cast<size_t>(k.hash); }
  };
  struct Slot {
    Entry ready;
    std::shared_future<Entry> pending;
  };
  mutable std::shared_mutex mu_;
  std::unordered_map<SpecKey, Slot, Hash> map_;
  std::atomic<uint64_t> hits_{0}, misses_{0};
  std::atomic<double> compile_ms_{0};
};

}  // namespace pto
