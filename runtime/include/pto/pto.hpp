#pragma once
// PTO-JIT: the kernel language, the JIT runtime and the AI Core emulator.
//   #include <pto/pto.hpp>
//   namespace pl = pto::lang;
#include "pto/backend/ChipProfile.hpp"
#include "pto/lang/Lang.hpp"
#include "pto/runtime/Advisor.hpp"
#include "pto/runtime/Bench.hpp"
#include "pto/runtime/CompileCache.hpp"
#include "pto/runtime/DebugOutput.hpp"
#include "pto/runtime/DiskCache.hpp"
#include "pto/runtime/Emulator.hpp"
#include "pto/runtime/Kernel.hpp"
#include "pto/runtime/LaunchProfile.hpp"
#include "pto/runtime/Op.hpp"
#include "pto/runtime/Package.hpp"
#include "pto/runtime/TierUp.hpp"
#include "pto/runtime/PipelineModel.hpp"
#include "pto/runtime/Profiler.hpp"
#include "pto/runtime/Stream.hpp"
#include "pto/runtime/Tensor.hpp"
