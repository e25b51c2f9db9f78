// Code generation: the optimised LLVM IR of vector_add is vectorised at -O2 and not at -O0; a store
// that streams writes non-temporal lines; the shared object binds its C library calls to versioned
// glibc symbols.
#include <doctest/doctest.h>

#include <pto/pto.hpp>

#include "pto/backend/Compiler.hpp"
#include "pto/backend/Passes.hpp"
#include "test_kernels.hpp"

namespace {

bool has_float_vectors(const std::string& ir) {
  return ir.find("<4 x float>") != std::string::npos || ir.find("<8 x float>") != std::string::npos ||
         ir.find("<16 x float>") != std::string::npos;
}

}  // namespace

TEST_CASE("a specialisation does not keep its LLVM IR unless asked (PTO_DEBUG < 3)") {
  if (pto::backend::debug_level() >= 3) return;
  const auto k = pto::unit_test::make_vector_add<float>("vadd_noir");
  auto x = pto::Tensor<float>::zeros({4096});
  const auto ck = k[{.block_dim = 1}].compile(x, x, x);
  CHECK(ck->llvm_ir.empty());
  CHECK(static_cast<bool>(ck->fn));
  CHECK(ck->object_bytes > 0);
}

TEST_CASE("copy elision is in the code only when asked (CompileOptions::elide_copies)") {
  // vector_add's store computes its sum (store forwarding: a fwd.copy block for the fallback) and
  // its loads copy nothing; without elision the add writes its tile and every load and store copies.
  const auto k = pto::unit_test::make_vector_add<float>("vadd_elide");
  auto x = pto::Tensor<float>::zeros({4096});
  const auto ck = k[{.block_dim = 1}].compile(x, x, x);
  const auto on = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 0, .keep_llvm_ir = true, .elide_copies = true});
  const auto off = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 0, .keep_llvm_ir = true, .elide_copies = false});
  CHECK(on.llvm_ir.find("fwd.copy") != std::string::npos);
  CHECK(off.llvm_ir.find("fwd.copy") == std::string::npos);
  CHECK(on.symbol != off.symbol);  // two codes of one kernel: two names
}

TEST_CASE("row fusion is in the code only when asked (CompileOptions::fuse_rows)") {
  // a = t + 1 and b = a * a are one run (pto/backend/RowFusion.hpp; c is computed by its store):
  // fused, their rows are computed a block at a time (the loop "fb" over blocks of rows).
  const auto k = pto::lang::jit({.name = "fuse_codegen"}, [](pto::lang::Tensor<float> x, pto::lang::Tensor<float> z) {
    auto t = pto::lang::make_tile<float>(pto::lang::Vec, {8, 64});
    auto a = pto::lang::make_tile<float>(pto::lang::Vec, {8, 64});
    auto b = pto::lang::make_tile<float>(pto::lang::Vec, {8, 64});
    auto c = pto::lang::make_tile<float>(pto::lang::Vec, {8, 64});
    pto::lang::load(t, x.slice(0, 8, 0, 64));
    a = t + 1;
    b = a * a;
    c = b - a;
    pto::lang::store(z.slice(0, 8, 0, 64), c);
  });
  auto x = pto::Tensor<float>::zeros({8, 64});
  const auto ck = k[{.block_dim = 1}].compile(x, x);
  const auto on = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 0, .keep_llvm_ir = true, .fuse_rows = true});
  const auto off = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 0, .keep_llvm_ir = true, .fuse_rows = false});
  CHECK(on.llvm_ir.find("fb.body") != std::string::npos);
  CHECK(off.llvm_ir.find("fb.body") == std::string::npos);
  CHECK(on.symbol != off.symbol);  // two codes of one kernel: two names
}

TEST_CASE("the optimised LLVM IR of vector_add<float> at O2 has a vectorised loop of float vectors") {
  const auto k = pto::unit_test::make_vector_add<float>("vadd_vec");
  auto x = pto::Tensor<float>::zeros({4096});
  const auto ck = k[{.block_dim = 1}].compile(x, x, x);
  const auto code = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 2, .keep_llvm_ir = true});
  CAPTURE(pto::backend::host_cpu_name());
  REQUIRE_FALSE(code.llvm_ir.empty());
  CHECK(code.llvm_ir.find("define void @" + code.symbol) != std::string::npos);
  CHECK(code.llvm_ir.find("vector.body") != std::string::npos);
  CHECK(has_float_vectors(code.llvm_ir));
  CHECK(code.llvm_ir.find("fadd <") != std::string::npos);
  CHECK(static_cast<bool>(code.fn));
  CHECK(code.object_bytes > 0);
}

TEST_CASE("a store that streams past the host's caches writes whole lines with non-temporal vector stores, at O2 and O0") {
  // CodeGen::compute_rows: the sum goes straight from the registers into GM (no line buffer left
  // at O2); a tensor under kStreamingStoreBytes gets no such store.
  const auto k = pto::unit_test::make_vector_add<float>("vadd_stream");
  auto big = pto::Tensor<float>::zeros({pto::kStreamingStoreBytes / 4});
  auto small = pto::Tensor<float>::zeros({4096});
  const auto ck = k[{.block_dim = 1}].compile(big, big, big);
  for (const int level : {2, 0}) {
    CAPTURE(level);
    const auto code = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = level, .keep_llvm_ir = true});
    CHECK(code.llvm_ir.find("!nontemporal") != std::string::npos);
    CHECK((code.llvm_ir.find("alloca <16 x float>") == std::string::npos) == (level == 2));
  }
  const auto cs = k[{.block_dim = 1}].compile(small, small, small);
  const auto plain = pto::backend::compile_kernel(cs->ir, *cs->chip, {.opt_level = 2, .keep_llvm_ir = true});
  CHECK(plain.llvm_ir.find("!nontemporal") == std::string::npos);
}

TEST_CASE("a kernel's C library calls carry glibc's symbol versions (the copy glibc picks for this CPU)") {
  // Unversioned, memcpy would bind at dlopen to memcpy@GLIBC_2.2.5, the SSE2 compatibility copy.
  const auto k = pto::unit_test::make_vector_add<float>("vadd_libc");
  auto x = pto::Tensor<float>::zeros({4096 + 17});
  const auto ck = k[{.block_dim = 1}].compile(x, x, x);
  REQUIRE_FALSE(ck->object.empty());
  CHECK(ck->object.find("memcpy") != std::string::npos);
  CHECK(ck->object.find("GLIBC_2.") != std::string::npos);
}

TEST_CASE("the LLVM IR of vector_add<float> at O0 is not vectorised") {
  const auto k = pto::unit_test::make_vector_add<float>("vadd_o0", 2, 1024, 0);
  auto x = pto::Tensor<float>::zeros({4096});
  const auto ck = k[{.block_dim = 1}].compile(x, x, x);
  const auto code = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 0, .keep_llvm_ir = true});
  REQUIRE_FALSE(code.llvm_ir.empty());
  CHECK(code.llvm_ir.find("vector.body") == std::string::npos);
  CHECK_FALSE(has_float_vectors(code.llvm_ir));
  CHECK(code.llvm_ir.find("fadd float") != std::string::npos);
}

TEST_CASE("a kernel compiled at O0 and at O2 computes the same results") {
  const auto k0 = pto::unit_test::make_vector_add<float>("vadd_o0_run", 2, 1024, 0);
  const auto k2 = pto::unit_test::make_vector_add<float>("vadd_o2_run", 2, 1024, 2);
  auto x = pto::Tensor<float>::random({4099}, 1);
  auto y = pto::Tensor<float>::random({4099}, 2);
  auto z0 = pto::Tensor<float>::zeros({4099});
  auto z2 = pto::Tensor<float>::zeros({4099});
  k0[{.block_dim = 3}](x, y, z0);
  k2[{.block_dim = 3}](x, y, z2);
  pto::synchronize();
  int bad = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float want = x[i] + y[i];
    if (z0[i] != want || z2[i] != want) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("compile_kernel names symbols by content: the same kernel twice is one function") {
  const auto k = pto::unit_test::make_vector_add<float>("vadd_sym");
  auto x = pto::Tensor<float>::zeros({64});
  const auto ck = k[{.block_dim = 1}].compile(x, x, x);
  const auto a = pto::backend::compile_kernel(ck->ir, *ck->chip, {});
  const auto b = pto::backend::compile_kernel(ck->ir, *ck->chip, {});
  CHECK(a.symbol == b.symbol);
  CHECK(a.symbol.rfind("pto_vadd_sym_", 0) == 0);
  CHECK(reinterpret_cast<void*>(a.fn) == reinterpret_cast<void*>(b.fn));
  const auto o0 = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 0});
  CHECK(o0.symbol != a.symbol);
  CHECK(reinterpret_cast<void*>(o0.fn) != reinterpret_cast<void*>(a.fn));
}

TEST_CASE("a mix kernel compiles as an AIC part and an AIV part, side by side, behind one dispatcher") {
  namespace pl = pto::lang;
  const auto k = pl::jit({.name = "mix_parts"}, [](pl::Tensor<float> x, pl::Tensor<float> y) {
    pl::section_cube([&] { pl::set_cross_core(pl::Pipe::FIX, 0); });
    pl::section_vector([&] {
      auto t = pl::make_tile<float>(pl::Vec, {1, 64});
      pl::wait_cross_core(pl::Pipe::MTE2, 0);
      pl::load(t, x.slice(pl::get_subblock_idx(), 1, 0, 64));
      t = t * 2.0f;
      pl::store(y.slice(pl::get_subblock_idx(), 1, 0, 64), t);
    });
  });
  auto x = pto::Tensor<float>::random({2, 64}, 3), y = pto::Tensor<float>::zeros({2, 64});
  k[{.block_dim = 1}].run_sync(x, y);
  for (int64_t i = 0; i < 128; ++i) CHECK(y[i] == x[i] * 2.0f);
  const auto ck = k[{.block_dim = 1}].compile(x, y);
  REQUIRE(ck->ir.mode == pto::ir::KernelMode::Mix);
  const auto code = pto::backend::compile_kernel(ck->ir, *ck->chip, {.opt_level = 2, .keep_llvm_ir = true});
  // Each part has only its own kind's code; the parts are internal to the shared object.
  CHECK(code.llvm_ir.find("define hidden void @" + code.symbol + "_aic(") != std::string::npos);
  CHECK(code.llvm_ir.find("define hidden void @" + code.symbol + "_aiv(") != std::string::npos);
  CHECK(code.llvm_ir.find("define void @" + code.symbol + "(") != std::string::npos);
  CHECK(static_cast<bool>(code.fn));
}
