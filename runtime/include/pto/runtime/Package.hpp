#pragma once
// AOT kernel packages: the "binary package" delivery path.
//
//   pto::PackageBuilder b("pkg");                 // build time
//   b.add(kernel[{.block_dim = 8}], x, y, z);     // one specialisation (compiled now)
//   b.add(kernel[{.block_dim = 8, .tiling_key = k}], x, y, z);
//   b.finish();                                   // pkg/manifest.json + pkg/objects/*.ptoobj
//
//   pto::Package::open("pkg", {.fallback = pto::PackageFallback::error});   // run time
//   kernel[{.block_dim = 8}](x, y, z);            // traced (to find its key), loaded, never optimised
//
// A launch whose specialisation the open packages lack falls back to the JIT, or is a UserError,
// as the package was opened. Objects are keyed like the disk cache (lowered IR, options, chip,
// LLVM version, host CPU), so a package only serves the kernels, shapes, dtypes and keys it was
// built for, on the same kind of host.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pto/runtime/DiskCache.hpp"
#include "pto/runtime/Kernel.hpp"

namespace pto {

struct PackageEntry {
  std::string kernel, specialization, file;
  uint64_t bytes = 0;
  double compile_ms = 0;
};

struct PackageSummary {
  std::string dir;
  size_t keys = 0;
  uint64_t bytes = 0;          // objects on disk
  double compile_ms = 0;       // total first-compile time of its specialisations
  std::vector<PackageEntry> entries;
  std::vector<std::string> warnings;  // delivery thresholds exceeded when it was built
  std::string str() const;
};

/// Delivery thresholds (0: none). Past one, PackageBuilder::finish adds a warning, naming the
/// specialisation and the figure, to its summary and to the manifest; the package is still written.
struct PackageLimits {
  uint64_t max_object_bytes = 0;  // one specialisation's object
  uint64_t max_total_bytes = 0;   // all objects together
  size_t max_keys = 0;            // specialisations (shape x dtype x TilingKey x options)
  double max_compile_ms = 0;      // one specialisation's first compile
};

enum class PackageFallback { jit, error };

struct PackageOptions {
  PackageFallback fallback = PackageFallback::jit;
};

class PackageBuilder {
 public:
  explicit PackageBuilder(std::string dir);
  /// Compiles (or reuses) the launcher's specialisation for these arguments and adds it.
  template <class Launcher, class... Args>
  void add(const Launcher& launcher, const Args&... args) {
    add_compiled(*launcher.compile(args...));
  }
  void add_compiled(const CompiledKernel& ck);
  /// Writes the manifest (entries, totals, limits, warnings); returns what the package holds.
  PackageSummary finish(const PackageLimits& limits = {});

 private:
  std::string dir_;
  DiskCache objects_;
  std::vector<PackageEntry> entries_;
};

class Package {
 public:
  /// Opens a package for this process's launches (several may be open); a UserError when the
  /// directory holds no manifest.
  static PackageSummary open(const std::string& dir, PackageOptions options = {});
  /// Closes every open package.
  static void close_all();
  /// The object for `key` from the open packages; nullopt when none is open or it is not there
  /// and the fallback is the JIT; a UserError (at `site`) when the fallback is error.
  static std::optional<std::string> lookup(const std::string& key, std::string* symbol, const ErrorSite& site);
  /// Reads a package's manifest.
  static PackageSummary summary(const std::string& dir);
};

}  // namespace pto
