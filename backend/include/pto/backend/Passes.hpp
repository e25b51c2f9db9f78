#pragma once
// The passes between a traced kernel and code generation, and the straight-line lowering
// script that runs them. With PTO_DEBUG=2 the IR is printed to stderr after every pass.
#include "pto/backend/ChipProfile.hpp"
#include "pto/ir/Kernel.hpp"

namespace pto::backend {

/// Layouts (docs/semantics.md, "Layouts"): gives each tile group without a declared layout the
/// chip's default for its memory, checks declared ones against what the memory takes (PyPTO Pro's
/// messages), and sets each load, store and move's InstrInfo::convert to the conversion its data
/// path performs; a conversion the path cannot perform (ND into a ZN tile, NZ out to a DN view, an
/// untiled Mat tile into L0) is a UserError naming the instruction.
void resolve_layouts(ir::Kernel& k, const ChipProfile& chip);

/// Where instruction `i` of `k` is, for its UserErrors: kernel, pipe, instruction text and line.
ErrorSite instr_site(const ir::Kernel& k, const ir::Instr& i);

/// Places every tile group in its memory space: slot 0 at `offset`, slots `slot_bytes` apart,
/// each aligned to the space's alignment. Groups with `addrs` (PyPTO Pro's addrs=) go where they
/// say (aligned, inside the memory, a constant step: else a UserError); placed groups that
/// overlap without starting at the same byte get a warning (same start: an alias on purpose); the
/// others go first-fit around them. A slot takes its tile's bytes as laid out (ir::layout_bytes:
/// whole blocks for fractal layouts). Tiles that alias must see the same bytes in the same order:
/// one layout and shape, two ND tiles, or two single-row/column ND/DN tiles; else a UserError. A kernel whose tiles (x group depth) exceed a space's capacity
/// is a UserError listing the groups, their sizes and the capacity.
void plan_memory(ir::Kernel& k, const ChipProfile& chip);

/// Static checks of data movement: a 2-D tile moved to or from GM must have a row pitch that is
/// a multiple of the space's alignment (32 B for UB); constant slice extents must fit the tile
/// and the tensor; constant GM offsets must be aligned.
void validate_moves(const ir::Kernel& k, const ChipProfile& chip);

/// auto_mutex: guards every tile access with its slot's mutex on the instruction's pipe, which
/// orders producers and consumers of each slot (RAW, WAR, WAW) and nothing else.
void insert_auto_mutex(ir::Kernel& k);
/// Per tile group, whether auto_mutex orders every access to its slots: every statement that
/// touches the group is an instruction still wrapped in the locks and unlocks insert_auto_mutex
/// gave it (runtime checks between them allowed), and no cross-core move writes the group. Two
/// accesses to such a slot are always ordered (the later one's lock waits for the earlier one's
/// unlock), so a race checker can leave them out. A group untouched counts as ordered; with
/// auto_mutex off, or after remove_sync took one of a group's syncs, the group is not ordered.
std::vector<bool> mutex_ordered_groups(const ir::Kernel& k);

/// Kernel modes and core kinds: every instruction must run on a core that has its pipe and
/// memories (AIV: Vec, V/MTE2/MTE3; AIC: Mat/Left/Right/Acc, MTE1/MTE2/M/FIX), a mix kernel's
/// instructions sit in sections, cross-core flags only in mix kernels, moves only on the chip's paths.
void validate_cores(const ir::Kernel& k, const ChipProfile& chip);
/// The alignment of GM offsets and tile row pitches for moves between GM and `space`: the
/// space's alignment for the DMA paths (Vec, Mat), 1 for FIX writes from Acc.
int64_t gm_move_alignment(const ChipProfile& chip, ir::MemSpace space);
/// Makes the runtime checks of GM transfers (Load, Store) and tile expressions (VecCompute,
/// RowReduce) explicit ir::Check statements before each instruction, and gives each tile
/// expression its extent and column-broadcast operands (docs/semantics.md). Checks that hold at
/// trace time are left out. Runs last: the engines rely on it.
void insert_checks(ir::Kernel& k, const ChipProfile& chip);

struct LowerOptions {
  bool auto_mutex = false;
  ir::KernelMode mode = ir::KernelMode::Auto;  // Auto keeps the mode deduced by tracing
};

/// Runs the passes in order.
void lower(ir::Kernel& k, const ChipProfile& chip, const LowerOptions& options);

/// PTO_DEBUG level from the environment (0 when unset).
int debug_level();

}  // namespace pto::backend
