// SPDX-License-Identifier: MIT
// What an operator compiles to: a short list of dispatches over bound tensors, a params block, and the
// scratch it needs. Backend-neutral; built by the planners in this folder, run by the runtime.
#pragma once

#include "ripple/status.hpp"
#include "ripple/tensor.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ripple::core {

enum class BindingKind : uint8_t {
    Params,  // the operator's params words (binding 0 of every kernel)
    Tensor,  // the caller's tensor number `tensor`, in the desc's field order
    Scratch, // [offset, offset + size) of the operator's scratch buffer
    // [offset, offset + size) of the operator's zeroed scratch buffer: all zero when the operator's first
    // dispatch starts, and its dispatches must leave it all zero again (counters that the last workgroup
    // to arrive resets), so that a pooled buffer needs no clearing pass before each use.
    ZeroedScratch,
    Status, // the operator's status word: bit 0 = index data out of range
};

struct PlanBinding {
    BindingKind kind = BindingKind::Params;
    uint32_t tensor = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
};

struct PlanDispatch {
    std::string kernel;                // variant name, without the MODE suffix when `hasModes`
    bool hasModes = false;             // the runtime appends ".fast" or ".portable"
    std::vector<PlanBinding> bindings; // index = binding number
    uint32_t paramsBase = 0;           // push constant 0: where this dispatch's params block starts
    uint32_t arg = 0;                  // push constant 1: a per-dispatch argument (TopK's merge level)
    uint32_t groups = 1;               // workgroups along x (kernels loop over their work)
    bool skipInPlace = false;          // skipped when the plan runs in place (the input-to-output copy)
    bool onlyInPlace = false;          // run only in place (out of place, a fused pass does its work)
    std::string fastKernel;            // with hasModes: the fast variant's name where it is not `kernel`'s
    // Whether the kernel's small-device form ("<variant>.small") may run this dispatch where the others
    // exceed the device: false where the plan's params and bindings suit only the full forms (TopK's
    // sampled selection plans its small forms apart, under PlanLimits::smallKernels), so that the runtime
    // plans again with small kernels instead.
    bool smallForm = true;
};

struct Plan {
    const char* op = "";
    std::vector<std::string> tensorNames; // binding order
    std::vector<TensorDesc> tensors;
    std::vector<uint32_t> params;
    uint64_t scratchBytes = 0;
    uint64_t zeroedScratchBytes = 0; // see BindingKind::ZeroedScratch
    bool usesStatus = false;
    uint32_t firstOutput = 0;         // tensors [firstOutput, outputsEnd) are written; the others are read
    uint32_t outputsEnd = UINT32_MAX; // UINT32_MAX: to the last tensor
    // The input that the first output may be bound to exactly (same Buffer, same Offset) to run in place,
    // skipping the dispatches marked skipInPlace and running those marked onlyInPlace; -1: none (outputs
    // never overlap other tensors).
    int32_t inPlaceInput = -1;
    const char* notInPlaceBecause = nullptr; // where the operator could run in place but this plan cannot
    std::vector<PlanDispatch> dispatches;    // run in order, each depending on the previous
};

// Device limits the planner must respect.
struct PlanLimits {
    uint64_t maxStorageBufferRange = 1ull << 27;
    // Plan only strategies whose kernels have small-device variants (glsl/CMakeLists.txt, SMALL: 128
    // invocations, at most 16 KiB of shared memory and 4 storage buffers): TopK's rank counting, lanes
    // (K <= 32), sampled selection (rows over 4096, its small plan: core/topk_select.cpp), multi-pass radix
    // selection and tiles (bitonic tiles, merge levels, emit), the scatters' copy
    // and element passes, the deterministic sort with its scatter in two dispatches. For a device on which
    // the strategy the shape would take has a kernel over its limits (runtime/device.cpp plans again with
    // this set).
    bool smallKernels = false;
    // The device runs the fast variants and has float atomic add (shaderBufferFloat32AtomicAdd): FLOAT32 ADD
    // into a small output may combine its per-workgroup sums with float atomics. Without (portable kernels,
    // D3D12), the sums go to scratch and a second dispatch adds them (core/scatter_common.cpp).
    bool floatAtomicAdd = false;
    // Invocations a workgroup of the kernels planned: RIPPLE_GROUP_SIZE (cmake/RippleKernels.cmake), 128 in
    // the small-device forms. For grid-stride dispatches sized with groupsFor(work, groupSize()).
    uint32_t groupSize() const { return smallKernels ? 128 : 256; }
};

// Workgroups for `work` items at 256 per group, capped at the 65535 every device supports.
uint32_t groupsFor(uint64_t work);
// The same at `perGroup` items a group: a kernel whose small-device form runs 128 invocations a group
// (PlanLimits::smallKernels) and loops over its items needs twice the groups for the same parallelism.
uint32_t groupsFor(uint64_t work, uint32_t perGroup);

// Scratch bindings laid out one after another, each at a 256-byte boundary (a storage buffer offset
// alignment every Vulkan and D3D12 device accepts), in plain or zeroed scratch. A planner lays them out,
// checks largest() against the device's maxStorageBufferRange where a binding could outgrow it, then takes
// bytes().
class ScratchLayout {
  public:
    explicit ScratchLayout(BindingKind kind = BindingKind::Scratch) : kind_(kind) {}
    PlanBinding add(uint64_t bytes) {
        const PlanBinding b{kind_, 0, (end_ + 255) & ~uint64_t(255), bytes};
        end_ = b.offset + bytes;
        largest_ = std::max(largest_, bytes);
        return b;
    }
    uint64_t bytes() const { return end_; }       // plan.scratchBytes or zeroedScratchBytes
    uint64_t largest() const { return largest_; } // the largest binding
  private:
    BindingKind kind_;
    uint64_t end_ = 0, largest_ = 0;
};

} // namespace ripple::core
