// SPDX-License-Identifier: MIT
// TopK with a GPU-side count (TopKDesc::CountTensor; docs/SEMANTICS.md "GPU-side counts"): the plan of the
// same TopK on a packed input, run on a copy in scratch that glsl/topk_count_mask.comp gathers first with
// every element past the count made last-ranked. Every strategy then works unchanged: ties go to the lower
// index, so the present elements come first and the padding fills the outputs past the count in index
// order.
#include "core/planners.hpp"
#include "core/shape.hpp"

namespace ripple::core {

namespace {
// The value that ranks last in `direction` (SEMANTICS.md's total order): DECREASING the least (-inf, the
// integer minimum, 0), INCREASING the greatest (a quiet NaN, the integer maximum). Bits as [low, high].
std::pair<uint32_t, uint32_t> lastRanked(DataType type, AxisDirection direction) {
    const bool down = direction == AxisDirection::Decreasing;
    switch (type) {
    case DataType::Float32:
        return {down ? 0xFF800000u : 0x7FC00000u, 0};
    case DataType::Float16:
        return {down ? 0xFC00u : 0x7E00u, 0};
    case DataType::BFloat16:
        return {down ? 0xFF80u : 0x7FC0u, 0};
    case DataType::Int8:
        return {down ? 0x80u : 0x7Fu, 0};
    case DataType::Int16:
        return {down ? 0x8000u : 0x7FFFu, 0};
    case DataType::Int32:
        return {down ? 0x80000000u : 0x7FFFFFFFu, 0};
    case DataType::Int64:
        return {down ? 0u : 0xFFFFFFFFu, down ? 0x80000000u : 0x7FFFFFFFu};
    case DataType::UInt8:
        return {down ? 0u : 0xFFu, 0};
    case DataType::UInt16:
        return {down ? 0u : 0xFFFFu, 0};
    case DataType::UInt32:
        return {down ? 0u : 0xFFFFFFFFu, 0};
    default: // UInt64
        return {down ? 0u : 0xFFFFFFFFu, down ? 0u : 0xFFFFFFFFu};
    }
}
} // namespace

Result<Plan> planTopKCounted(const TopKDesc& desc, const PlanLimits& limits) {
    const char* op = "TopK";
    if (Status s = checkCountTensor(op, desc.CountTensor); !s) return s;
    TopKDesc plain = desc;
    plain.CountTensor = {};
    if (auto checked = planTopK(plain, limits); !checked) return checked.status(); // the caller's tensors
    TopKDesc packed = plain;
    packed.InputTensor.Strides.clear();
    const uint64_t copyBytes = calcBufferTensorSize(packed.InputTensor);
    if (copyBytes > limits.maxStorageBufferRange)
        return unsupported(op, "with a CountTensor, the packed copy of InputTensor (" +
                                   std::to_string(copyBytes) +
                                   " bytes) exceeds the device's "
                                   "maxStorageBufferRange (" +
                                   std::to_string(limits.maxStorageBufferRange) + ")");
    auto planned = planTopK(packed, limits);
    if (!planned) return planned.status();
    Plan plan = std::move(planned.value());
    plan.tensors[0] = desc.InputTensor; // bound as given; only the mask pass reads it
    plan.outputsEnd = static_cast<uint32_t>(plan.tensors.size());
    const uint32_t count = static_cast<uint32_t>(plan.tensors.size());
    plan.tensorNames.push_back("CountTensor");
    plan.tensors.push_back(desc.CountTensor);
    if (plan.dispatches.empty()) return plan; // K = 0 or no elements: nothing runs, the count is not read

    // The copy after the strategy's own scratch; every read of the input reads it instead.
    const PlanBinding copy{BindingKind::Scratch, 0, (plan.scratchBytes + 255) & ~uint64_t(255), copyBytes};
    plan.scratchBytes = copy.offset + copyBytes;
    for (PlanDispatch& d : plan.dispatches)
        for (PlanBinding& b : d.bindings)
            if (b.kind == BindingKind::Tensor && b.tensor == 0) b = copy;

    const TensorDesc& in = desc.InputTensor;
    const uint32_t base = static_cast<uint32_t>(plan.params.size());
    auto& p = plan.params;
    p.push_back(static_cast<uint32_t>(in.elementCount()));
    appendView(p, base, in.Sizes, effectiveStrides(in));
    p.push_back(in.Sizes[desc.Axis]);
    p.push_back(static_cast<uint32_t>(product(in.Sizes, desc.Axis + 1, in.Sizes.size())));
    const auto [low, high] = lastRanked(in.DataType, desc.AxisDirection);
    p.push_back(low);
    p.push_back(high);
    PlanDispatch mask;
    mask.kernel = std::string("topk_count_mask.") + elementClass(in.DataType);
    mask.bindings = {{BindingKind::Params},
                     {BindingKind::Tensor, 0},
                     {BindingKind::Tensor, count},
                     copy,
                     {BindingKind::Status}};
    mask.paramsBase = base;
    const uint64_t perThread = elementSize(in.DataType) >= 4 ? 1 : 4 / elementSize(in.DataType);
    mask.groups = groupsFor((in.elementCount() + perThread - 1) / perThread);
    plan.dispatches.insert(plan.dispatches.begin(), std::move(mask));
    plan.usesStatus = true;
    return plan;
}

} // namespace ripple::core
