#pragma once
// What a launch does with the races its checker found (JitOptions::on_race). Private to the
// emulator.
#include "pto/runtime/CompiledKernel.hpp"
#include "pto/runtime/LaunchProfile.hpp"

namespace pto::emulator {

/// report: nothing. warn: each race not printed before for this specialisation goes to stderr
/// (both instructions, their pipes and source lines). fail: a UserError with every race, at the
/// first race's second instruction.
void apply_race_policy(const CompiledKernel& k, const LaunchProfile& prof);

}  // namespace pto::emulator
