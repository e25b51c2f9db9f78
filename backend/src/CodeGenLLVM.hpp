#pragma once
// Lowered IR -> LLVM IR: one function `void symbol(CoreContext*)` per kernel specialisation.
// Tile loops are emitted as simple counted loops over contiguous rows so that the loop
// vectoriser turns each fused vector instruction into SIMD code.
#include <string>

#include "LLVMHeaders.hpp"
#include "pto/backend/ChipProfile.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

void emit_kernel_llvm(const ir::Kernel& k, const ChipProfile& chip, llvm::Module& m, const std::string& symbol,
                      const llvm::TargetMachine& tm, bool instrument);

}  // namespace pto::backend
