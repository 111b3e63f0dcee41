// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterElements' FLOAT32 ADD into a small output, second step (ripple/scatter_shared_add.glsl wrote one
// row of partial sums per workgroup): each target's partials summed, then added to the output, which only
// this step writes (no atomics). A workgroup takes TARGETS targets; its SLICES slices each load a share of
// the partial rows, LOADS at once (their latency overlapped), then slice 0 adds the slices' sums. Sums
// skip -0.0 by its bits (the identity: workgroups without updates there), so a compiler that does not keep
// the sign of zero cannot turn an untouched -0.0 target into +0.0. Params: the scatter pass's block, [48]
// the output's element count. arg: the partial rows. Bindings: 1 the partials (scratch), 2 the output.
#define TARGETS 32u
#define SLICES (RIPPLE_GROUP_SIZE / TARGETS)
#define LOADS 16u
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // TARGETS x SLICES: 256, or 128 in .small
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"

#define NEGATIVE_ZERO 0x80000000u

layout(std430, binding = 1) readonly buffer Partials { uint partials[]; };
layout(std430, binding = 2) buffer Out { uint outWords[]; };

shared uint sSlices[SLICES * TARGETS];

uint addBits(uint sum, uint part) {
    if (part == NEGATIVE_ZERO) return sum;
    return sum == NEGATIVE_ZERO ? part : floatBitsToUint(uintBitsToFloat(sum) + uintBitsToFloat(part));
}

void main() {
    const uint count = P(48u), rows = pc.arg;
    const uint t = gl_LocalInvocationID.x % TARGETS, slice = gl_LocalInvocationID.x / TARGETS;
    for (uint block = gl_WorkGroupID.x; block * TARGETS < count; block += pc.groupCount) {
        const uint e = block * TARGETS + t;
        uint sum = NEGATIVE_ZERO;
        for (uint first = slice; first < rows; first += SLICES * LOADS) {
            uint parts[LOADS];
            for (uint k = 0u; k < LOADS; ++k) {
                const uint g = first + k * SLICES;
                parts[k] = e < count && g < rows ? partials[g * count + e] : NEGATIVE_ZERO;
            }
            for (uint k = 0u; k < LOADS; ++k) sum = addBits(sum, parts[k]);
        }
        sSlices[slice * TARGETS + t] = sum;
        barrier();
        if (slice == 0u && e < count) {
            for (uint s = 1u; s < SLICES; ++s) sum = addBits(sum, sSlices[s * TARGETS + t]);
            if (sum != NEGATIVE_ZERO)
                outWords[e] = floatBitsToUint(uintBitsToFloat(outWords[e]) + uintBitsToFloat(sum));
        }
        barrier();
    }
}
