#include "pto/runtime/Kernel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>

#include <fmt/format.h>

#include "pto/runtime/CompileCache.hpp"
#include "pto/runtime/Emulator.hpp"
#include "pto/runtime/Pipeline.hpp"
#include "pto/runtime/Profiler.hpp"
#include "pto/runtime/TierUp.hpp"
#include "pto/support/Environment.hpp"
#include "pto/support/Stopwatch.hpp"

namespace pto {

const char* on_race_name(OnRace r) {
  switch (r) {
    case OnRace::report: return "report";
    case OnRace::warn: return "warn";
    case OnRace::fail: return "fail";
  }
  return "?";
}

namespace {
thread_local OptionOverrides overrides;
}  // namespace

ScopedOptionOverrides::ScopedOptionOverrides(const OptionOverrides& o) : saved_(overrides) { overrides = o; }
ScopedOptionOverrides::~ScopedOptionOverrides() { overrides = saved_; }

JitOptions apply_environment(JitOptions options) {
  const Environment& env = Environment::get();
  if (env.interpret) options.interpret = *env.interpret;
  if (env.opt_level) options.opt_level = *env.opt_level;
  if (env.tiered) {
    PTO_USER_CHECK(*env.tiered == "0" || *env.tiered == "1", (ErrorSite{.kernel = options.name}))
        << "PTO_TIERED=" << *env.tiered << " is not 0 or 1";
    options.tiered = *env.tiered == "1";
  }
  if (env.on_race) {
    const std::string& v = *env.on_race;
    bool known = false;
    for (OnRace r : {OnRace::report, OnRace::warn, OnRace::fail}) {
      if (v == on_race_name(r)) options.on_race = r, known = true;
    }
    PTO_USER_CHECK(known, (ErrorSite{.kernel = options.name})) << "PTO_ON_RACE=" << v << " is not one of report, warn, fail";
  }
  if (overrides.interpret) options.interpret = *overrides.interpret;
  if (overrides.remove_sync) options.remove_sync = *overrides.remove_sync;
  if (overrides.on_race) options.on_race = *overrides.on_race;
  return options;
}

}  // namespace pto

namespace pto::detail {
namespace {

using Clock = SteadyClock;
std::atomic<uint64_t> next_uid{1};
}  // namespace

struct KernelBase::State {
  JitOptions options;
  const ChipProfile* chip;
  uint64_t uid;
  SourceLoc defined_at;
};

KernelBase::KernelBase(JitOptions given, std::source_location defined_at) {
  JitOptions options = pto::apply_environment(std::move(given));
  PTO_USER_CHECK(options.opt_level >= 0 && options.opt_level <= 3, (ErrorSite{.kernel = options.name, .loc = SourceLoc::from(defined_at)}))
      << "opt_level must be 0..3, got " << options.opt_level;
  const ChipProfile* chip = &ChipProfile::get(options.chip);
  state_ = std::make_shared<State>(State{std::move(options), chip, next_uid.fetch_add(1), SourceLoc::from(defined_at)});
}

const std::string& KernelBase::name() const { return state_->options.name; }
const ChipProfile& KernelBase::chip() const { return *state_->chip; }
const JitOptions& KernelBase::options() const { return state_->options; }

std::string KernelBase::describe(const LaunchArgs& args) {
  std::string out = args.key.empty() ? "" : fmt::format("key=0x{:x}", args.key.code());
  for (const auto& t : args.tensors) {
    if (!out.empty()) out += ", ";
    std::string dims;
    for (int d = 0; d < t.rank; ++d) dims += (d ? "x" : "") + ((t.dynamic >> d) & 1 ? std::string("?") : std::to_string(t.shape[d]));
    out += fmt::format("arg{}:{}[{}]", t.position, dtype_name(t.dtype), dims);
    if (t.strides[0] != 0 || t.strides[t.rank - 1] != 0) {
      std::string strides;
      for (int d = 0; d < t.rank; ++d) strides += (d ? "," : "") + std::to_string(t.strides[d]);
      out += fmt::format("/strides({})", strides);
    }
  }
  return out;
}

void bind_declared_dims(LaunchArgs& a, const std::string& kernel, const SourceLoc& loc) {
  auto declaration = [](const TensorArg& t) {
    std::string out;
    for (int d = 0; d < t.declared_rank; ++d) {
      const int64_t v = t.declared[d];
      out += std::string(d ? ", " : "") + (v == lang::DYNAMIC ? "pl::DYNAMIC" : v == lang::STATIC ? "pl::STATIC" : std::to_string(v));
    }
    return out;
  };
  for (const auto& t : a.tensors) {
    if (t.declared_rank == 0) continue;
    std::string actual;
    for (int d = 0; d < t.rank; ++d) actual += (d ? "x" : "") + std::to_string(t.shape[d]);
    actual = "[" + actual + "]";
    PTO_USER_CHECK(t.rank == t.declared_rank, (ErrorSite{.kernel = kernel, .loc = loc}))
        << "argument " << t.position << " is a " << t.rank << "-D tensor " << actual << "; the kernel declares it pl::Tensor<"
        << dtype_name(t.dtype) << ", " << declaration(t) << ">, " << t.declared_rank << "-D";
    for (int d = 0; d < t.rank; ++d) {
      PTO_USER_CHECK(t.declared[d] < 0 || t.declared[d] == t.shape[d], (ErrorSite{.kernel = kernel, .loc = loc}))
          << "argument " << t.position << " is " << actual << "; the kernel declares it pl::Tensor<" << dtype_name(t.dtype) << ", "
          << declaration(t) << ">: dimension " << d << " must be " << t.declared[d];
    }
    PTO_USER_CHECK(t.dynamic == 0 || t.strides[t.rank - 1] == 0, (ErrorSite{.kernel = kernel, .loc = loc}))
        << "argument " << t.position << " is a non-contiguous view (permute, narrow or select) given for a parameter with "
        << "dynamic dimensions; pass a contiguous tensor, or declare the dimensions static";
  }
  for (const auto& t : a.tensors) {
    for (int d = 0; d < t.rank; ++d) {
      if ((t.dynamic >> d) & 1) a.scalars.push_back(t.shape[d]);
    }
  }
}

std::shared_ptr<const CompiledKernel> KernelBase::specialize(const LaunchArgs& args, const std::function<void()>& trace,
                                                             const std::source_location& call_site) const {
  const State& st = *state_;
  const SpecKey key = make_spec_key({st.uid, st.options.opt_level, st.options.auto_mutex, st.options.timing,
                                     st.options.race_check, st.options.elide_copies, st.options.fuse_rows, &st.chip->name, &args});
  return CompileCache::global().get_or_compile(key, [&]() -> CompileCache::Entry {
    HostSpanScope span("compile", &st.options.name);
    TraceSignature signature{.name = st.options.name, .specialization = describe(args), .key = &args.key};
    for (const auto& a : args.tensors) {
      ir::TensorParam p{.name = fmt::format("arg{}", a.position), .dtype = a.dtype, .rank = a.rank, .shape = a.shape, .dynamic = a.dynamic,
                        .strides = a.strides};
      for (int d = 0; d < a.rank; ++d) {
        if ((a.dynamic >> d) & 1) p.shape[d] = -1;  // unknown while tracing: the kernel serves every extent
      }
      signature.tensors.push_back(std::move(p));
    }
    const auto t = Clock::now();
    ir::Kernel traced = trace_kernel(signature, trace);
    const double trace_ms = ms_since(t);
    auto ck = prepare_kernel(std::move(traced), *st.chip, st.options, SourceLoc::from(call_site));
    ck->cold.trace_ms = trace_ms;
    return ck;
  });
}

namespace {
/// block_dim limits per kernel mode: AIVs (vector), AICs (cube), AIC + 2 AIV groups (mix).
void check_block_dim(const KernelBase& k, const CompiledKernel& ck, const LaunchConfig& config, const LaunchArgs& args) {
  const ChipProfile& chip = k.chip();
  const ir::KernelMode mode = ck.ir.mode;
  const int limit = mode == ir::KernelMode::Vector ? chip.aiv_count : std::min(chip.aic_count, mode == ir::KernelMode::Mix ? chip.aiv_count / 2 : chip.aic_count);
  const char* what = mode == ir::KernelMode::Vector ? "AIV cores" : (mode == ir::KernelMode::Cube ? "AIC cores" : "blocks of 1 AIC + 2 AIV");
  PTO_USER_CHECK(config.block_dim >= 1 && config.block_dim <= limit,
                 (ErrorSite{.kernel = k.name(), .specialization = KernelBase::describe(args), .loc = SourceLoc::from(config.loc)}))
      << "block_dim " << config.block_dim << " is out of range: a " << ir::kernel_mode_name(mode) << " kernel runs on 1.." << limit
      << " " << what << " of the '" << chip.name << "' chip profile (never clamped)";
}
}  // namespace

void KernelBase::launch(const LaunchConfig& config, LaunchArgs args, const std::function<void()>& trace) const {
  HostSpanScope span("launch", &state_->options.name);
  auto ck = specialize(args, trace, config.loc);
  check_block_dim(*this, *ck, config, args);
  note_launch(ck);
  Stream& stream = config.stream ? *config.stream : Stream::default_stream();
  stream.enqueue([ck = std::move(ck), args = std::move(args), block_dim = config.block_dim, s = &stream] {
    s->record(std::make_shared<const LaunchProfile>(emulate_launch(*ck, args, block_dim)));
  });
}

LaunchProfile KernelBase::run_now(const LaunchConfig& config, const LaunchArgs& args, const std::function<void()>& trace) const {
  auto ck = specialize(args, trace, config.loc);
  check_block_dim(*this, *ck, config, args);
  note_launch(ck);
  return emulate_launch(*ck, args, config.block_dim);
}

}  // namespace pto::detail
