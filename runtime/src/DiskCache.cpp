#include "pto/runtime/DiskCache.hpp"

#include "pto/support/Environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <xxhash.h>

namespace pto {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'P', 'T', 'O', 'O', 'B', 'J', '1', '\n'};

// Entry layout: magic | u64 header size | header text | u64 object size | u64 xxh64(object) | object.
// The header is "key\nkernel\nsymbol\ncompile_ms\n".
template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
bool take(const std::string& in, size_t& pos, T& v) {
  if (pos + sizeof v > in.size()) return false;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return true;
}

struct Parsed {
  std::string key, kernel, symbol, object;
  double compile_ms = 0;
};

std::optional<Parsed> parse(const std::string& data) {
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  size_t pos = sizeof kMagic;
  uint64_t header_size = 0, object_size = 0, checksum = 0;
  if (!take(data, pos, header_size) || pos + header_size > data.size()) return std::nullopt;
  std::istringstream header(data.substr(pos, header_size));
  pos += header_size;
  Parsed p;
  std::string ms;
  if (!std::getline(header, p.key) || !std::getline(header, p.kernel) || !std::getline(header, p.symbol) || !std::getline(header, ms)) {
    return std::nullopt;
  }
  p.compile_ms = std::atof(ms.c_str());
  if (!take(data, pos, object_size) || !take(data, pos, checksum) || pos + object_size != data.size()) return std::nullopt;
  p.object = data.substr(pos, object_size);
  if (XXH64(p.object.data(), p.object.size(), 0) != checksum) return std::nullopt;
  return p;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The key text on one line (the header is line-based).
std::string one_line(const std::string& key) {
  std::string k = key;
  for (auto& c : k) if (c == '\n') c = '\x1f';
  return k;
}

}  // namespace

DiskCache& DiskCache::global() {
  static DiskCache cache(Environment::get().cache_dir);
  return cache;
}

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) dir_.clear();  // an unusable directory disables the cache rather than failing launches
}

std::string DiskCache::path_for(const std::string& key) const {
  return (fs::path(dir_) / fmt::format("{:016x}.ptoobj", XXH3_64bits(key.data(), key.size()))).string();
}

std::optional<std::string> DiskCache::load(const std::string& key, std::string* symbol) {
  if (!enabled()) return std::nullopt;
  const std::string path = path_for(key);
  auto data = read_file(path);
  if (!data) return std::nullopt;
  auto parsed = parse(*data);
  if (!parsed || parsed->key != one_line(key)) {
    ++corrupt_;  // truncated, flipped or a hash collision: rebuild
    std::error_code ec;
    fs::remove(path, ec);
    return std::nullopt;
  }
  // One byte appended per hit: O_APPEND writes are atomic, so concurrent processes count right.
  const int fd = ::open((fs::path(dir_) / "hits").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    [[maybe_unused]] auto n = ::write(fd, "+", 1);
    ::close(fd);
  }
  if (symbol) *symbol = parsed->symbol;
  return std::move(parsed->object);
}

void DiskCache::store(const std::string& key, const std::string& kernel, const std::string& symbol, const std::string& object,
                      double compile_ms) {
  if (!enabled()) return;
  std::string header = one_line(key) + "\n" + kernel + "\n" + symbol + "\n" + fmt::format("{:.3f}", compile_ms) + "\n";
  std::string data(kMagic, sizeof kMagic);
  put<uint64_t>(data, header.size());
  data += header;
  put<uint64_t>(data, object.size());
  put<uint64_t>(data, XXH64(object.data(), object.size(), 0));
  data += object;
  const std::string path = path_for(key);
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;  // a read-only cache still works as a miss
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

std::vector<DiskCacheEntry> DiskCache::list() const {
  std::vector<DiskCacheEntry> out;
  if (!enabled()) return out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().extension() != ".ptoobj") continue;
    DiskCacheEntry entry{e.path().string(), "?", static_cast<uint64_t>(e.file_size(ec)), 0};
    if (auto data = read_file(e.path())) {
      if (auto p = parse(*data)) {
        entry.kernel = p->kernel;
        entry.compile_ms = p->compile_ms;
      } else {
        entry.kernel = "(corrupt)";
      }
    }
    out.push_back(entry);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  return out;
}

DiskCacheStats DiskCache::stats() const {
  DiskCacheStats s;
  for (const auto& e : list()) {
    ++s.entries;
    s.bytes += e.bytes;
    s.compile_ms += e.compile_ms;
  }
  std::error_code ec;
  if (enabled()) {
    const auto hits = fs::file_size(fs::path(dir_) / "hits", ec);
    s.hits = ec ? 0 : hits;
  }
  s.corrupt = corrupt_;
  return s;
}

void DiskCache::clear() {
  if (!enabled()) return;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().extension() == ".ptoobj" || e.path().filename() == "hits" || e.path().string().find(".tmp.") != std::string::npos) {
      fs::remove(e.path(), ec);
    }
  }
}

}  // namespace pto
