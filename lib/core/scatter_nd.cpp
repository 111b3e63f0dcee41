// SPDX-License-Identifier: MIT
// ScatterND (DML_SCATTER_ND_OPERATOR_DESC; ONNX ScatterND): validation and plan.
#include "core/planners.hpp"
#include "core/shape.hpp"

namespace ripple::core {

// The claimed block path's zeroed scratch at most (2 bits a target, or 4 bytes in deterministic NONE):
// beyond, the element pass or the sort.
constexpr uint64_t kMaxClaimBytes = 16ull << 20;
// Updates a reduction needs for the claimed path (see planScatterND): between the two sizes measured.
uint64_t minClaimedUpdates = 1ull << 21;

Result<Plan> planScatterND(const ScatterNDDesc& desc, const PlanLimits& limits) {
    const char* op = "ScatterND";
    const TensorDesc& in = desc.InputTensor;
    const TensorDesc& ind = desc.IndicesTensor;
    const TensorDesc& upd = desc.UpdatesTensor;
    if (Status s = checkScatterTensors(op, in, ind, upd, desc.OutputTensor, desc.Reduction, limits); !s)
        return s;
    const uint32_t n = in.dimensionCount();
    const uint32_t rIn = desc.InputDimensionCount, rInd = desc.IndicesDimensionCount;
    if (rIn < 1 || rIn > n)
        return invalid(op, "InputDimensionCount (" + std::to_string(rIn) +
                               ") must be 1 to InputTensor.DimensionCount (" + std::to_string(n) + ")");
    if (rInd < 1 || rInd > n)
        return invalid(op, "IndicesDimensionCount (" + std::to_string(rInd) +
                               ") must be 1 to IndicesTensor.DimensionCount (" + std::to_string(n) + ")");
    for (uint32_t d = 0; d < n - rIn; ++d)
        if (in.Sizes[d] != 1)
            return invalid(op, "InputTensor.Sizes[" + std::to_string(d) + "] (" +
                                   std::to_string(in.Sizes[d]) +
                                   ") must be 1: only the last InputDimensionCount (" + std::to_string(rIn) +
                                   ") sizes are meaningful");
    for (uint32_t d = 0; d < n - rInd; ++d)
        if (ind.Sizes[d] != 1)
            return invalid(op, "IndicesTensor.Sizes[" + std::to_string(d) + "] (" +
                                   std::to_string(ind.Sizes[d]) +
                                   ") must be 1: only the last IndicesDimensionCount (" +
                                   std::to_string(rInd) + ") sizes are meaningful");
    const uint32_t q = ind.Sizes[n - 1];
    // q = 0 (ONNX ScatterND-18; a ripple addition): empty tuples, each addressing the whole tensor. The
    // kernels' tuple loops then read no index at all.
    if (q > rIn)
        return invalid(op, "IndicesTensor.Sizes[" + std::to_string(n - 1) + "] (" + std::to_string(q) +
                               "), the index tuple length, must be 0 to InputDimensionCount (" +
                               std::to_string(rIn) + ")");
    std::vector<uint32_t> meaningful(ind.Sizes.end() - rInd, ind.Sizes.end() - 1);
    meaningful.insert(meaningful.end(), in.Sizes.end() - (rIn - q), in.Sizes.end());
    if (meaningful.size() > n)
        return invalid(op, "UpdatesTensor needs " + std::to_string(meaningful.size()) +
                               " dimensions (IndicesDimensionCount - 1 + InputDimensionCount - q), more than "
                               "DimensionCount (" +
                               std::to_string(n) + ")");
    std::vector<uint32_t> expected(n - meaningful.size(), 1);
    expected.insert(expected.end(), meaningful.begin(), meaningful.end());
    if (Status s =
            checkSizes(op, "UpdatesTensor", upd, expected,
                       "leading 1s, IndicesTensor's meaningful sizes without the last, then InputTensor's "
                       "trailing InputDimensionCount - q sizes");
        !s)
        return s;

    if (Status s = checkCountTensor(op, desc.CountTensor); !s) return s;
    const uint64_t rows = product(ind.Sizes, 0, n - 1); // index tuples, CountTensor's unit
    if (!desc.CountTensor.Sizes.empty() && rows >= UINT32_MAX)
        return invalid(op, "with a CountTensor, IndicesTensor holds at most 2^32 - 2 index tuples");

    Plan plan = scatterPlan(op, in, ind, upd, desc.OutputTensor);
    addCountPass(plan, desc.CountTensor, rows);
    if (in.elementCount() == 0) return plan;
    addCopy(plan, 0, 3);
    if (upd.elementCount() == 0) return plan;

    const uint32_t first = n - rIn; // first meaningful input dim
    const uint64_t slice = product(in.Sizes, first + q, n), esize = elementSize(in.DataType);
    const uint64_t tuples = upd.elementCount() / slice;
    // Slices of whole 16-byte blocks (packed updates, elements up to 32 bits) move by 16-byte accesses across
    // each slice. NONE: glsl/scatter_nd_rows.comp (H100, 65536 rows of 256 FLOAT32 in place: bench/NOTES.md
    // "Scatter v1"; small devices too: the element pass took 2.5x its time on the H200, issue 58). FLOAT32
    // reductions, and NONE in deterministic mode (any element size: the f32 variant moves bits), claim their
    // targets first (glsl/scatter_nd_claim.comp): a target slice that one tuple alone selects then takes
    // plain loads and stores instead of an atomic per element, and deterministic NONE writes each target's
    // last tuple without a sort (bench/NOTES.md, issue 59). Not on small devices (5 storage buffers).
    const bool blocks =
        esize <= 4 && (slice * esize) % 16 == 0 && effectiveStrides(upd) == packedStrides(upd.Sizes);
    const uint64_t targets = in.elementCount() / slice;
    const bool last = desc.Reduction == ScatterReduction::None;
    const uint64_t claimBytes = last ? targets * 4 : (targets + 15) / 16 * 4;
    // Reductions of fewer than minClaimedUpdates elements keep the element pass: the claim and clear levels
    // cost more than its atomics save (H200: 4096 rows of 256 ADD 14.8 us by the element pass, 15.9
    // claimed; 65536 rows 173.1 against 71.7).
    const bool claimed =
        blocks && !limits.smallKernels && desc.Deterministic == last &&
        (last || (in.DataType == DataType::Float32 && upd.elementCount() >= minClaimedUpdates)) &&
        tuples < UINT32_MAX && claimBytes <= std::min<uint64_t>(kMaxClaimBytes, limits.maxStorageBufferRange);
    if (desc.Deterministic && !claimed) { // params: glsl/scatter_nd_keys.comp
        const uint32_t base = static_cast<uint32_t>(plan.params.size());
        auto& p = plan.params;
        p.push_back(static_cast<uint32_t>(tuples));
        p.push_back(q);
        for (uint32_t j = 0; j < 8; ++j) p.push_back(j < q ? in.Sizes[first + j] : 0);
        for (uint32_t j = 0; j < 8; ++j)
            p.push_back(j < q ? static_cast<uint32_t>(product(in.Sizes, first + j + 1, n) / slice) : 0);
        appendView(p, base, ind.Sizes, effectiveStrides(ind));
        p.push_back(static_cast<uint32_t>(in.elementCount() / slice));
        OrderedScatter s;
        s.keysKernel = std::string("scatter_nd_keys.") + indexClass(ind.DataType);
        s.keysBase = base;
        s.pairs = tuples;
        s.slice = slice;
        s.targets = static_cast<uint32_t>(in.elementCount() / slice);
        s.reduction = desc.Reduction;
        s.splitScatter = limits.smallKernels;
        s.blocks = blocks && in.DataType == DataType::Float32 && !limits.smallKernels;
        if (Status st = addOrderedScatter(plan, s, limits); !st) return st;
        return plan;
    }
    if (blocks && (claimed || (last && !desc.Deterministic))) { // params: glsl/scatter_nd_rows.comp
        const uint64_t blocksPerSlice = slice * esize / 16;
        const uint32_t base = static_cast<uint32_t>(plan.params.size());
        auto& p = plan.params;
        p.push_back(static_cast<uint32_t>(tuples * blocksPerSlice));
        p.push_back(static_cast<uint32_t>(blocksPerSlice));
        p.push_back(q);
        for (uint32_t j = 0; j < 8; ++j) p.push_back(j < q ? in.Sizes[first + j] : 0);
        for (uint32_t j = 0; j < 8; ++j)
            p.push_back(j < q ? static_cast<uint32_t>(product(in.Sizes, first + j + 1, n) * esize / 16) : 0);
        appendView(p, base, ind.Sizes, effectiveStrides(ind));
        PlanDispatch d;
        d.kernel = std::string("scatter_nd_rows.") + indexClass(ind.DataType);
        d.bindings = {{BindingKind::Params},
                      {BindingKind::Tensor, 1},
                      {BindingKind::Tensor, 2},
                      {BindingKind::Tensor, 3},
                      {BindingKind::Status}};
        d.paramsBase = base;
        d.groups = groupsFor(tuples * blocksPerSlice, limits.groupSize());
        plan.usesStatus = true;
        if (!claimed) {
            plan.dispatches.push_back(std::move(d));
            return plan;
        }
        // [36] the claims (0: two bits a target, 1: the last tuple's number), [37] the reduction.
        p.push_back(last ? 1u : 0u);
        p.push_back(static_cast<uint32_t>(desc.Reduction));
        ScratchLayout zeroed(BindingKind::ZeroedScratch);
        const PlanBinding claims = zeroed.add(claimBytes);
        plan.zeroedScratchBytes = std::max(plan.zeroedScratchBytes, zeroed.bytes());
        PlanDispatch claim;
        claim.kernel = std::string("scatter_nd_claim.") + indexClass(ind.DataType);
        claim.bindings = {{BindingKind::Params}, {BindingKind::Tensor, 1}, claims, {BindingKind::Status}};
        claim.paramsBase = base;
        claim.groups = groupsFor(tuples);
        claim.smallForm = false;
        PlanDispatch clear = claim;
        clear.arg = 1;
        d.kernel = std::string("scatter_nd_rows_reduce.f32.") + indexClass(ind.DataType);
        d.hasModes = true; // FLOAT32 ADD has a fast variant (float atomic add)
        d.bindings.push_back(claims);
        d.smallForm = false;
        plan.dispatches.push_back(std::move(claim));
        plan.dispatches.push_back(std::move(d));
        plan.dispatches.push_back(std::move(clear));
        return plan;
    }

    // Scatter pass; params layout documented in glsl/include/ripple/scatter_nd_pass.glsl.
    uint32_t base = static_cast<uint32_t>(plan.params.size());
    auto& p = plan.params;
    p.push_back(static_cast<uint32_t>(upd.elementCount()));
    p.push_back(static_cast<uint32_t>(slice));
    p.push_back(q);
    for (uint32_t j = 0; j < 8; ++j) p.push_back(j < q ? in.Sizes[first + j] : 0);
    for (uint32_t j = 0; j < 8; ++j)
        p.push_back(j < q ? static_cast<uint32_t>(product(in.Sizes, first + j + 1, n)) : 0);
    appendView(p, base, ind.Sizes, effectiveStrides(ind));
    appendView(p, base, upd.Sizes, effectiveStrides(upd));

    addScatterPass(plan, "scatter_nd", base, desc.Reduction, false, limits);
    return plan;
}

} // namespace ripple::core
