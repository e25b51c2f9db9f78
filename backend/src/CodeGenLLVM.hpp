#pragma once
// Lowered IR -> LLVM IR: one function `void symbol(CoreContext*)` per kernel specialisation (or,
// for a mix kernel, one per core kind and a dispatcher, compiled side by side).
// Tile loops are emitted as simple counted loops over contiguous rows so that the loop
// vectoriser turns each fused vector instruction into SIMD code.
#include <optional>
#include <string>

#include "LLVMHeaders.hpp"
#include "pto/backend/ChipProfile.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

/// `only`: just the code one kind of core runs (CodeGen's constructor).
void emit_kernel_llvm(const ir::Kernel& k, const ChipProfile& chip, llvm::Module& m, const std::string& symbol,
                      const llvm::TargetMachine& tm, bool instrument, bool elide_copies, bool fuse_rows,
                      std::optional<ir::CoreKind> only = std::nullopt);

/// `void symbol(CoreContext*)` calling `aic` or `aiv` (declared here, defined in other objects of
/// the same shared object) by the context's core kind: a mix kernel compiled as two parts.
void emit_core_dispatch(llvm::Module& m, const std::string& symbol, const std::string& aic, const std::string& aiv,
                        const llvm::TargetMachine& tm);

}  // namespace pto::backend
