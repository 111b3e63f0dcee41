// SPDX-License-Identifier: MIT
// ScatterElements (DML_SCATTER_OPERATOR_DESC; ONNX ScatterElements): validation and plan.
#include "core/planners.hpp"
#include "core/shape.hpp"

namespace ripple::core {

Result<Plan> planScatterElements(const ScatterElementsDesc& desc, const PlanLimits& limits) {
    const char* op = "ScatterElements";
    const TensorDesc& in = desc.InputTensor;
    const TensorDesc& ind = desc.IndicesTensor;
    const TensorDesc& upd = desc.UpdatesTensor;
    if (Status s = checkScatterTensors(op, in, ind, upd, desc.OutputTensor, desc.Reduction, limits); !s)
        return s;
    const uint32_t n = in.dimensionCount();
    if (desc.Axis >= n)
        return invalid(op, "Axis (" + std::to_string(desc.Axis) +
                               ") must be less than InputTensor.DimensionCount (" + std::to_string(n) + ")");
    if (Status s = checkSizes(op, "UpdatesTensor", upd, ind.Sizes, "UpdatesTensor has IndicesTensor's sizes");
        !s)
        return s;
    for (uint32_t d = 0; d < n; ++d)
        if (d != desc.Axis && ind.Sizes[d] > in.Sizes[d])
            return invalid(op, "IndicesTensor.Sizes[" + std::to_string(d) + "] (" +
                                   std::to_string(ind.Sizes[d]) + ") exceeds InputTensor.Sizes[" +
                                   std::to_string(d) + "] (" + std::to_string(in.Sizes[d]) +
                                   "); only Sizes[Axis] may be larger");

    if (Status s = checkCountTensor(op, desc.CountTensor); !s) return s;
    if (!desc.CountTensor.Sizes.empty() && upd.elementCount() >= UINT32_MAX)
        return invalid(op, "with a CountTensor, UpdatesTensor holds at most 2^32 - 2 elements");

    Plan plan = scatterPlan(op, in, ind, upd, desc.OutputTensor);
    addCountPass(plan, desc.CountTensor, upd.elementCount()); // CountTensor counts updates elements
    if (in.elementCount() == 0) return plan;
    const uint64_t lineBytes = uint64_t(in.Sizes[n - 1]) * elementSize(in.DataType);
    const uint64_t lines = lineBytes ? in.elementCount() / in.Sizes[n - 1] : 0;
    // With a reduction, only where the lines fill the GPU: one line is one workgroup, and a few long lines
    // with many updates each (1,024 elements, 1,048,576 updates) would run on a few SMs. Only lines of at
    // least kFusedMinLineBytes: the workgroup's 256 invocations move one 16-byte block each, so a shorter
    // line leaves most of them idle, and a workgroup per 16-byte line made 70000 lines take 3 s on lavapipe.
    constexpr uint64_t kFusedMinLineBytes = 8192;
    const bool fused = !limits.smallKernels && !desc.Deterministic &&
                       (desc.Reduction == ScatterReduction::None || lines >= 128) && desc.Axis == n - 1 &&
                       upd.elementCount() != 0 && elementSize(in.DataType) <= 4 && lineBytes % 16 == 0 &&
                       lineBytes >= kFusedMinLineBytes && lineBytes <= 16384 &&
                       effectiveStrides(in) == packedStrides(in.Sizes);
    if (fused) { // params: glsl/scatter_elements_rows.comp. H100: bench/NOTES.md "Scatter v2".
        const uint32_t base = static_cast<uint32_t>(plan.params.size());
        auto& p = plan.params;
        p.push_back(static_cast<uint32_t>(lines));
        p.push_back(in.Sizes[n - 1]);
        p.push_back(static_cast<uint32_t>(lineBytes / 16));
        p.push_back(ind.Sizes[n - 1]);
        p.push_back(n);
        for (uint32_t d = 0; d < 8; ++d) p.push_back(d < n ? in.Sizes[d] : 1);
        for (uint32_t d = 0; d < 8; ++d) p.push_back(d < n ? ind.Sizes[d] : 1);
        appendView(p, base, ind.Sizes, effectiveStrides(ind));
        appendView(p, base, upd.Sizes, effectiveStrides(upd));
        PlanDispatch d;
        d.kernel = desc.Reduction == ScatterReduction::None
                       ? std::string("scatter_elements_rows.") + elementClass(in.DataType)
                       : std::string("scatter_elements_rows_reduce.") + typeClass(in.DataType);
        d.kernel += std::string(".") + indexClass(ind.DataType);
        d.bindings = {{BindingKind::Params},    {BindingKind::Tensor, 0}, {BindingKind::Tensor, 1},
                      {BindingKind::Tensor, 2}, {BindingKind::Tensor, 3}, {BindingKind::Status}};
        d.paramsBase = base;
        d.groups = static_cast<uint32_t>(std::min<uint64_t>(lines, 65535));
        appendGroupOrder(p, d.groups);
        if (desc.Reduction != ScatterReduction::None) p.push_back(static_cast<uint32_t>(desc.Reduction));
        d.skipInPlace = true;
        plan.dispatches.push_back(std::move(d));
        plan.usesStatus = true;
    } else {
        addCopy(plan, 0, 3);
    }
    if (upd.elementCount() == 0) return plan;

    uint32_t base = static_cast<uint32_t>(plan.params.size());
    auto& p = plan.params;
    std::vector<uint32_t> pitch = packedStrides(in.Sizes);
    if (desc.Deterministic) { // params: glsl/scatter_elements_keys.comp
        p.push_back(static_cast<uint32_t>(upd.elementCount()));
        p.push_back(desc.Axis);
        p.push_back(in.Sizes[desc.Axis]);
        appendView(p, base, ind.Sizes, effectiveStrides(ind));
        for (uint32_t d = 0; d < 8; ++d) p.push_back(d < n ? pitch[d] : 0);
        p.push_back(static_cast<uint32_t>(in.elementCount()));
        OrderedScatter s;
        s.keysKernel = std::string("scatter_elements_keys.") + indexClass(ind.DataType);
        s.keysBase = base;
        s.pairs = upd.elementCount();
        s.targets = static_cast<uint32_t>(in.elementCount());
        s.reduction = desc.Reduction;
        s.splitScatter = limits.smallKernels;
        if (Status st = addOrderedScatter(plan, s, limits); !st) return st;
        return plan;
    }

    // Scatter pass; params layout documented in glsl/include/ripple/scatter_elements_pass.glsl.
    p.push_back(static_cast<uint32_t>(upd.elementCount()));
    p.push_back(desc.Axis);
    p.push_back(in.Sizes[desc.Axis]);
    appendView(p, base, ind.Sizes, effectiveStrides(ind));
    appendView(p, base, upd.Sizes, effectiveStrides(upd));
    for (uint32_t d = 0; d < 8; ++d) p.push_back(d < n ? pitch[d] : 0);

    const size_t first = plan.dispatches.size();
    addScatterPass(plan, "scatter_elements", base, desc.Reduction, true, limits);
    for (size_t i = first; i < plan.dispatches.size(); ++i)
        plan.dispatches[i].onlyInPlace = fused; // out of place, the fused pass did it all
    return plan;
}

} // namespace ripple::core
