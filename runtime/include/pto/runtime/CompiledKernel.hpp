#pragma once
// One compiled specialisation of a kernel, and the arguments of one launch.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "pto/backend/ChipProfile.hpp"
#include "pto/backend/Compiler.hpp"
#include "pto/ir/Kernel.hpp"
#include "pto/lang/TilingKey.hpp"
#include "pto/runtime/JitOptions.hpp"

namespace pto {

/// Time spent making a specialisation on its first call, in milliseconds.
struct ColdTimings {
  double engine_init_ms = 0;  // loading the compiler module and LLVM (dlopen, native target): the first
                              // specialisation of a process that compiles pays it; cache hits never do
  double trace_ms = 0;        // calling the lambda to build IR
  double lower_ms = 0;        // passes (memory planning, validation)
  double cache_load_ms = 0;   // finding and reading the object in an AOT package or the disk cache (a hit)
  double emit_ms = 0;         // IR -> LLVM IR
  double optimise_ms = 0;     // LLVM optimisation pipeline
  double codegen_ms = 0;      // LLVM IR -> object code
  double link_ms = 0;         // object -> shared object (lld, when compiled) -> loaded (dlopen), symbol lookup
  /// The specialisation's own work: everything but engine_init_ms, a cost of the process.
  double total_ms() const { return trace_ms + lower_ms + cache_load_ms + emit_ms + optimise_ms + codegen_ms + link_ms; }
};

/// What the pipeline model needs of a sync instruction (indexed by instruction id).
struct SyncInfo {
  ir::SyncOp op = ir::SyncOp::Barrier;
  ir::Pipe src = ir::Pipe::S, dst = ir::Pipe::S;
  int tile_group = -1;  // automatic mutex: the tile group whose slot is locked
  ir::Pipe pipe = ir::Pipe::S;  // the instruction's pipe (a mutex's)
  bool automatic = false;       // inserted by auto_mutex
};

struct TierUp;  // TierUp.hpp
struct KnownLaunches;  // emulator/KnownLaunches.hpp
std::shared_ptr<KnownLaunches> new_known_launches();

struct CompiledKernel {
  ir::Kernel ir;                // the lowered kernel (its instruction table names errors)
  std::vector<SyncInfo> syncs;  // by instruction id; meaningful for sync instructions only
  std::vector<bool> mutex_ordered;  // per tile group: auto_mutex orders every access to its slots
                                   // (backend::mutex_ordered_groups); empty without auto_mutex
  bool instrumented = false;    // reports to the pipeline model
  bool from_disk = false;       // loaded from the disk cache or a package: no optimiser, no codegen ran
  bool quick = false;           // the quick tier's code (JitOptions::tiered): `object` and `symbol` are its
  std::string object_key;       // the content key of its object (lowered IR, options, chip, LLVM, CPU)
  std::string symbol;           // its function's name in the object
  std::string object;           // the object file (kept for packages)
  bool race_check = true;
  OnRace on_race = OnRace::warn;
  /// The races this specialisation has printed (OnRace::warn prints each once), as
  /// "kind first-instr second-instr".
  struct PrintedRaces {
    std::mutex mu;
    std::set<std::string> seen;
  };
  std::shared_ptr<PrintedRaces> printed_races = std::make_shared<PrintedRaces>();
  /// The profiles of its recent timed launches whose traces follow from their arguments, reused
  /// by repeated launches (emulator/KnownLaunches.hpp).
  std::shared_ptr<KnownLaunches> known_launches = new_known_launches();
  bool fatal_assert = false;
  int64_t instruction_budget = 0;
  std::vector<const ir::Debug*> debugs;  // by instruction id: the debugging aids (nodes of `ir`), else null
  bool has_debug = false;                // any debugging aid: launches collect debug output
  const ChipProfile* chip = nullptr;
  /// The code launches run. A quick-tier kernel's is replaced, once, by the optimising compile's
  /// (tier_up); each core call reads it, and both compute the same results and cycles.
  mutable std::atomic<KernelFn> fn{nullptr};
  /// The optimising compile that replaces a quick-tier kernel's code, started on its second
  /// launch (TierUp.hpp); null for a kernel compiled once.
  std::shared_ptr<TierUp> tier_up;
  const void* program = nullptr;  // CoreContext::program: the interpreter's kernel when fn interprets
  std::shared_ptr<const void> program_owner;
  ColdTimings cold;
  std::string llvm_ir;          // when kept
  size_t object_bytes = 0;
};

namespace detail {
struct TensorArg {
  int position;                  // among all kernel parameters
  DType dtype;
  int rank;                      // 1 .. ir::kMaxRank
  std::array<int64_t, ir::kMaxRank> shape{};    // the first `rank` entries
  std::array<int64_t, ir::kMaxRank> strides{};  // elements; all 0 for a contiguous tensor
  void* data;                    // the first element
  std::shared_ptr<void> owner;
  const void* storage = nullptr; // the allocation the tensor (a view) lives in, and its elements
  int64_t storage_numel = 0;
  /// The parameter's declaration (pl::Tensor<T, Dims...>): its rank (0: none, any rank) and per
  /// dimension an extent, lang::DYNAMIC or lang::STATIC.
  int declared_rank = 0;
  std::array<int64_t, ir::kMaxRank> declared{};
  /// Bit d: dimension d is declared pl::DYNAMIC.
  uint8_t dynamic = 0;

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= shape[d];
    return n;
  }
  /// Elements of the last dimension (a 1-D tensor's length, a matrix's columns).
  int64_t cols() const { return shape[rank - 1]; }
  /// Elements from the storage's first element to the tensor's.
  int64_t storage_offset() const {
    return storage ? (static_cast<const char*>(data) - static_cast<const char*>(storage)) / static_cast<int64_t>(dtype_size(dtype)) : 0;
  }
};

struct LaunchArgs {
  std::vector<TensorArg> tensors;
  std::vector<int64_t> scalars;
  TilingKey key;  // empty when the launch passes none
};
}  // namespace detail

}  // namespace pto
