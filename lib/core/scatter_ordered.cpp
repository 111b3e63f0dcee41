// SPDX-License-Identifier: MIT
// The scatters' deterministic mode (ScatterNDDesc / ScatterElementsDesc `Deterministic`): updates applied
// in IndicesTensor's row-major order whatever the device's workgroup order. The op's keys pass turns each
// update (ScatterND: each index tuple) into a pair (target, update number); a stable radix sort by target
// (glsl/include/ripple/pair_sort.glsl) lines each target's updates up in row-major order; the last pass
// (glsl/include/ripple/scatter_ordered.glsl) applies each run in order, one writer per element.
#include "core/planners.hpp"
#include "core/shape.hpp"

#include <algorithm>
#include <numeric>

namespace ripple::core {

uint32_t groupOrderSeedForTests = 0;

void appendGroupOrder(std::vector<uint32_t>& params, uint32_t groups) {
    uint32_t multiplier = 1, offset = 0;
    if (groupOrderSeedForTests != 0 && groups > 1) {
        uint64_t x = groupOrderSeedForTests * 0x9E3779B97F4A7C15ull; // a different shuffle per seed
        x ^= x >> 29;
        offset = static_cast<uint32_t>(x % groups);
        multiplier = static_cast<uint32_t>((x >> 32) % groups);
        while (std::gcd(multiplier, groups) != 1) multiplier = (multiplier + 1) % groups;
    }
    params.push_back(multiplier);
    params.push_back(offset);
}

Status addOrderedScatter(Plan& plan, const OrderedScatter& s, const PlanLimits& limits) {
    // Sort blocks of 256 * rounds pairs: about 256 blocks up to 524,288 pairs (each pass's kernels are then
    // a round or two deep per workgroup), 2048 pairs from there on (the counts stay 1 KiB per 2048 pairs).
    const uint64_t rounds = std::min<uint64_t>(std::max<uint64_t>((s.pairs + 65535) / 65536, 1), 8);
    const uint64_t pairBytes = s.pairs * 4, blocks = (s.pairs + 256 * rounds - 1) / (256 * rounds);
    const uint64_t countBytes = (blocks + 1) * 256 * 4; // the counts, then the digits' totals
    // A key takes 4 bytes per update (ScatterND: per tuple) and the counts at most 4 bytes per update and
    // 1 KiB: no more than a packed IndicesTensor, but an IndicesTensor of zero strides (every update reading
    // the same indices) binds few bytes for many updates, so each binding is checked against the device.
    // Scratch: keys A, numbers A, keys B, numbers B (the sort's ping-pong), then the digit counts.
    ScratchLayout scratch;
    PlanBinding keys[2], numbers[2];
    keys[0] = scratch.add(pairBytes);
    numbers[0] = scratch.add(pairBytes);
    keys[1] = scratch.add(pairBytes);
    numbers[1] = scratch.add(pairBytes);
    const PlanBinding counts = scratch.add(countBytes);
    if (scratch.largest() > limits.maxStorageBufferRange)
        return unsupported(plan.op, "its deterministic sort of " + std::to_string(s.pairs) +
                                        " updates needs more than the device's maxStorageBufferRange (" +
                                        std::to_string(limits.maxStorageBufferRange) + ") in one binding");
    plan.scratchBytes = std::max(plan.scratchBytes, scratch.bytes());
    auto& p = plan.params;

    PlanDispatch keysPass;
    keysPass.kernel = s.keysKernel;
    keysPass.bindings = {
        {BindingKind::Params}, {BindingKind::Tensor, 1}, keys[0], numbers[0], {BindingKind::Status}};
    keysPass.paramsBase = s.keysBase;
    keysPass.groups = groupsFor(s.pairs);
    appendGroupOrder(p, keysPass.groups); // the keys params block ends with it
    plan.dispatches.push_back(std::move(keysPass));
    plan.usesStatus = true;

    // Radix passes over the bits of the largest key, `targets` (out of range).
    const uint32_t sortBase = static_cast<uint32_t>(p.size());
    const uint32_t blockGroups = static_cast<uint32_t>(std::min<uint64_t>(blocks, 65535));
    p.push_back(static_cast<uint32_t>(s.pairs));
    p.push_back(static_cast<uint32_t>(blocks));
    appendGroupOrder(p, blockGroups);
    p.push_back(static_cast<uint32_t>(rounds));
    // A radix pass's dispatch, field by field (a brace list that stops short of PlanDispatch's last fields
    // draws clang's -Wmissing-field-initializers).
    const auto sortDispatch = [sortBase](const char* kernel, bool hasModes, std::vector<PlanBinding> bindings,
                                         uint32_t shift, uint32_t groups) {
        PlanDispatch d;
        d.kernel = kernel;
        d.hasModes = hasModes;
        d.bindings = std::move(bindings);
        d.paramsBase = sortBase;
        d.arg = shift;
        d.groups = groups;
        return d;
    };
    uint32_t pass = 0;
    for (uint32_t shift = 0; shift < 32 && (uint64_t(s.targets) >> shift) != 0; shift += 8, ++pass) {
        const uint32_t from = pass % 2, to = 1 - from;
        PlanDispatch hist = sortDispatch("pair_sort_hist", false, {{BindingKind::Params}, keys[from], counts},
                                         shift, blockGroups);
        // hasModes: the fast variants scan with subgroup operations. A scan workgroup per digit.
        PlanDispatch scan = sortDispatch("pair_sort_scan", true, {{BindingKind::Params}, counts}, shift, 256);
        PlanDispatch scatter =
            sortDispatch("pair_sort_scatter", true,
                         {{BindingKind::Params}, keys[from], numbers[from], counts, keys[to], numbers[to]},
                         shift, blockGroups);
        plan.dispatches.push_back(std::move(hist));
        plan.dispatches.push_back(std::move(scan));
        if (s.splitScatter) { // the same bindings; each kernel declares the ones it uses
            PlanDispatch values = scatter;
            scatter.kernel = "pair_sort_scatter_keys";
            values.kernel = "pair_sort_scatter_values";
            plan.dispatches.push_back(std::move(scatter));
            plan.dispatches.push_back(std::move(values));
            continue;
        }
        plan.dispatches.push_back(std::move(scatter));
    }

    const TensorDesc& upd = plan.tensors[2];
    // Slices of whole 16-byte blocks with a reduction: a block of 4 elements an invocation
    // (scatter_ordered_blocks; H200, 65536 rows of 256 FLOAT32 ADD in place: bench/NOTES.md issue 59).
    const bool byBlock = s.blocks && s.reduction != ScatterReduction::None;
    const uint32_t base = static_cast<uint32_t>(p.size());
    p.push_back(static_cast<uint32_t>(s.pairs));
    p.push_back(static_cast<uint32_t>(byBlock ? s.slice / 4 : s.slice)); // by block: blocks per slice
    p.push_back(s.targets);
    p.push_back(static_cast<uint32_t>(s.reduction));
    // The element-wise apply reads an update per element: no divisions if packed. The blocks need packed.
    if (!byBlock) appendPackedView(p, base, upd);
    // Runs of 16 or more updates per target on average (one element each): a workgroup per target spreads
    // each run's loads (bench/NOTES.md "Issue 19, continued: the deterministic scatters' apply pass"); else
    // an invocation per run and element (or block).
    const bool longRuns = s.reduction != ScatterReduction::None && s.slice == 1 && s.targets > 0 &&
                          s.pairs >= 16ull * s.targets;
    PlanDispatch apply;
    apply.kernel =
        byBlock ? std::string("scatter_ordered_blocks.") + typeClass(upd.DataType)
        : s.reduction == ScatterReduction::None
            ? std::string("scatter_ordered_last.") + elementClass(upd.DataType)
            : std::string(longRuns ? "scatter_ordered_runs." : "scatter_ordered.") + typeClass(upd.DataType);
    apply.bindings = {{BindingKind::Params},
                      keys[pass % 2],
                      numbers[pass % 2],
                      {BindingKind::Tensor, 2},
                      {BindingKind::Tensor, 3}};
    apply.paramsBase = base;
    apply.smallForm = !byBlock; // scatter_ordered_blocks has no small form
    // scatter_ordered(_last) takes four elements per invocation where the slice length is a multiple of 4.
    const uint64_t perInvocation = s.slice % 4 == 0 ? 4 : 1;
    apply.groups =
        longRuns ? std::min<uint32_t>(s.targets, 65535u) : groupsFor(upd.elementCount() / perInvocation);
    appendGroupOrder(p, apply.groups);
    plan.dispatches.push_back(std::move(apply));
    return {};
}

} // namespace ripple::core
