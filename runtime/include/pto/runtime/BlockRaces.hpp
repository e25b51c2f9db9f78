#pragma once
// Races between the blocks of one launch. The blocks of a launch are never ordered (no flag,
// barrier or mutex reaches across blocks), so a GM element that one block writes and another
// block reads or writes is a race whatever the timing: its value depends on which block the
// hardware runs first. The check runs after the launch over every core's GM accesses
// (CoreModel::gm_spans), per tensor, as a sweep over the accesses sorted by their first element,
// comparing regions of one view as rectangles.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "pto/runtime/PipelineModel.hpp"

namespace pto {

/// `cores[c]`: core c's model (cores of block b are b * per_block .. b * per_block + per_block - 1).
/// `core_name(c)` names core c in reports ("block 2, AIV 5"). `memory_of`: the memory of each
/// tensor, as the cores were told (CoreModel::check_gm_by_memory; it names shared buffers in
/// reports). At most `max_reports` distinct instruction pairs are reported, each with its count.
std::vector<RaceReport> find_block_races(const CompiledKernel& k, std::span<const CoreModel* const> cores, int per_block,
                                         const std::function<std::string(int core)>& core_name, std::span<const int> memory_of = {},
                                         size_t max_reports = 16);

}  // namespace pto
