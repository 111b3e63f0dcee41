// SPDX-License-Identifier: MIT
// What TopK's planners share: core/topk.cpp (validation, the strategies, planTopK) and core/topk_select.cpp
// (sampled radix selection).
#pragma once

#include "core/planners.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace ripple::core::topk {

constexpr uint64_t kSlots = 1024; // entries a workgroup sorts in shared memory (topk_tile.comp's SLOTS)

// Appends a dispatch of `kernel` (without its MODE suffix when `modes`: the runtime picks fast or portable).
void addDispatch(Plan& plan, std::string kernel, std::vector<PlanBinding> bindings, uint32_t arg,
                 uint64_t groups, bool modes = false);
// TopK's error for scratch that one binding cannot hold: "TopK: its <what> needs more than the device's
// maxStorageBufferRange (<limit>) in one binding".
Status scratchTooLarge(const std::string& what, const PlanLimits& limits);
// The params block of every TopK kernel (layout in glsl/include/ripple/topk.glsl).
void topkParams(std::vector<uint32_t>& p, const TopKDesc& desc, uint64_t T, uint32_t log2T, uint64_t tiles,
                uint64_t perGroup, uint64_t totalTiles, uint64_t rows, uint32_t levels);
// The key mapping of a kernel with one variant a width, not a type (glsl/include/ripple/topk_key.glsl's
// KEY_RUNTIME; topk_chunk): 0 unsigned, 1 signed, else the float's +infinity bits.
uint32_t keyKind(DataType type);
// Sampled radix selection of rows over 4096 elements, types up to 32 bits (core/topk_select.cpp); with
// `large`, K over kSlots: the winners' candidates gathered and sorted by a sample sort.
Result<Plan> planSelect(Plan plan, const TopKDesc& desc, uint64_t rows, const PlanLimits& limits,
                        bool large = false);

} // namespace ripple::core::topk
