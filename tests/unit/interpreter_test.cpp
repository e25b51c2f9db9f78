// The reference interpreter (pto::backend::InterpretedKernel) against the LLVM code generator:
// each kernel is traced (pto::trace_kernel) and prepared twice (pto::prepare_kernel), then run on
// hand-built cores both as compiled code and interpreted. GM results must agree bit for bit, NaN payloads and signed zeros included (float
// row sums too: docs/semantics.md fixes their order), as must each core's
// CoreStatus, its remaining instruction budget and the sequence of hook calls (exec, sync,
// cross, debug).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <pto/pto.hpp>

#include "pto/runtime/Pipeline.hpp"

namespace {

namespace pl = pto::lang;
namespace ir = pto::ir;
using pto::CoreContext;
using pto::CoreStatus;
using pto::DType;
using pto::KernelFn;

const pto::ChipProfile& chip() { return pto::ChipProfile::default_profile(); }

// ------------------------------------------------------------------------------ tracing
/// Traces `body(scalars)` as kernel `name` with these tensor parameters and `n_scalars` runtime
/// scalars (pto::trace_kernel: the IR as traced, not lowered; prepare() lowers it).
template <class Body>
ir::Kernel trace(const std::string& name, std::vector<ir::TensorParam> tensors, int n_scalars, Body&& body) {
  return pto::trace_kernel({.name = name, .specialization = "interpreter_test", .tensors = std::move(tensors)}, [&] {
    auto& ctx = *pl::TraceContext::current();
    std::vector<pl::Int> scalars;
    for (int i = 0; i < n_scalars; ++i) {
      ir::Expr v = ctx.new_var("s" + std::to_string(i), ir::VarKind::Param, i);
      ctx.kernel().scalars.push_back({"s" + std::to_string(i), v});
      scalars.emplace_back(v);
    }
    body(scalars);
  });
}

ir::TensorParam tensor1(const char* name, DType t, int64_t n) { return {name, t, 1, {1, n}}; }
ir::TensorParam tensor2(const char* name, DType t, int64_t r, int64_t c) { return {name, t, 2, {r, c}}; }

// ------------------------------------------------------------------------------ data
struct Buf {
  DType dtype;
  std::vector<uint8_t> bytes;
  int64_t numel() const { return static_cast<int64_t>(bytes.size() / pto::dtype_size(dtype)); }
};

struct Rng {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next() % 1000000) / 1000000.0f; }
};

const std::vector<float>& special_floats() {
  static const std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, std::numeric_limits<float>::quiet_NaN(),
                                       std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                       65504.0f, 65520.0f, 1e-8f, 3.0e38f, 1e-45f, 2.5f, -2.5f, 127.5f, -128.5f, 2147483648.0f,
                                       -2147484000.0f, 1e10f, 300.0f, -300.0f, 1.00048828125f, 0.333333343f, -7.0f, 1e-40f};
  return v;
}

const std::vector<float>& mild_floats() {  // no overflow in sums, no huge exponents
  static const std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, std::numeric_limits<float>::quiet_NaN(), 2.5f, 3.0f, -0.0f};
  return v;
}

enum class Specials { none, full, mild };

/// `n` elements of `t`: special values first and last, random ones between (floats in [lo, hi)).
Buf make_data(DType t, int64_t n, uint64_t seed, float lo = -10.0f, float hi = 10.0f, Specials specials = Specials::full) {
  Buf b{t, std::vector<uint8_t>(static_cast<size_t>(n) * pto::dtype_size(t))};
  Rng rng{seed};
  const auto& sp = specials == Specials::mild ? mild_floats() : special_floats();
  static const int32_t special_ints[] = {0, -1, 1, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 7, -7,
                                         127, -128, 128, 255, 100000};
  for (int64_t i = 0; i < n; ++i) {
    const bool special = specials != Specials::none && (i < 40 || i >= n - 30);  // the tail too: scalar remainder loops
    uint8_t* p = b.bytes.data() + static_cast<size_t>(i) * pto::dtype_size(t);
    if (pto::is_floating(t)) {
      // Specials rotated by the seed, so that two inputs pair different specials (+0 with -0, ...).
      const size_t j = static_cast<size_t>(i + static_cast<int64_t>(seed)) % sp.size();
      float f = special ? sp[j] * (i >= static_cast<int64_t>(sp.size()) ? -1.0f : 1.0f) : rng.uniform(lo, hi);
      if (t == DType::f32) std::memcpy(p, &f, 4);
      if (t == DType::f16) { const uint16_t h = pto::half(f).bits; std::memcpy(p, &h, 2); }
      if (t == DType::bf16) { const uint16_t h = pto::bfloat16(f).bits; std::memcpy(p, &h, 2); }
    } else if (t == DType::i32) {
      int32_t v = special ? special_ints[(i + static_cast<int64_t>(seed)) % 12] * (i >= 12 ? -1 : 1)
                          : static_cast<int32_t>(rng.next() % 2001) - 1000;
      if (i % 17 == 5) v = 0;
      std::memcpy(p, &v, 4);
    } else {
      *p = static_cast<uint8_t>(special ? special_ints[(i + static_cast<int64_t>(seed)) % 12] : static_cast<int32_t>(rng.next()));
      if (i % 13 == 4) *p = 0;
    }
  }
  return b;
}

Buf zeros(DType t, int64_t n) { return Buf{t, std::vector<uint8_t>(static_cast<size_t>(n) * pto::dtype_size(t), 0xcd)}; }

double as_double(const Buf& b, int64_t i) {
  const uint8_t* p = b.bytes.data() + static_cast<size_t>(i) * pto::dtype_size(b.dtype);
  uint16_t h;
  switch (b.dtype) {
    case DType::f32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::f16: std::memcpy(&h, p, 2); return static_cast<float>(pto::half::from_bits(h));
    case DType::bf16: std::memcpy(&h, p, 2); return static_cast<float>(pto::bfloat16::from_bits(h));
    case DType::i32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::i8: return static_cast<int8_t>(*p);
    default: return 0;
  }
}

/// Number of elements of `a` and `b` that differ bitwise. Any two NaNs are equal: the sign and
/// payload of a NaN are not defined (docs/semantics.md).
int64_t mismatches(const Buf& a, const Buf& b) {
  REQUIRE(a.bytes.size() == b.bytes.size());
  const size_t es = pto::dtype_size(a.dtype);
  int64_t bad = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (std::memcmp(a.bytes.data() + i * es, b.bytes.data() + i * es, es) == 0) continue;
    const double x = as_double(a, i), y = as_double(b, i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (bad < 5) MESSAGE("element " << i << ": compiled " << x << " interpreted " << y);
    ++bad;
  }
  return bad;
}

// ------------------------------------------------------------------------------ cores and hooks
struct Event {
  char kind;  // 'E' exec, 'S' sync, 'C' cross, 'D' debug
  int32_t instr;
  int64_t a, b, c;
  std::vector<int64_t> slots;
  bool operator==(const Event&) const = default;
};

struct Recorder {
  const ir::Kernel* k = nullptr;
  std::vector<Event> events;
  int32_t debug_answer = 0;
};

void exec_hook(void* model, int32_t instr, int64_t amount, const int64_t* slots, int64_t lo, int64_t hi) {
  auto* r = static_cast<Recorder*>(model);
  const size_t n = r->k->instrs.at(static_cast<size_t>(instr)).tiles.size();
  r->events.push_back({'E', instr, amount, lo, hi, std::vector<int64_t>(slots, slots + n)});
}
void sync_hook(void* model, int32_t instr, int64_t event, int64_t slot) {
  static_cast<Recorder*>(model)->events.push_back({'S', instr, event, slot, 0, {}});
}
int32_t cross_hook(CoreContext* ctx, int32_t instr, int32_t op, int64_t event) {
  static_cast<Recorder*>(ctx->block)->events.push_back({'C', instr, op, event, 0, {}});
  return 0;
}
int32_t debug_hook(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch) {
  auto* r = static_cast<Recorder*>(ctx->launch);
  Event e{'D', instr, rows, cols, pitch, {}};
  if (args) {
    for (int i = 0; i < 4; ++i) e.slots.push_back(args[i]);  // the test's printf/assert take 4 arguments
  }
  if (data) {  // a dumped window of a float tile: its element values
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        float f;
        std::memcpy(&f, static_cast<const uint8_t*>(data) + (i * pitch + j) * 4, 4);
        e.slots.push_back(std::bit_cast<int32_t>(f));
      }
    }
  }
  r->events.push_back(std::move(e));
  return r->debug_answer;
}

struct CoreSpec {
  int64_t block_idx = 0, block_num = 1;
  int64_t core_kind = static_cast<int64_t>(ir::CoreKind::AIV);
  int64_t subblock_idx = 0, subblock_num = 1;
};

/// The local memories of one core, sized from the chip profile (reused; cleared per run).
struct Arena {
  std::array<uint8_t*, 6> space{};
  Arena() {
    for (size_t s = 1; s < 6; ++s) {
      const auto bytes = static_cast<size_t>((chip().memory[s].bytes + 63) / 64 * 64);
      space[s] = static_cast<uint8_t*>(std::aligned_alloc(64, std::max<size_t>(bytes, 64)));
    }
  }
  ~Arena() {
    for (auto* p : space) std::free(p);
  }
  void clear() {
    for (size_t s = 1; s < 6; ++s) std::memset(space[s], 0, static_cast<size_t>(chip().memory[s].bytes));
  }
};

Arena& arena() {
  static Arena a;
  return a;
}

struct Outcome {
  std::vector<Buf> tensors;
  std::vector<CoreStatus> status;
  std::vector<int64_t> budget;
  std::vector<Event> events;
};

struct RunOptions {
  std::vector<int64_t> scalars;
  std::vector<CoreSpec> cores = {CoreSpec{}};
  int64_t budget = 1'000'000'000;
  int32_t debug_answer = 0;
};

/// Runs `fn` (with ctx->program = `program`) on each core in turn, on copies of `tensors`.
Outcome run(KernelFn fn, const void* program, const ir::Kernel& k, const std::vector<Buf>& tensors, const RunOptions& o) {
  Outcome out;
  out.tensors = tensors;
  std::vector<std::unique_ptr<uint8_t, decltype(&std::free)>> mem;
  std::vector<void*> ptrs;
  for (auto& t : out.tensors) {
    mem.emplace_back(static_cast<uint8_t*>(std::aligned_alloc(64, (t.bytes.size() + 64) / 64 * 64)), &std::free);
    std::memcpy(mem.back().get(), t.bytes.data(), t.bytes.size());
    ptrs.push_back(mem.back().get());
  }
  Recorder rec;
  rec.k = &k;
  rec.debug_answer = o.debug_answer;
  for (const auto& c : o.cores) {
    arena().clear();
    CoreStatus status;
    CoreContext ctx{};
    ctx.tensors = ptrs.data();
    ctx.scalars = o.scalars.data();
    for (size_t s = 1; s < 6; ++s) ctx.arena[s] = arena().space[s];
    ctx.block_idx = c.block_idx;
    ctx.block_num = c.block_num;
    ctx.status = &status;
    ctx.model = &rec;
    ctx.exec = &exec_hook;
    ctx.sync = &sync_hook;
    ctx.core_kind = c.core_kind;
    ctx.subblock_idx = c.subblock_idx;
    ctx.subblock_num = c.subblock_num;
    ctx.block = &rec;
    ctx.cross = &cross_hook;
    ctx.program = program;
    ctx.debug = &debug_hook;
    ctx.launch = &rec;
    ctx.budget = o.budget;
    fn(&ctx);
    out.status.push_back(status);
    out.budget.push_back(ctx.budget);
  }
  for (size_t i = 0; i < out.tensors.size(); ++i) std::memcpy(out.tensors[i].bytes.data(), mem[i].get(), out.tensors[i].bytes.size());
  out.events = std::move(rec.events);
  return out;
}

std::string describe(const CoreStatus& s) {
  return "failed=" + std::to_string(s.failed) + " instr=" + std::to_string(s.instr) + " check=" + std::to_string(static_cast<int>(s.check)) +
         " axis=" + std::to_string(s.axis) + " a=" + std::to_string(s.a) + " b=" + std::to_string(s.b) + " c=" + std::to_string(s.c);
}

/// A traced kernel prepared twice by pto::prepare_kernel: compiled at O2, and for the interpreter,
/// with the same instrumentation (both lower it the same way).
struct Prepared {
  std::shared_ptr<const pto::CompiledKernel> jit, interpreted;
  const ir::Kernel& k() const { return jit->ir; }
};

Prepared prepare(const ir::Kernel& traced, bool instrument = true, bool auto_mutex = false) {
  const pto::JitOptions o{.name = traced.name, .auto_mutex = auto_mutex, .opt_level = 2, .timing = instrument};
  auto jit = pto::prepare_kernel(traced, chip(), o);
  pto::JitOptions oi = o;
  oi.interpret = true;
  auto interpreted = pto::prepare_kernel(traced, chip(), oi);
  return {std::move(jit), std::move(interpreted)};
}

/// Runs `p` compiled and interpreted and compares the two runs; returns the interpreter's outcome.
Outcome differential(const Prepared& p, const std::vector<Buf>& tensors, const RunOptions& o) {
  const ir::Kernel& k = p.k();
  const Outcome want = run(p.jit->fn, nullptr, k, tensors, o);
  const Outcome got = run(p.interpreted->fn, p.interpreted->program, k, tensors, o);
  INFO("kernel " << k.name);
  for (size_t i = 0; i < want.tensors.size(); ++i) {
    INFO("tensor " << i);
    CHECK(mismatches(want.tensors[i], got.tensors[i]) == 0);
  }
  REQUIRE(want.status.size() == got.status.size());
  for (size_t c = 0; c < want.status.size(); ++c) {
    INFO("core " << c);
    CHECK(describe(want.status[c]) == describe(got.status[c]));
    CHECK(want.budget[c] == got.budget[c]);
  }
  CHECK(want.events.size() == got.events.size());
  const size_t n = std::min(want.events.size(), got.events.size());
  size_t first_bad = n;
  for (size_t i = 0; i < n && first_bad == n; ++i) {
    if (!(want.events[i] == got.events[i])) first_bad = i;
  }
  if (first_bad < n) {
    const Event& w = want.events[first_bad];
    const Event& g = got.events[first_bad];
    MESSAGE("event " << first_bad << ": compiled " << w.kind << " #" << w.instr << " " << w.a << " " << w.b << " " << w.c
                     << ", interpreted " << g.kind << " #" << g.instr << " " << g.a << " " << g.b << " " << g.c);
  }
  CHECK(first_bad == n);
  if (!p.jit->instrumented) {
    for (const auto& e : got.events) CHECK((e.kind != 'E' && e.kind != 'S'));
  }
  return got;
}

std::vector<CoreSpec> vector_cores(int n) {
  std::vector<CoreSpec> v;
  for (int i = 0; i < n; ++i) v.push_back({.block_idx = i, .block_num = n});
  return v;
}

// ------------------------------------------------------------------------------ kernels
constexpr int64_t kTile = 256;
constexpr int kFloatOutputs = 13;

/// Float element-wise operations over 1-D tensors with a tail: arithmetic, max/min (tile, constant
/// and runtime-scalar operands), unary functions, comparisons and select.
template <class T>
ir::Kernel float_elementwise(int64_t n) {
  constexpr DType t = pto::dtype_of<T>;
  std::vector<ir::TensorParam> params = {tensor1("x", t, n), tensor1("y", t, n)};
  for (int i = 0; i < kFloatOutputs; ++i) params.push_back(tensor1("z", t, n));
  return trace("float_ew", params, 1, [&](std::vector<pl::Int>& s) {
    pl::Tensor<T> x(0, 1, {1, n}), y(1, 1, {1, n});
    auto xs = pl::make_tile_group<T>(pl::Vec, {kTile}, {0, 1});
    auto ys = pl::make_tile_group<T>(pl::Vec, {kTile}, {2, 3});
    auto zs = pl::make_tile_group<T>(pl::Vec, {kTile}, {4, 5});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      auto off = i * kTile;
      auto len = pl::min(kTile, n - off);
      pl::load(xs.current(), x.slice(off, len));
      pl::load(ys.current(), y.slice(off, len));
      auto a = xs.current();
      auto b = ys.current();
      int out = 0;
      auto emit = [&](const pl::TExpr<T>& e) {
        zs.current() = e;
        pl::store(pl::Tensor<T>(2 + out++, 1, {1, n}).slice(off, len), zs.current());
        zs.next();
      };
      emit(pl::select(a > b, pl::max(a, b) * 2.5f - b / (pl::abs(a) + 1.0f), pl::min(a, b) + pl::relu(-a)));
      emit(pl::exp(a * 0.125f) + pl::log(pl::abs(b) + 1.0f) + pl::sqrt(pl::abs(a)) + pl::rsqrt(pl::abs(b) + 0.5f) - pl::sqrt(b) * pl::log(a));
      emit(pl::select(a != b, pl::max(a, s[0]) + pl::min(1.5f, a) + pl::max(a, 0.0f) * 3, a * s[0]) +
           pl::select(a <= b, pl::relu(a), pl::min(a, pl::cast<T>(pl::cast<int32_t>(b)))) +
           pl::select(a == b, 1.0f, pl::max(pl::neg(a), b) / b));
      // max/min alone (the sign of a zero between +0 and -0 is visible), in the shapes an
      // optimiser likes to rewrite: the JIT must keep docs/semantics.md's answer in every one.
      emit(pl::max(a, b) * 1.0f);                                 // tile, tile
      emit(pl::min(a, b) * 1.0f);
      emit(pl::max(a, s[0]) * 1.0f);                              // a runtime scalar
      emit(pl::min(0.0f, b) * 1.0f);                              // a constant first
      emit(pl::max(pl::cast<T>(pl::cast<int32_t>(a)), b) * 1.0f);  // an operand that is never NaN
      emit(pl::relu(b) * 1.0f);
      emit(pl::min(pl::max(a, b), pl::relu(a)) * 1.0f);
      emit(pl::min(pl::neg(a), -b) * 1.0f);                       // -(max(a, b)) in disguise
      emit(pl::max(a, pl::neg(a)) * 1.0f);                        // fabs(a) in disguise (not for -0 vs +0)
      emit(pl::max(a, b) - pl::abs(a));                           // a used twice
    }
  });
}

/// Integer element-wise operations (division by zero and by -1, wrapping, clamping casts).
template <class T>
ir::Kernel int_elementwise(int64_t n) {
  constexpr DType t = pto::dtype_of<T>;
  return trace("int_ew", {tensor1("x", t, n), tensor1("y", t, n), tensor1("z1", t, n), tensor1("z2", t, n)}, 1, [&](std::vector<pl::Int>& s) {
    pl::Tensor<T> x(0, 1, {1, n}), y(1, 1, {1, n}), z1(2, 1, {1, n}), z2(3, 1, {1, n});
    auto xs = pl::make_tile<T>(pl::Vec, {kTile});
    auto ys = pl::make_tile<T>(pl::Vec, {kTile});
    auto zs = pl::make_tile<T>(pl::Vec, {kTile});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      auto off = i * kTile;
      auto len = pl::min(kTile, n - off);
      pl::load(xs, x.slice(off, len));
      pl::load(ys, y.slice(off, len));
      zs = pl::select(xs > ys, pl::max(xs, ys) * 3 - ys / xs, pl::min(xs, ys) + pl::relu(-xs)) + pl::abs(xs) / -1;
      pl::store(z1.slice(off, len), zs);
      zs = (xs - s[0]) * ys + pl::select(xs >= 0, xs / 0, ys * s[0]) + pl::select(xs == ys, 1, pl::neg(ys) / 7) +
           pl::cast<T>(pl::cast<float>(xs) * 0.5f);
      pl::store(z2.slice(off, len), zs);
      zs = zs + 1;  // in place
      pl::store(z2.slice(off, len), zs);
    }
  });
}

/// Conversions between every pair of storage types the vector unit casts between.
ir::Kernel casts(int64_t n) {
  return trace("casts",
               {tensor1("xf", DType::f32, n), tensor1("xi", DType::i32, n), tensor1("xh", DType::f16, n), tensor1("xb", DType::i8, n),
                tensor1("f2h", DType::f16, n), tensor1("f2b", DType::bf16, n), tensor1("f2i", DType::i32, n), tensor1("f2c", DType::i8, n),
                tensor1("i2f", DType::f32, n), tensor1("i2h", DType::f16, n), tensor1("i2c", DType::i8, n), tensor1("h2i", DType::i32, n),
                tensor1("h2b", DType::bf16, n), tensor1("c2f", DType::f32, n), tensor1("c2h", DType::f16, n), tensor1("b2c", DType::i8, n)},
               0, [&](std::vector<pl::Int>&) {
                 pl::Tensor<float> xf(0, 1, {1, n}), i2f(8, 1, {1, n}), c2f(13, 1, {1, n});
                 pl::Tensor<int32_t> xi(1, 1, {1, n}), f2i(6, 1, {1, n}), h2i(11, 1, {1, n});
                 pl::Tensor<pto::half> xh(2, 1, {1, n}), f2h(4, 1, {1, n}), i2h(9, 1, {1, n}), c2h(14, 1, {1, n});
                 pl::Tensor<int8_t> xb(3, 1, {1, n}), f2c(7, 1, {1, n}), i2c(10, 1, {1, n}), b2c(15, 1, {1, n});
                 pl::Tensor<pto::bfloat16> f2b(5, 1, {1, n}), h2b(12, 1, {1, n});
                 auto tf = pl::make_tile<float>(pl::Vec, {kTile});
                 auto ti = pl::make_tile<int32_t>(pl::Vec, {kTile});
                 auto th = pl::make_tile<pto::half>(pl::Vec, {kTile});
                 auto tc = pl::make_tile<int8_t>(pl::Vec, {kTile});
                 auto of = pl::make_tile<float>(pl::Vec, {kTile});
                 auto oi = pl::make_tile<int32_t>(pl::Vec, {kTile});
                 auto oh = pl::make_tile<pto::half>(pl::Vec, {kTile});
                 auto ob = pl::make_tile<pto::bfloat16>(pl::Vec, {kTile});
                 auto oc = pl::make_tile<int8_t>(pl::Vec, {kTile});
                 for (auto i : pl::range(0, pl::ceil_div(n, kTile))) {
                   auto off = i * kTile;
                   auto len = pl::min(kTile, n - off);
                   pl::load(tf, xf.slice(off, len));
                   pl::load(ti, xi.slice(off, len));
                   pl::load(th, xh.slice(off, len));
                   pl::load(tc, xb.slice(off, len));
                   oh = pl::cast<pto::half>(tf);
                   pl::store(f2h.slice(off, len), oh);
                   ob = pl::cast<pto::bfloat16>(tf * 3.0f);
                   pl::store(f2b.slice(off, len), ob);
                   oi = pl::cast<int32_t>(tf * 1e6f);
                   pl::store(f2i.slice(off, len), oi);
                   oc = pl::cast<int8_t>(tf * 10.0f);
                   pl::store(f2c.slice(off, len), oc);
                   of = pl::cast<float>(ti * 16777) + pl::cast<float>(pl::cast<pto::half>(pl::cast<float>(ti)));
                   pl::store(i2f.slice(off, len), of);
                   oh = pl::cast<pto::half>(ti * 97);
                   pl::store(i2h.slice(off, len), oh);
                   oc = pl::cast<int8_t>(ti);
                   pl::store(i2c.slice(off, len), oc);
                   oi = pl::cast<int32_t>(th) + pl::cast<int32_t>(pl::cast<int8_t>(th));
                   pl::store(h2i.slice(off, len), oi);
                   ob = pl::cast<pto::bfloat16>(th);
                   pl::store(h2b.slice(off, len), ob);
                   of = pl::cast<float>(tc) / 3.0f;
                   pl::store(c2f.slice(off, len), of);
                   oh = pl::cast<pto::half>(tc) * 300.0f;
                   pl::store(c2h.slice(off, len), oh);
                   oc = pl::cast<int8_t>(pl::cast<pto::bfloat16>(tc) * 2.0f) + tc * tc;  // i8 arithmetic wraps
                   pl::store(b2c.slice(off, len), oc);
                 }
               });
}

/// Row reductions and both broadcasts over a 2-D tensor with a row tail: r(max), r(sum), r(min)
/// and z = f(x - rowmax) * bias(row) + rowmin. Sum into float when T is half (wider accumulator).
template <class T>
ir::Kernel reductions(int64_t rows, int64_t cols) {
  constexpr DType t = pto::dtype_of<T>;
  using S = std::conditional_t<std::is_same_v<T, pto::half>, float, T>;
  constexpr DType st = pto::dtype_of<S>;
  constexpr int64_t tr = 16;
  constexpr bool fp = pto::is_floating(t);
  return trace("reduce",
               {tensor2("x", t, rows, cols), tensor2("bias", t, 1, cols), tensor2("z", t, rows, cols), tensor2("mx", t, rows, 1),
                tensor2("sm", st, rows, 1), tensor2("mn", t, rows, 1)},
               0, [&](std::vector<pl::Int>&) {
                 pl::Tensor<T> x(0, 2, {rows, cols}), bias(1, 2, {1, cols}), z(2, 2, {rows, cols}), mx(3, 2, {rows, 1}), mn(5, 2, {rows, 1});
                 pl::Tensor<S> sm(4, 2, {rows, 1});
                 auto xt = pl::make_tile_group<T>(pl::Vec, {tr, cols}, {0, 1});
                 auto zt = pl::make_tile<T>(pl::Vec, {tr, cols});
                 auto bt = pl::make_tile<T>(pl::Vec, {1, cols});
                 auto b11 = pl::make_tile<T>(pl::Vec, {1, 1});  // broadcast to every element
                 auto rmax = pl::make_tile<T>(pl::Vec, {tr, 1});
                 auto rmin = pl::make_tile<T>(pl::Vec, {tr, 1});
                 auto rsum = pl::make_tile<S>(pl::Vec, {tr, 1});
                 auto wide = pl::make_tile<T>(pl::Vec, {tr, 32});  // a storable copy of a {tr, 1} column
                 auto wides = pl::make_tile<S>(pl::Vec, {tr, 8});
                 pl::load(bt, bias.slice(0, 1, 0, cols));
                 pl::load(b11, bias.slice(0, 1, 0, 1));
                 for (auto i : pl::range(0, pl::ceil_div(rows, tr))) {
                   auto r0 = i * tr;
                   auto len = pl::min(tr, rows - r0);
                   pl::load(xt.current(), x.slice(r0, len, 0, cols));
                   pl::row_max(rmax, xt.current());
                   pl::row_sum(rsum, xt.current());
                   pl::row_min(rmin, xt.current() * 2 - bt);
                   if constexpr (fp) {
                     zt = pl::exp(xt.current() - rmax) * bt + rmin - b11;
                   } else {
                     zt = (xt.current() - rmax) * bt + rmin - b11;
                   }
                   pl::store(z.slice(r0, len, 0, cols), zt);
                   wide = rmax;
                   pl::store(mx.slice(r0, len, 0, 1), wide);
                   wide = rmin;
                   pl::store(mn.slice(r0, len, 0, 1), wide);
                   wides = rsum;
                   pl::store(sm.slice(r0, len, 0, 1), wides);
                   xt.next();
                 }
               });
}

/// Sample 03's matmul (auto_mutex, double buffering, K accumulation, tails in M, N and K); with
/// `transpose_b` B is given as N x K and moved into Right transposed.
template <class T>
ir::Kernel matmul(int64_t M, int64_t N, int64_t K, bool transpose_b) {
  using Acc = pl::accumulator_t<T>;
  using Out = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, T>;
  constexpr DType t = pto::dtype_of<T>;
  constexpr int64_t tm = 32, tn = 32, tk = 32;
  return trace(
      "matmul",
      {tensor2("a", t, M, K), transpose_b ? tensor2("b", t, N, K) : tensor2("b", t, K, N), tensor2("c", pto::dtype_of<Out>, M, N),
       tensor2("cf", pto::dtype_of<Acc>, M, N)},
      0,
      [&](std::vector<pl::Int>&) {
        pl::Tensor<T> a(0, 2, {M, K}), b(1, 2, {transpose_b ? N : K, transpose_b ? K : N});
        pl::Tensor<Out> c(2, 2, {M, N});
        pl::Tensor<Acc> cf(3, 2, {M, N});
        auto a_l1 = pl::make_tile_group<T>(pl::Mat, {tm, tk}, {0, 1});
        auto b_l1 = pl::make_tile_group<T>(pl::Mat, {transpose_b ? tn : tk, transpose_b ? tk : tn}, {2, 3});
        auto a_l0 = pl::make_tile_group<T>(pl::Left, {tm, tk}, {4, 5});
        auto b_l0 = pl::make_tile_group<T>(pl::Right, {tk, tn}, {6, 7});
        auto acc = pl::make_tile_group<Acc>(pl::Acc, {tm, tn}, {8, 9});
        const int64_t n_tiles = (N + tn - 1) / tn, tiles = (M + tm - 1) / tm * n_tiles, k_steps = (K + tk - 1) / tk;
        for (auto i : pl::range(pl::get_block_idx(), tiles, pl::get_block_num())) {
          auto m0 = i / n_tiles * tm, n0 = i % n_tiles * tn;
          auto mlen = pl::min(tm, M - m0), nlen = pl::min(tn, N - n0);
          auto k_step = [&](const pl::Int& k0, bool accumulate) {
            auto klen = pl::min(tk, K - k0);
            pl::load(a_l1.current(), a.slice(m0, mlen, k0, klen));
            if (transpose_b) {
              pl::load(b_l1.current(), b.slice(n0, nlen, k0, klen));
            } else {
              pl::load(b_l1.current(), b.slice(k0, klen, n0, nlen));
            }
            pl::move(a_l0.current(), a_l1.current());
            pl::move(b_l0.current(), b_l1.current(), {.transpose = transpose_b});
            pl::matmul(acc.current(), a_l0.current(), b_l0.current(), {.accumulate = accumulate});
            a_l1.next();
            b_l1.next();
            a_l0.next();
            b_l0.next();
          };
          k_step(0, false);
          for (auto kk : pl::range(1, k_steps)) k_step(kk * tk, true);
          pl::store(c.slice(m0, mlen, n0, nlen), acc.current());
          pl::store(cf.slice(m0, mlen, n0, nlen), acc.current());
          acc.next();
        }
      });
}

/// A vector add whose lengths and offset are runtime scalars: s0 = x length, s1 = y length,
/// s2 = offset, s3 = store length, s4 = loop step. Bad values trip each runtime check.
ir::Kernel checked_add(int64_t n) {
  return trace("checked_add", {tensor1("x", DType::f32, n), tensor1("y", DType::f32, n), tensor1("z", DType::f32, n)}, 5,
               [&](std::vector<pl::Int>& s) {
                 pl::Tensor<float> x(0, 1, {1, n}), y(1, 1, {1, n}), z(2, 1, {1, n});
                 auto xs = pl::make_tile<float>(pl::Vec, {kTile});
                 auto ys = pl::make_tile<float>(pl::Vec, {kTile});
                 auto zs = pl::make_tile<float>(pl::Vec, {kTile});
                 for (auto i : pl::range(0, 3, s[4])) {
                   auto off = s[2] + i * kTile;
                   pl::load(xs, x.slice(off, s[0]));
                   pl::load(ys, y.slice(off, s[1]));
                   zs = xs + ys;
                   pl::store(z.slice(off, s[3]), zs);
                 }
               });
}

/// Manual flags, barriers and mutexes, pl::if_ on the block index and scalar integer arithmetic
/// (division and modulo by runtime values, including 0 and -1) broadcast into a tile.
ir::Kernel control(int64_t n) {
  return trace("control", {tensor1("x", DType::i32, n), tensor1("z", DType::i32, n)}, 2, [&](std::vector<pl::Int>& s) {
    pl::Tensor<int32_t> x(0, 1, {1, n}), z(1, 1, {1, n});
    auto xs = pl::make_tile_group<int32_t>(pl::Vec, {kTile}, {0, 1});
    auto zs = pl::make_tile<int32_t>(pl::Vec, {kTile});
    for (auto i : pl::range(pl::get_block_idx(), pl::ceil_div(n, kTile), pl::get_block_num())) {
      auto off = i * kTile;
      auto len = pl::min(kTile, n - off);
      pl::wait_flag(pl::Pipe::V, pl::Pipe::MTE2, xs.slot());
      pl::load(xs.current(), x.slice(off, len));
      pl::set_flag(pl::Pipe::MTE2, pl::Pipe::V, xs.slot());
      pl::wait_flag(pl::Pipe::MTE2, pl::Pipe::V, xs.slot());
      pl::mutex_lock(3, pl::Pipe::V);
      pl::if_(
          i % 2 == 0 && pl::get_block_idx() < 2,
          [&] { zs = xs.current() * 0 + s[0] / s[1] + (s[0] % s[1]) * 1000 + pl::max(s[0], s[1]) - pl::min(i, s[1]); },
          [&] { zs = xs.current() - i; });
      pl::mutex_unlock(3, pl::Pipe::V);
      pl::set_flag(pl::Pipe::V, pl::Pipe::MTE2, xs.slot());
      pl::pipe_barrier(pl::Pipe::ALL);
      pl::store(z.slice(off, len), zs);
      xs.next();
    }
  });
}

/// A mix kernel (sample 04's shape): the AIC multiplies and stores a float workspace, then sets
/// a cross-core flag; each AIV waits for it, adds a bias row, applies relu and stores its rows.
ir::Kernel mix(int64_t M, int64_t N, int64_t K) {
  constexpr int64_t tm = 32, tn = 32, tk = 32;
  return trace(
      "mix",
      {tensor2("a", DType::f16, M, K), tensor2("b", DType::f16, K, N), tensor2("bias", DType::f16, 1, N),
       tensor2("y", DType::f16, M, N), tensor2("ws", DType::f32, M, N)},
      0,
      [&](std::vector<pl::Int>&) {
        using pto::half;
        pl::Tensor<half> a(0, 2, {M, K}), b(1, 2, {K, N}), bias(2, 2, {1, N}), y(3, 2, {M, N});
        pl::Tensor<float> ws(4, 2, {M, N});
        pl::section_cube([&] {
          auto a_l1 = pl::make_tile<half>(pl::Mat, {tm, tk});
          auto b_l1 = pl::make_tile<half>(pl::Mat, {tk, tn});
          auto a_l0 = pl::make_tile<half>(pl::Left, {tm, tk});
          auto b_l0 = pl::make_tile<half>(pl::Right, {tk, tn});
          auto acc = pl::make_tile<float>(pl::Acc, {tm, tn});
          for (auto k0 : pl::range(0, K, tk)) {
            auto klen = pl::min(tk, K - k0);
            pl::load(a_l1, a.slice(0, M, k0, klen));
            pl::load(b_l1, b.slice(k0, klen, 0, N));
            pl::move(a_l0, a_l1);
            pl::move(b_l0, b_l1);
            pl::if_(k0 == 0, [&] { pl::matmul(acc, a_l0, b_l0); }, [&] { pl::matmul(acc, a_l0, b_l0, {.accumulate = true}); });
          }
          pl::store(ws.slice(0, M, 0, N), acc);
          pl::set_cross_core(pl::Pipe::FIX, 0);
        });
        pl::section_vector([&] {
          auto c = pl::make_tile<float>(pl::Vec, {tm / 2, tn});
          auto out = pl::make_tile<half>(pl::Vec, {tm / 2, tn});
          auto bias_row = pl::make_tile<half>(pl::Vec, {1, tn});
          auto half_rows = (M + 1) / 2;
          auto first = pl::get_subblock_idx() * half_rows;
          auto rows = pl::max(0, pl::min(half_rows, M - first));
          pl::wait_cross_core(pl::Pipe::MTE2, 0);
          pl::load(bias_row, bias.slice(0, 1, 0, N));
          pl::load(c, ws.slice(first, rows, 0, N));
          out = pl::cast<half>(pl::relu(c + pl::cast<float>(bias_row)));
          pl::store(y.slice(first, rows, 0, N), out);
        });
      });
}

/// Debugging aids: printf and pto_assert with arguments, dump_data of a tile and of a window.
ir::Kernel debugging(int64_t n, bool with_trap) {
  return trace("debugging", {tensor1("x", DType::f32, n), tensor1("z", DType::f32, n)}, 1, [&](std::vector<pl::Int>& s) {
    pl::Tensor<float> x(0, 1, {1, n}), z(1, 1, {1, n});
    auto t = pl::make_tile<float>(pl::Vec, {2, 16});
    pl::load(t, x.view({n / 16, 16}).slice(0, 2, 0, 16));
    pl::printf("block %d of %d, s=%d %d", pl::get_block_idx(), pl::get_block_num(), s[0], s[0] > 3);
    pl::pto_assert(s[0] < 5, "s=%d too big %d %d %d", s[0], 1, 2, s[0] * 2);
    pl::dump_data(t);
    pl::dump_data(t, {1, 2}, {1, s[0]});
    if (with_trap) pl::trap();
    t = t * 2.0f;
    pl::store(z.view({n / 16, 16}).slice(0, 2, 0, 16), t);
  });
}

}  // namespace

TEST_CASE("interpreter: float element-wise kernels match the compiled code bit for bit (f32, f16, bf16)") {
  const int64_t n = 2 * kTile + 77;
  auto one = [&]<class T>() {
    constexpr DType t = pto::dtype_of<T>;
    CAPTURE(pto::dtype_name(t));
    const ir::Kernel k = float_elementwise<T>(n);
    const Prepared p = prepare(k);
    std::vector<Buf> data = {make_data(t, n, 1), make_data(t, n, 2)};
    for (int i = 0; i < kFloatOutputs; ++i) data.push_back(zeros(t, n));
    for (int64_t s : {0, -3}) {
      CAPTURE(s);
      differential(p, data, {.scalars = {s}, .cores = vector_cores(2)});
    }
  };
  one.operator()<float>();
  one.operator()<pto::half>();
  one.operator()<pto::bfloat16>();
}

TEST_CASE("interpreter: integer element-wise kernels match the compiled code (i32, i8)") {
  const int64_t n = kTile + 100;
  auto one = [&]<class T>() {
    constexpr DType t = pto::dtype_of<T>;
    CAPTURE(pto::dtype_name(t));
    const ir::Kernel k = int_elementwise<T>(n);
    const Prepared p = prepare(k);
    const std::vector<Buf> data = {make_data(t, n, 3), make_data(t, n, 4), zeros(t, n), zeros(t, n)};
    for (int64_t s : {int64_t{5}, int64_t{-1}, int64_t{1} << 40}) {
      CAPTURE(s);
      differential(p, data, {.scalars = {s}, .cores = vector_cores(3)});
    }
  };
  one.operator()<int32_t>();
  one.operator()<int8_t>();
}

TEST_CASE("interpreter: casts between f32, f16, bf16, i32 and i8 (rounding, saturation, NaN)") {
  const int64_t n = kTile + 40;
  const ir::Kernel k = casts(n);
  std::vector<Buf> data = {make_data(DType::f32, n, 5, -2e5f, 2e5f), make_data(DType::i32, n, 6), make_data(DType::f16, n, 7, -300, 300),
                           make_data(DType::i8, n, 8)};
  // NaNs with payloads (quiet and signalling), then f32 inputs next to the rounding boundaries
  // of half and bfloat16.
  const uint32_t nans[] = {0x7fa00001u, 0xffc12345u, 0x7f800001u, 0xff9fffffu};
  for (int i = 0; i < 4; ++i) std::memcpy(data[0].bytes.data() + (60 + i) * 4, &nans[i], 4);
  for (int i = 0; i < 40; ++i) {
    const float f = std::bit_cast<float>(0x3f800000u + (static_cast<uint32_t>(i) << 12) + (i % 3 == 0 ? 0x1000u : 0u) + (i % 2 ? 0x8000u : 0u));
    std::memcpy(data[0].bytes.data() + (100 + i) * 4, &f, 4);
  }
  const DType outs[] = {DType::f16, DType::bf16, DType::i32, DType::i8, DType::f32, DType::f16, DType::i8,
                        DType::i32, DType::bf16, DType::f32, DType::f16, DType::i8};
  for (DType t : outs) data.push_back(zeros(t, n));
  differential(prepare(k), data, {});
}

TEST_CASE("interpreter: relu of -0 is +0 on both engines, element-wise and inside a float row_sum (rsqrt makes it +inf)") {
  constexpr int64_t cols = 64;
  const ir::Kernel k = trace("relu_zero", {tensor2("x", DType::f32, 1, cols), tensor2("z", DType::f32, 1, cols), tensor2("s", DType::f32, 1, 8)},
                             0, [&](std::vector<pl::Int>&) {
                               pl::Tensor<float> x(0, 2, {1, cols}), z(1, 2, {1, cols}), s(2, 2, {1, 8});
                               auto xt = pl::make_tile<float>(pl::Vec, {1, cols});
                               auto zt = pl::make_tile<float>(pl::Vec, {1, cols});
                               auto sum = pl::make_tile<float>(pl::Vec, {1, 1});
                               auto wide = pl::make_tile<float>(pl::Vec, {1, 8});
                               pl::load(xt, x.slice(0, 1, 0, cols));
                               zt = pl::rsqrt(pl::relu(xt));
                               pl::store(z.slice(0, 1, 0, cols), zt);
                               pl::row_sum(sum, pl::rsqrt(pl::relu(xt)));
                               wide = sum;
                               pl::store(s.slice(0, 1, 0, 1), wide);
                             });
  Buf x{DType::f32, std::vector<uint8_t>(cols * 4)};
  for (int64_t c = 0; c < cols; ++c) {
    const float v = c % 5 == 0 ? -0.0f : (c % 7 == 0 ? 0.0f : 0.25f * static_cast<float>(c));
    std::memcpy(x.bytes.data() + c * 4, &v, 4);
  }
  const Outcome o = differential(prepare(k), {x, zeros(DType::f32, cols), zeros(DType::f32, 8)}, {});
  float sum = 0, first = 0;
  std::memcpy(&sum, o.tensors[2].bytes.data(), 4);
  std::memcpy(&first, o.tensors[1].bytes.data(), 4);
  CHECK(first == std::numeric_limits<float>::infinity());  // rsqrt(relu(-0)) = rsqrt(+0) = +inf
  CHECK(sum == std::numeric_limits<float>::infinity());    // no -inf lane, so no NaN
}

TEST_CASE("interpreter: row reductions with row and column broadcasts (float row_sum bit for bit: one fixed order)") {
  auto one = [&]<class T>() {
    constexpr DType t = pto::dtype_of<T>;
    using S = std::conditional_t<std::is_same_v<T, pto::half>, float, T>;
    CAPTURE(pto::dtype_name(t));
    const int64_t rows = 37, cols = 64;
    const ir::Kernel k = reductions<T>(rows, cols);
    const std::vector<Buf> data = {make_data(t, rows * cols, 9, -4, 4, std::is_same_v<T, int32_t> ? Specials::full : Specials::mild),
                                   make_data(t, cols, 10, -2, 2, Specials::none),
                                   zeros(t, rows * cols), zeros(t, rows), zeros(pto::dtype_of<S>, rows), zeros(t, rows)};
    differential(prepare(k), data, {});
  };
  one.operator()<float>();
  one.operator()<pto::half>();
  one.operator()<int32_t>();
}

TEST_CASE("interpreter: cube matmul (Mat/Left/Right/Acc, K accumulation, tails, transposed B, converting stores)") {
  auto one = [&]<class T>(bool transpose_b) {
    constexpr DType t = pto::dtype_of<T>;
    using Out = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, T>;
    CAPTURE(pto::dtype_name(t));
    CAPTURE(transpose_b);
    const int64_t M = 40, N = 48, K = 72;
    const ir::Kernel k = matmul<T>(M, N, K, transpose_b);
    const std::vector<Buf> data = {make_data(t, M * K, 11, -2, 2, Specials::none), make_data(t, K * N, 12, -2, 2, Specials::none),
                                   zeros(pto::dtype_of<Out>, M * N), zeros(pto::dtype_of<pl::accumulator_t<T>>, M * N)};
    const auto cube = std::vector<CoreSpec>{{.block_idx = 0, .block_num = 2, .core_kind = 0}, {.block_idx = 1, .block_num = 2, .core_kind = 0}};
    differential(prepare(k, true, /*auto_mutex=*/true), data, {.cores = cube});
  };
  one.operator()<pto::half>(false);
  one.operator()<pto::half>(true);
  one.operator()<int8_t>(false);
  one.operator()<pto::bfloat16>(false);
}

TEST_CASE("interpreter: failing runtime checks report the same CoreStatus and stop at the same point") {
  const int64_t n = 4 * kTile;
  const ir::Kernel k = checked_add(n);
  const std::vector<Buf> data = {make_data(DType::f32, n, 13), make_data(DType::f32, n, 14), zeros(DType::f32, n)};
  struct Case {
    const char* what;
    std::vector<int64_t> s;
    pto::RuntimeCheck want;
    int64_t budget = 1'000'000'000;
  };
  const Case cases[] = {
      {"ok", {200, 200, 0, 200, 1}, pto::RuntimeCheck::ok},
      {"over tile", {300, 300, 0, 300, 1}, pto::RuntimeCheck::region_over_tile},
      {"negative", {-1, 10, 0, 10, 1}, pto::RuntimeCheck::region_negative},
      {"out of bounds", {200, 200, 3 * kTile, 200, 1}, pto::RuntimeCheck::region_out_of_bounds},
      {"misaligned", {100, 100, 3, 100, 1}, pto::RuntimeCheck::region_misaligned},
      {"operand smaller", {100, 50, 0, 100, 1}, pto::RuntimeCheck::operand_smaller},
      {"store beyond valid", {100, 100, 0, 120, 1}, pto::RuntimeCheck::store_beyond_valid},
      {"range step", {100, 100, 0, 100, 0}, pto::RuntimeCheck::range_step},
      {"instruction budget", {100, 100, 0, 100, 1}, pto::RuntimeCheck::instruction_budget, 9},
  };
  const Prepared p = prepare(k);
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const Outcome got = differential(p, data, {.scalars = c.s, .budget = c.budget});
    CHECK(got.status[0].check == c.want);
  }
}

TEST_CASE("interpreter: hook call sequences of flags, mutexes, barriers, pl::if_ and scalar arithmetic") {
  const int64_t n = 5 * kTile + 3;
  const ir::Kernel k = control(n);
  const std::vector<Buf> data = {make_data(DType::i32, n, 15), zeros(DType::i32, n)};
  const int64_t big = std::numeric_limits<int64_t>::min();
  const Prepared p = prepare(k);
  for (auto s : std::vector<std::vector<int64_t>>{{17, 5}, {-17, 5}, {17, -5}, {9, 0}, {big, -1}, {big + 3, 7}}) {
    CAPTURE(s[0]);
    CAPTURE(s[1]);
    const Outcome got = differential(p, data, {.scalars = s, .cores = vector_cores(3)});
    int syncs = 0;
    for (const auto& e : got.events) syncs += e.kind == 'S';
    CHECK(syncs > 0);
  }
  // Uninstrumented: no exec or sync hook calls, the same results.
  differential(prepare(k, false), data, {.scalars = {17, 5}, .cores = vector_cores(2)});
}

TEST_CASE("interpreter: a mix kernel's sections and cross-core flags") {
  const int64_t M = 27, N = 32, K = 64;
  const ir::Kernel k = mix(M, N, K);
  const std::vector<Buf> data = {make_data(DType::f16, M * K, 16, -1, 1, Specials::none), make_data(DType::f16, K * N, 17, -1, 1, Specials::none),
                                 make_data(DType::f16, N, 18, -1, 1, Specials::none), zeros(DType::f16, M * N), zeros(DType::f32, M * N)};
  const std::vector<CoreSpec> block = {{.block_idx = 0, .block_num = 1, .core_kind = 0, .subblock_idx = 0, .subblock_num = 2},
                                       {.block_idx = 0, .block_num = 2, .core_kind = 1, .subblock_idx = 0, .subblock_num = 2},
                                       {.block_idx = 1, .block_num = 2, .core_kind = 1, .subblock_idx = 1, .subblock_num = 2}};
  const Outcome got = differential(prepare(k, true, /*auto_mutex=*/true), data, {.cores = block});
  int cross = 0;
  for (const auto& e : got.events) cross += e.kind == 'C';
  CHECK(cross == 3);
}

TEST_CASE("interpreter: debugging aids call the debug hook with the same arguments; a trap stops the core") {
  const int64_t n = 64;
  const std::vector<Buf> data = {make_data(DType::f32, n, 19), zeros(DType::f32, n)};
  const ir::Kernel k = debugging(n, false);
  const Prepared p = prepare(k);
  auto debug_calls = [](const Outcome& o) {
    int n = 0;
    for (const auto& e : o.events) n += e.kind == 'D';
    return n;
  };
  for (int64_t s : {2, 7, 20}) {  // 7: a failed assertion; 20: a dump window beyond the tile
    CAPTURE(s);
    const Outcome logged = differential(p, data, {.scalars = {s}});
    const Outcome fatal = differential(p, data, {.scalars = {s}, .debug_answer = 1});  // a fatal assertion stops the core
    CHECK(debug_calls(logged) == (s == 7 ? 4 : 3));  // printf, [assert,] dump (20: the window fails its check)
    CHECK(debug_calls(fatal) == (s == 2 ? 3 : 2));
    CHECK(logged.status[0].check == (s == 20 ? pto::RuntimeCheck::region_over_tile : pto::RuntimeCheck::ok));
  }
  const ir::Kernel trap = debugging(n, true);
  const Outcome trapped = differential(prepare(trap), data, {.scalars = {2}});
  CHECK(debug_calls(trapped) == 4);
  CHECK(mismatches(trapped.tensors[1], data[1]) == 0);  // stopped before the store
}
