// SPDX-License-Identifier: MIT
#version 450
// A user kernel's indirect dispatch (KernelDispatch::IndirectBuffer, runtime/kernel.cpp): copies the three
// group counts from the user's buffer into ripple's own, each clamped to the device's
// maxComputeWorkGroupCount (larger counts are undefined behaviour in Vulkan), and sets bit 2 of the
// dispatch's status word when one was clamped. The dispatch then reads ripple's copy.
// Bindings: 0 the user's counts (from a multiple of the binding alignment), 1 the clamped counts, 2 status.
layout(local_size_x = 1) in;
layout(push_constant) uniform PC { uint firstWord; uint maxX; uint maxY; uint maxZ; } pc;
layout(std430, binding = 0) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 1) writeonly buffer Clamped { uint clamped[]; };
layout(std430, binding = 2) buffer Status { uint status[]; };

void main() {
    const uvec3 want = uvec3(counts[pc.firstWord], counts[pc.firstWord + 1u], counts[pc.firstWord + 2u]);
    const uvec3 limit = uvec3(pc.maxX, pc.maxY, pc.maxZ);
    const uvec3 got = min(want, limit);
    clamped[0] = got.x;
    clamped[1] = got.y;
    clamped[2] = got.z;
    if (any(greaterThan(want, limit))) atomicOr(status[0], 2u);
}
