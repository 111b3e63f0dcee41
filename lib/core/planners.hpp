// SPDX-License-Identifier: MIT
// Operator planners: validate a desc (every rule, with a message naming the tensor, field and rule) and
// turn it into a Plan. Pure C++, no device: unit-testable.
#pragma once

#include "core/plan.hpp"
#include "ripple/operators.hpp"

namespace ripple::core {

Result<Plan> planScatterND(const ScatterNDDesc& desc, const PlanLimits& limits);
Result<Plan> planScatterElements(const ScatterElementsDesc& desc, const PlanLimits& limits);
Result<Plan> planTopK(const TopKDesc& desc, const PlanLimits& limits);
// TopK with a CountTensor (core/topk_count.cpp); planTopK hands such a desc to it.
Result<Plan> planTopKCounted(const TopKDesc& desc, const PlanLimits& limits);
// Tests only: when nonzero, the candidate list capacity per row of TopK's sampled radix selection, so that
// tests reach its exact fallback (selection from the whole row) without adversarial data.
extern uint64_t selectCapacityForTests;
// Tests only: when set, TopK never plans the one-dispatch chunk strategy, so that tests reach sampled
// selection on rows the chunks would take.
extern bool chunkDisabledForTests;
// Tests only: when set, TopK never plans rank counting, so that tests reach the lane and tile strategies on
// the short rows it would take.
extern bool rankDisabledForTests;
// Tests only: when set, TopK's lanes load rows of neighbouring elements (up to 32 bits) directly
// (topk_lane), as they do strided rows, instead of through shared memory (topk_lane_staged).
extern bool laneStagedDisabledForTests;
// Tests only: when nonzero, TopK plans the strided rows that the lanes take (K <= 16, up to 32 bits) as a
// row's parts in one workgroup (topk_lane_group) wherever it can, up to this many parts (a power of 2 up to
// 16) where rows allow, instead of by its rule (core/topk.cpp).
extern uint64_t laneGroupPartsForTests;
// Tests only: when set, strided rows that the lane group would take go to topk_lane (and its second pass).
extern bool laneGroupDisabledForTests;
// Tests only: -1 the planner's rule; 0 or 1: contiguous 32-bit rows of whole 16-byte quads are read through
// shared memory (topk_lane_staged) or directly by topk_lane, whatever their length.
extern int laneDirectQuadsForTests;
// Tests only: when nonzero, the most entries a TopK list sort workgroup ranks in shared memory (at most
// topk_list.glsl's LIST_SLOTS), so that tests reach the in-place sort of a large bucket without crafted data.
extern uint32_t listSlotsForTests;
// Tests only: when nonzero, the buckets per row of TopK's list sort (a power of 2 from 64 to 2048), so that
// tests reach larger buckets.
extern uint32_t listBucketsForTests;
// Tests only: when nonzero, the candidate list slots (256 entries each, at most 16) topk_select_final loads
// before it reads a row's state, so that tests reach the loads of a longer list's other slots after it.
extern uint32_t selectPrefetchSlotsForTests;
// Tests only: when set, TopK's sampled radix selection always samples in a dispatch of its own, so that tests
// reach it on rows whose filter would sample them itself.
extern bool selectSampleDispatchForTests;

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
// "_reduce.<dtype>.<index>" with the reduction appended to the params. `sharedSums`: the op has a
// `kernel` + "_reduce_shared" pass (per-workgroup sums, taken for FLOAT32 ADD into a small output): its fast
// variant adds the sums by float atomics where limits.floatAtomicAdd, else its portable one stores them for
// scatter_sums_add.
Plan scatterPlan(const char* op, const TensorDesc& input, const TensorDesc& indices,
                 const TensorDesc& updates, const TensorDesc& output);
// A GPU-side count (the desc's CountTensor, checked by checkCountTensor): the plan's last tensor, read by
// a first pass (glsl/scatter_count.comp) that clamps it to `rows` and leaves it in the status word for the
// scatter passes. Nothing when `count` is absent (no Sizes).
Status checkCountTensor(const char* op, const TensorDesc& count);
void addCountPass(Plan& plan, const TensorDesc& count, uint64_t rows);
void addScatterPass(Plan& plan, const char* kernel, uint32_t base, ScatterReduction reduction,
                    bool sharedSums, const PlanLimits& limits);

// Deterministic duplicates (core/scatter_ordered.cpp). The op's keys pass, whose params block (at
// keysBase, the last one in plan.params) addOrderedScatter ends with the group order, then the sort and
// the in-order apply pass.
struct OrderedScatter {
    std::string keysKernel; // "scatter_nd_keys.<index>" or "scatter_elements_keys.<index>"
    uint32_t keysBase = 0;  // the keys pass's params block
    uint64_t pairs = 0;     // updates (ScatterND: index tuples)
    uint64_t slice = 1;     // output elements per target
    uint32_t targets = 0;   // targets in the output; also the key of out-of-range updates
    ScatterReduction reduction = ScatterReduction::None;
    // PlanLimits::smallKernels: each radix pass moves keys and values in two dispatches
    // (pair_sort_scatter_keys, pair_sort_scatter_values), each within 4 storage buffers.
    bool splitScatter = false;
    // Slices of whole 16-byte blocks of packed FLOAT32 updates with a reduction (ScatterND, not on small
    // devices): the apply pass moves a block an invocation (glsl/scatter_ordered_blocks.comp).
    bool blocks = false;
};
// Unsupported where a binding of its sort exceeds limits.maxStorageBufferRange.
Status addOrderedScatter(Plan& plan, const OrderedScatter& s, const PlanLimits& limits);
// A dispatch's workgroup order (ORDERED_GROUP in glsl/include/ripple/common.glsl): the identity, or a
// shuffle chosen by groupOrderSeedForTests.
void appendGroupOrder(std::vector<uint32_t>& params, uint32_t groups);
// Tests only: when nonzero, the scatter passes run their workgroups' work in an order this seed shuffles.
extern uint32_t groupOrderSeedForTests;
// The updates a ScatterND FLOAT32 reduction needs to claim its targets first (core/scatter_nd.cpp): 2^21
// elements; tests lower it to run the claimed path on small shapes.
extern uint64_t minClaimedUpdates;

} // namespace ripple::core
