// SPDX-License-Identifier: MIT
// ScatterND (DML_SCATTER_ND_OPERATOR_DESC; ONNX ScatterND): validation and plan.
#include "core/planners.hpp"
#include "core/shape.hpp"

namespace ripple::core {

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
    if (desc.Deterministic) { // params: glsl/scatter_nd_keys.comp
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
        if (Status st = addOrderedScatter(plan, s, limits); !st) return st;
        return plan;
    }
    if (desc.Reduction == ScatterReduction::None && esize <= 4 &&
        (slice * esize) % 16 == 0 && effectiveStrides(upd) == packedStrides(upd.Sizes)) {
        // Slices of whole 16-byte blocks (glsl/scatter_nd_rows.comp): 16-byte accesses across each slice.
        // H100, 65536 rows of 256 FLOAT32 in place: bench/NOTES.md "Scatter v1". Small devices too (its
        // small form: 4 storage buffers): the element pass took 2.5x its time on the H200 (issue 58).
        const uint64_t blocks = slice * esize / 16;
        const uint32_t base = static_cast<uint32_t>(plan.params.size());
        auto& p = plan.params;
        p.push_back(static_cast<uint32_t>(tuples * blocks));
        p.push_back(static_cast<uint32_t>(blocks));
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
        d.groups = groupsFor(tuples * blocks, limits.groupSize());
        plan.dispatches.push_back(std::move(d));
        plan.usesStatus = true;
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
