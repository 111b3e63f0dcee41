// SPDX-License-Identifier: MIT
#version 450
// A user kernel's indirect dispatch (KernelDispatch::IndirectBuffer, runtime/kernel.cpp): copies the three
// group counts from the user's buffer into ripple's own, which the dispatch then reads. Counts over the
// device's maxComputeWorkGroupCount in a dimension (undefined behaviour in Vulkan), or whose product passes
// DeviceOptions::maxDispatchWorkgroups (a GPU hung past the driver's timeout is reset), become 0, 0, 0:
// the dispatch launches nothing, and bit 4 (16) of its status word says so.
// Bindings: 0 the user's counts (from a multiple of the binding alignment), 1 the counts used, 2 status.
layout(local_size_x = 1) in;
layout(push_constant) uniform PC { uint firstWord; uint maxX; uint maxY; uint maxZ; uint maxTotal; } pc;
layout(std430, binding = 0) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 1) writeonly buffer Clamped { uint clamped[]; };
layout(std430, binding = 2) buffer Status { uint status[]; };

void main() {
    const uvec3 want = uvec3(counts[pc.firstWord], counts[pc.firstWord + 1u], counts[pc.firstWord + 2u]);
    bool refuse = any(greaterThan(want, uvec3(pc.maxX, pc.maxY, pc.maxZ)));
    // The product without 64-bit integers: x * y within the bound first, then (x * y) * z.
    if (!refuse && want.x != 0u && want.y != 0u && want.z != 0u) {
        refuse = want.y > pc.maxTotal / want.x;
        if (!refuse) refuse = want.z > pc.maxTotal / (want.x * want.y);
    }
    const uvec3 got = refuse ? uvec3(0u) : want;
    clamped[0] = got.x;
    clamped[1] = got.y;
    clamped[2] = got.z;
    if (refuse) atomicOr(status[0], 16u);
}
