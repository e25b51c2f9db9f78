#include "pto/runtime/CompileCache.hpp"

#include <chrono>
#include <mutex>

#include <xxhash.h>

namespace pto {
namespace {
template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
}  // namespace

SpecKey make_spec_key(const SpecKeyFields& f) {
  SpecKey key;
  key.bytes.reserve(64 + f.args->tensors.size() * 24);
  put(key.bytes, f.kernel_uid);
  put(key.bytes, static_cast<int8_t>(f.opt_level));
  put(key.bytes, static_cast<int8_t>(f.auto_mutex));
  put(key.bytes, static_cast<int8_t>(f.timing));
  put(key.bytes, static_cast<int8_t>(f.race_check));
  put(key.bytes, static_cast<int8_t>(f.elide_copies));
  put(key.bytes, static_cast<int8_t>(f.fuse_rows));
  put(key.bytes, static_cast<uint32_t>(f.chip->size()));
  key.bytes.append(*f.chip);
  put(key.bytes, static_cast<uint32_t>(f.args->tensors.size()));
  for (const auto& t : f.args->tensors) {
    put(key.bytes, static_cast<int8_t>(t.dtype));
    put(key.bytes, static_cast<int8_t>(t.rank));
    put(key.bytes, t.dynamic);
    for (int d = 0; d < t.rank; ++d) put(key.bytes, (t.dynamic >> d) & 1 ? int64_t{-1} : t.shape[d]);
    put(key.bytes, t.strides);
  }
  put(key.bytes, static_cast<uint32_t>(f.args->scalars.size()));
  put(key.bytes, static_cast<uint64_t>(f.args->key.type_hash()));
  put(key.bytes, f.args->key.code());
  key.hash = XXH3_64bits(key.bytes.data(), key.bytes.size());
  return key;
}

CompileCache& CompileCache::global() {
  static CompileCache cache;
  return cache;
}

CompileCache::Entry CompileCache::get_or_compile(const SpecKey& key, const std::function<Entry()>& compile) {
  std::shared_future<Entry> pending;
  {
    std::shared_lock lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      if (it->second.ready) {
        hits_.fetch_add(1, std::memory_order_relaxed);
        return it->second.ready;
      }
      pending = it->second.pending;
    }
  }
  if (pending.valid()) {  // another thread is compiling this specialisation
    hits_.fetch_add(1, std::memory_order_relaxed);
    return pending.get();
  }
  std::promise<Entry> promise;
  {
    std::unique_lock lock(mu_);
    auto [it, inserted] = map_.try_emplace(key);
    if (!inserted) {  // lost the race to insert
      lock.unlock();
      return get_or_compile(key, compile);
    }
    it->second.pending = promise.get_future().share();
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  Entry result;
  try {
    result = compile();
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::unique_lock lock(mu_);
    map_.erase(key);
    throw;
  }
  promise.set_value(result);
  {
    std::unique_lock lock(mu_);
    map_[key].ready = result;
  }
  double prev = compile_ms_.load();
  while (!compile_ms_.compare_exchange_weak(prev, prev + result->cold.total_ms())) {
  }
  return result;
}

CacheStats CompileCache::stats() const {
  std::shared_lock lock(mu_);
  return {map_.size(), hits_.load(), misses_.load(), compile_ms_.load()};
}

void CompileCache::clear() {
  std::unique_lock lock(mu_);
  map_.clear();
}

}  // namespace pto
