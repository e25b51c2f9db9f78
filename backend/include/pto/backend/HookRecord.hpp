#pragma once
// The words of a hook log's records: what the emulator's HookLog (runtime/src/emulator/HookLog.hpp)
// writes and plays, and what generated code writes itself at a CoreContext's hook cursor
// (KernelABI.hpp; codegen: CodeGen::hook_record). One layout, stated once here.
//
// A record's first word holds the instruction in its low 30 bits, the writing core's slot in its
// block in the next two (CoreContext::hook_tag) and the kind in the two after.
//   exec:          first word, amount, gm_lo, gm_hi, then one word per tile slot of the instruction
//   sync:          first word, event, slot
//   sync, packed:  one word, event + 1 and slot + 1 (each under 2^15; -1 packs as 0) in its top 30
//                  bits: a flag's event id and an automatic mutex's slot, nearly every sync
//   cross:         one word, set or wait, the pipe and the event id in its top bits (written by the
//                  emulator only)
#include <cstddef>
#include <cstdint>

namespace pto::hook_record {

inline constexpr int kSlotShift = 30, kKindShift = 32, kPackedShift = 34;
inline constexpr uint64_t kInstrMask = (uint64_t{1} << kSlotShift) - 1;
inline constexpr int64_t kExec = 0, kSync = 1, kSyncPacked = 2, kCross = 3;
inline constexpr int kPackedBits = 15;  // each of event + 1 and slot + 1, unsigned
inline constexpr int kCrossPipeShift = kPackedShift + 1, kCrossEventShift = kCrossPipeShift + 4;
inline constexpr size_t kExecWords = 4, kSyncWords = 3;
/// Words a writer prefetches (for writing) ahead of the record it writes, and keeps room for past
/// the largest record (vector_add writes 34 a tile).
inline constexpr size_t kAhead = 128;

}  // namespace pto::hook_record
