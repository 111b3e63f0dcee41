// SPDX-License-Identifier: MIT
// What ScatterND's and ScatterElements' planners share: kernel classes by data type, the copy into the
// output, CountTensor's checks and pass, and the deterministic modes' passes.
#include "core/planners.hpp"
#include "core/shape.hpp"

#include <algorithm>
#include <string>

namespace ripple::core {

const char* elementClass(DataType type) {
    switch (elementSize(type)) {
    case 1:
        return "b8";
    case 2:
        return "b16";
    case 4:
        return "b32";
    default:
        return "b64";
    }
}

const char* indexClass(DataType type) {
    switch (type) {
    case DataType::Int32:
        return "i32";
    case DataType::UInt32:
        return "u32";
    case DataType::Int64:
        return "i64";
    default:
        return "u64";
    }
}

void addCopy(Plan& plan, uint32_t inputTensor, uint32_t outputTensor) {
    const TensorDesc& in = plan.tensors[inputTensor];
    uint32_t base = static_cast<uint32_t>(plan.params.size());
    const uint64_t bytes = in.elementCount() * elementSize(in.DataType);
    if (effectiveStrides(in) == packedStrides(in.Sizes) && bytes % 16 == 0) {
        // Packed and whole 16-byte blocks (bindings are 16-byte aligned): the full-bandwidth form.
        plan.params.push_back(static_cast<uint32_t>(bytes / 16));
        PlanDispatch d;
        d.kernel = "copy.b128";
        d.bindings = {
            {BindingKind::Params}, {BindingKind::Tensor, inputTensor}, {BindingKind::Tensor, outputTensor}};
        d.paramsBase = base;
        d.groups = groupsFor((bytes / 16 + 3) / 4);
        d.skipInPlace = true;
        plan.dispatches.push_back(std::move(d));
        return;
    }
    plan.params.push_back(static_cast<uint32_t>(in.elementCount()));
    appendView(plan.params, base, in.Sizes, effectiveStrides(in));
    PlanDispatch d;
    d.kernel = std::string("copy.") + elementClass(in.DataType);
    d.bindings = {
        {BindingKind::Params}, {BindingKind::Tensor, inputTensor}, {BindingKind::Tensor, outputTensor}};
    d.paramsBase = base;
    uint64_t perThread = elementSize(in.DataType) >= 4 ? 1 : 4 / elementSize(in.DataType);
    d.groups = groupsFor((in.elementCount() + perThread - 1) / perThread);
    d.skipInPlace = true;
    plan.dispatches.push_back(std::move(d));
}

Status checkScatterTensors(const char* op, const TensorDesc& input, const TensorDesc& indices,
                           const TensorDesc& updates, const TensorDesc& output, ScatterReduction reduction,
                           const PlanLimits& limits) {
    if (Status s = checkTensor(op, "InputTensor", input, false, limits); !s) return s;
    if (Status s = checkTensor(op, "IndicesTensor", indices, false, limits); !s) return s;
    if (Status s = checkTensor(op, "UpdatesTensor", updates, false, limits); !s) return s;
    if (Status s = checkTensor(op, "OutputTensor", output, true, limits); !s) return s;
    if (Status s = checkSameRank(op, "IndicesTensor", indices, input); !s) return s;
    if (Status s = checkSameRank(op, "UpdatesTensor", updates, input); !s) return s;
    if (Status s = checkSameRank(op, "OutputTensor", output, input); !s) return s;
    if (static_cast<uint32_t>(reduction) > static_cast<uint32_t>(ScatterReduction::Min))
        return invalid(op, "Reduction (" + std::to_string(static_cast<uint32_t>(reduction)) +
                               ") is not a ScatterReduction");
    if (Status s = checkType(op, "IndicesTensor", indices,
                             {DataType::Int32, DataType::Int64, DataType::UInt32, DataType::UInt64},
                             "INT32, INT64, UINT32 or UINT64");
        !s)
        return s;
    if (Status s = checkSameType(op, "UpdatesTensor", updates, input); !s) return s;
    if (Status s = checkSameType(op, "OutputTensor", output, input); !s) return s;
    return checkSizes(op, "OutputTensor", output, input.Sizes, "OutputTensor has InputTensor's sizes");
}

Plan scatterPlan(const char* op, const TensorDesc& input, const TensorDesc& indices,
                 const TensorDesc& updates, const TensorDesc& output) {
    Plan plan;
    plan.op = op;
    plan.tensorNames = {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"};
    plan.tensors = {input, indices, updates, output};
    plan.firstOutput = 3;
    // In place (SEMANTICS.md): OutputTensor bound to InputTensor's own range, which must then be packed
    // like the output; the copy pass is skipped and only the updates are written.
    if (effectiveStrides(input) == packedStrides(input.Sizes))
        plan.inPlaceInput = 0;
    else
        plan.notInPlaceBecause = "a scatter runs in place only on a packed InputTensor";
    return plan;
}

Status checkCountTensor(const char* op, const TensorDesc& count) {
    if (count.Sizes.empty() && count.Strides.empty()) return {}; // absent
    const std::string rule = "CountTensor (ripple's GPU-side count) is one UINT32 element";
    if (count.DataType != DataType::UInt32) return invalid(op, rule + ", not " + toString(count.DataType));
    if (count.Sizes.empty() || count.Sizes.size() > kMaxDimensionCount)
        return invalid(op, rule + ": DimensionCount 1.." + std::to_string(kMaxDimensionCount) + ", not " +
                               std::to_string(count.Sizes.size()));
    for (size_t d = 0; d < count.Sizes.size(); ++d)
        if (count.Sizes[d] != 1)
            return invalid(op, rule + ": Sizes[" + std::to_string(d) + "] is " +
                                   std::to_string(count.Sizes[d]) + ", not 1");
    if (!count.Strides.empty() && count.Strides.size() != count.Sizes.size())
        return invalid(op, "CountTensor.Strides has " + std::to_string(count.Strides.size()) +
                               " entries; give none or one per size");
    return {};
}

void addCountPass(Plan& plan, const TensorDesc& count, uint64_t rows) {
    if (count.Sizes.empty()) return;
    plan.outputsEnd = static_cast<uint32_t>(plan.tensors.size());
    const uint32_t tensor = static_cast<uint32_t>(plan.tensors.size());
    plan.tensorNames.push_back("CountTensor");
    plan.tensors.push_back(count);
    const uint32_t base = static_cast<uint32_t>(plan.params.size());
    plan.params.push_back(static_cast<uint32_t>(rows)); // the planners keep rows below 2^32 - 1
    PlanDispatch d;
    d.kernel = "scatter_count";
    d.bindings = {{BindingKind::Params}, {BindingKind::Tensor, tensor}, {BindingKind::Status}};
    d.paramsBase = base;
    d.groups = 1;
    plan.dispatches.insert(plan.dispatches.begin(), std::move(d));
    plan.usesStatus = true;
}

// The data type's name in the reduction kernels' DTYPE axis.
void addScatterPass(Plan& plan, const char* kernel, uint32_t base, ScatterReduction reduction,
                    bool hasSharedSums, const PlanLimits& limits) {
    const TensorDesc& updates = plan.tensors[2];
    const uint64_t outputs = plan.tensors[3].elementCount();
    // FLOAT32 ADD into a small output with 16 or more updates per element: each of 128
    // workgroups sums its share per element in shared memory (bench/NOTES.md "Issue 19, continued: the
    // duplicate-heavy and row ADDs"), instead of one contended global atomic per update. At most 4096
    // outputs (SHARED_SUMS, glsl/include/ripple/scatter_shared_add.glsl), 2048 in the small-device form.
    const uint64_t maxSums = limits.smallKernels ? 2048 : 4096;
    const bool sharedSums = hasSharedSums && reduction == ScatterReduction::Add &&
                            updates.DataType == DataType::Float32 && outputs > 0 && outputs <= maxSums &&
                            updates.elementCount() >= 16 * outputs;
    PlanDispatch d;
    d.groups = sharedSums ? std::min<uint32_t>(groupsFor(updates.elementCount()), 128)
                          : groupsFor(updates.elementCount());
    appendGroupOrder(plan.params, d.groups);
    if (reduction == ScatterReduction::None) {
        d.kernel = std::string(kernel) + "." + elementClass(updates.DataType) + "." +
                   indexClass(plan.tensors[1].DataType);
        d.hasModes = true;
    } else { // the pass's params end with the reduction (glsl/include/ripple/scatter_*_pass.glsl)
        plan.params.push_back(static_cast<uint32_t>(reduction));
        if (sharedSums) plan.params.push_back(static_cast<uint32_t>(outputs));
        d.kernel = std::string(kernel) + (sharedSums ? "_reduce_shared." : "_reduce.") +
                   typeClass(updates.DataType) + "." + indexClass(plan.tensors[1].DataType);
        d.hasModes = true; // FLOAT32 has a fast variant (float atomic add)
    }
    d.bindings = {{BindingKind::Params},
                  {BindingKind::Tensor, 1},
                  {BindingKind::Tensor, 2},
                  {BindingKind::Tensor, 3},
                  {BindingKind::Status}};
    d.paramsBase = base;
    // Shared sums without float atomics: each workgroup stores its sums as a row of partials (at most 128 x
    // 4096 words), and scatter_sums_add adds each target's partials to the output, 32 targets a workgroup.
    // A global compare-and-swap per workgroup and target retried 128 deep: 127.7 us against 29.9 with float
    // atomics, 30.7 this way (H200, (1,1024) with 1048576 updates; bench/NOTES.md "Issue 58: portable float
    // ADD"). With float atomics the fast variant adds its sums itself: the second dispatch cost 0.8 us there.
    // Small devices take this way whatever they have: their forms are the portable variants'.
    const bool partialRows = sharedSums && (!limits.floatAtomicAdd || limits.smallKernels);
    PlanBinding partials;
    if (partialRows) {
        d.kernel += ".portable";
        d.hasModes = false;
        partials = {BindingKind::Scratch, 0, (plan.scratchBytes + 255) & ~uint64_t(255),
                    uint64_t(d.groups) * outputs * 4};
        plan.scratchBytes = partials.offset + partials.size;
        d.bindings[3] = partials;
    }
    const uint32_t rows = d.groups;
    plan.dispatches.push_back(std::move(d));
    plan.usesStatus = true;
    if (!partialRows) return;
    PlanDispatch sums;
    sums.kernel = "scatter_sums_add";
    sums.bindings = {{BindingKind::Params}, partials, {BindingKind::Tensor, 3}};
    sums.paramsBase = base;
    sums.arg = rows;
    sums.groups = groupsFor(outputs, 32); // scatter_sums_add's TARGETS a workgroup
    plan.dispatches.push_back(std::move(sums));
}

} // namespace ripple::core
