// Operator planners: validate a desc (every rule, with a message naming the tensor, field and rule) and
// turn it into a Plan. Pure C++, no device: unit-testable.
#pragma once

#include "core/plan.hpp"
#include "ripple/operators.hpp"

namespace ripple::core {

Result<Plan> planScatterND(const ScatterNDDesc& desc, const PlanLimits& limits);
Result<Plan> planScatterElements(const ScatterElementsDesc& desc, const PlanLimits& limits);
Result<Plan> planTopK(const TopKDesc& desc, const PlanLimits& limits);
// Tests only: when nonzero, the candidate list capacity per row of TopK's sampled radix selection, so that
// tests reach its exact fallback (selection from the whole row) without adversarial data.
extern uint64_t selectCapacityForTests;
// Tests only: when set, TopK never plans the one-dispatch chunk strategy, so that tests reach sampled
// selection on rows the chunks would take.
extern bool chunkDisabledForTests;

// Pieces shared by the planners.
const char* elementClass(DataType type); // "b8", "b16", "b32", "b64"
const char* indexClass(DataType type);   // "i32", "u32", "i64", "u64"
// output = input (the copy pass of an out-of-place scatter).
void addCopy(Plan& plan, uint32_t inputTensor, uint32_t outputTensor); // marked skipInPlace
// The tensor, rank, data-type and index-type rules shared by both scatters.
Status checkScatterTensors(const char* op, const TensorDesc& input, const TensorDesc& indices,
                           const TensorDesc& updates, const TensorDesc& output, ScatterReduction reduction,
                           const PlanLimits& limits);
// A scatter plan's frame (tensors in binding order), and its scatter pass over every updates element,
// params block from `base`: `kernel` + ".<elem>.<index>" (with modes) for NONE, else `kernel` +
// "_reduce.<dtype>.<index>" with the reduction appended to the params.
Plan scatterPlan(const char* op, const TensorDesc& input, const TensorDesc& indices,
                 const TensorDesc& updates, const TensorDesc& output);
void addScatterPass(Plan& plan, const char* kernel, uint32_t base, ScatterReduction reduction);

} // namespace ripple::core
