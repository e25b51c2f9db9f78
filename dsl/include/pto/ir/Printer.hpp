#pragma once
// Human-readable IR, as printed by PTO_DEBUG=2 after every pass.
#include <string>

#include "pto/ir/Kernel.hpp"

namespace pto::ir {

std::string to_string(const Expr& e, const Kernel* kernel = nullptr);
std::string to_string(const Stmt& s, const Kernel* kernel = nullptr);
std::string to_string(const Kernel& k);

}  // namespace pto::ir
