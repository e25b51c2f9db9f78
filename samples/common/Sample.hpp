#pragma once
// What every sample offers the `pto` command line: prepare a launch for a shape, dtype,
// block_dim and parameters, then launch it, verify it against plain C++, and time a native
// C++ loop doing the same arithmetic.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <pto/pto.hpp>
#include <pto/runtime/TuneSpace.hpp>

namespace pto::samples {

struct SampleArgs {
  std::vector<int64_t> shape;
  DType dtype = DType::f32;
  int block_dim = 8;
  std::map<std::string, std::string> params;
  std::string chip = "a2";

  /// The keys a sample's prepare looked up (its parameters, given or not): a given key it never
  /// looked up is a misspelt or unknown parameter.
  mutable std::set<std::string> looked_up;

  std::string text_param(const std::string& key, const std::string& fallback) const {
    looked_up.insert(key);
    auto it = params.find(key);
    return it == params.end() ? fallback : it->second;
  }

  int64_t param(const std::string& key, int64_t fallback) const {
    looked_up.insert(key);
    auto it = params.find(key);
    if (it == params.end()) return fallback;
    try {
      return std::stoll(it->second);
    } catch (const std::exception&) {
      throw UserError("--param " + key + "=" + it->second + " is not an integer", {});
    }
  }
};

/// How a sample orders its pipes: auto_mutex, hand-written flags, or not at all (racy on purpose).
enum class SyncMode { automatic, manual, none };

inline SyncMode parse_sync(const std::string& s) {
  if (s == "auto") return SyncMode::automatic;
  if (s == "manual") return SyncMode::manual;
  if (s == "none") return SyncMode::none;
  throw UserError("--param sync=" + s + " is not one of auto, manual, none", {});
}

inline JitOptions jit_options(const char* name, SyncMode sync, const std::string& chip, bool timing = true, bool race_check = true) {
  return JitOptions{.name = name, .auto_mutex = sync == SyncMode::automatic, .chip = chip, .timing = timing, .race_check = timing && race_check};
}

struct Verdict {
  bool ok = false;
  double max_abs_error = 0;
  double tolerance = 0;
};

struct PreparedRun {
  std::function<void()> launch;                                    // queue one launch
  std::function<LaunchProfile()> run_sync;                         // one launch on the calling thread (no stream): its profile
  std::function<std::shared_ptr<const CompiledKernel>()> compile;  // the specialisation (cold the first time)
  std::function<Verdict()> verify;                                 // compare the outputs with plain C++
  std::function<void()> native;                                    // the same arithmetic, plain C++ on TBB (empty: none yet)
  std::string native_about;                                        // what `native` is, for `pto bench --vs-native`
  std::function<void()> op_launch;                                 // the same work through the sample's pto::Op, if it has one
  int64_t gm_bytes = 0;                                            // GM bytes read + written by one launch
  double flops = 0;                                                // arithmetic of one launch (0: not reported)
};

struct SampleInfo {
  std::string name;
  std::string about;
  std::vector<int64_t> default_shape;
  std::function<PreparedRun(const SampleArgs&)> prepare;
  /// What `pto tune` searches: the sample's tunables (a Boost.Hana struct, pto::tune_space_of);
  /// an axis named block_dim is the launch's block_dim, the others are --param keys. Empty: none.
  TuneSpace tunables;
};

/// Columns of a Vec tile row holding `cols` elements of T: rounded up to a whole 32-byte UB block.
template <class T>
constexpr int64_t padded_cols(int64_t cols) {
  const int64_t per_block = 32 / static_cast<int64_t>(sizeof(T));
  return (cols + per_block - 1) / per_block * per_block;
}

/// The columns of a chunk of rows too wide for the UB: the widest multiple of 256 elements (whole
/// 32-byte blocks at every chunk's start, in GM and in the UB, for every dtype) below `cols` of
/// which `rows_fitting(width)` holds 4 rows or more; 256 if none does.
template <class RowsFitting>
int64_t widest_chunk(int64_t cols, const RowsFitting& rows_fitting) {
  int64_t cc = 256;
  while (cc + 256 < cols && rows_fitting(cc + 256) >= 4) cc += 256;
  return cc;
}

/// Chunk k of a row-chunked pass (widest_chunk): loads columns [k cc, k cc + clen) of rows
/// [r0, r0 + nr) of `x` into the next slot of `slots`, then calls use(that tile, k cc, clen).
template <class X, class T, class Use>
void load_chunk(const X& x, lang::TileGroup<T>& slots, const lang::Int& r0, const lang::Int& nr, const lang::Int& k, int64_t cc,
                Use&& use) {
  const lang::Int c0 = k * cc;
  const lang::Int clen = lang::min(cc, x.dim(1) - c0);
  auto tile = slots.next();
  lang::load(tile, x.slice(r0, nr, c0, clen));
  use(tile, c0, clen);
}

/// A per-row total over a row-chunked pass: `chunk(k, use)` loads chunk k and calls use(x, c0,
/// clen); `reduce(into, x)` reduces a chunk's rows into an (R, 1) tile. Chunk 0 reduces into
/// `total` (so its valid rows are the block's), each later chunk into `part`, folded in by
/// `fold(total, part)`.
template <class Chunk, class Reduce, class Fold>
void total_over_chunks(int64_t chunks, const Chunk& chunk, lang::Tile<float>& total, lang::Tile<float>& part,
                       const Reduce& reduce, const Fold& fold) {
  chunk(lang::Int(0), [&](const auto& x, const lang::Int&, const lang::Int&) { reduce(total, x); });
  for (auto k : lang::range(1, chunks)) {
    chunk(k, [&](const auto& x, const lang::Int&, const lang::Int&) {
      reduce(part, x);
      fold(total, part);
    });
  }
}

/// Largest |a - b| over two equally sized tensors, read as float.
template <class T>
double max_abs_diff(const Tensor<T>& a, const Tensor<T>& b) {
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double d = std::abs(static_cast<double>(static_cast<float>(a[i])) - static_cast<double>(static_cast<float>(b[i])));
    if (!(d <= m)) m = d;  // NaN propagates as a failure
  }
  return m;
}

/// Calls f.template operator()<T>() for the element type named by `dtype`.
template <class F>
auto dispatch_float_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: return f.template operator()<float>();
    case DType::f16: return f.template operator()<half>();
    case DType::bf16: return f.template operator()<bfloat16>();
    default: throw UserError("this sample takes --dtype f32, f16 or bf16", {});
  }
}

}  // namespace pto::samples
