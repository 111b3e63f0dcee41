// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// The deterministic mode's last pass with a reduction over slices of whole 16-byte blocks
// (core/scatter_ordered.cpp: FLOAT32 (DTYPE; the kernel is written for any 32-bit type), packed updates,
// slices of a multiple of 4 elements). As in ripple/scatter_ordered.glsl, each target's updates come as a
// run in row-major order; here one invocation per run and 16-byte block reads the block, folds the run's
// updates into it in order with combineBits (ripple/combine_bits.glsl) and writes it back: 16-byte
// accesses, the pair found once per 4 elements, neighbouring invocations on neighbouring blocks. One writer
// per block, no atomics.
// Params: [0] pairs, [1] blocks per slice, [2] targets (the key of out-of-range updates), [3] the reduction
// (ScatterReduction: 1 ADD, 2 MUL, 3 MAX, 4 MIN), [4..5] group order (ORDERED_GROUP).
// Bindings: 1 sorted keys, 2 sorted update numbers, 3 updates (packed), 4 output (packed).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/dtype_elem.glsl"  // before common.glsl, which sizes elements by it
#include "ripple/common.glsl"
#include "ripple/combine_bits.glsl"

layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) readonly buffer Numbers { uint numbers[]; };
layout(std430, binding = 3) readonly buffer Updates { uvec4 updates[]; };
layout(std430, binding = 4) buffer Out { uvec4 outBlocks[]; };

void main() {
    const uint pairs = P(0), per = P(1), targets = P(2), op = P(3);
    const uint units = pairs * per;  // the planner keeps the update count under 2^32
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint u = ORDERED_GROUP(4u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; u < units; u += stride) {
        const uint s = u / per, b = u - s * per;
        const uint key = keys[s];
        if (key == targets) continue;                 // out of range
        if (s > 0u && keys[s - 1u] == key) continue;  // not the run's first
        const uint target = key * per + b;
        uvec4 acc = outBlocks[target];
        for (uint j = s; j < pairs && keys[j] == key; ++j) {
            const uvec4 v = updates[numbers[j] * per + b];
            acc = uvec4(combineBits(acc.x, v.x, op), combineBits(acc.y, v.y, op), combineBits(acc.z, v.z, op),
                        combineBits(acc.w, v.w, op));
        }
        outBlocks[target] = acc;
    }
}
