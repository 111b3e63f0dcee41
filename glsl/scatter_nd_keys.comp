// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterND's deterministic mode, first pass (core/scatter_ordered.cpp): each index tuple's target slice
// number as a sort key, the tuple's number as its value. Out-of-range tuples get the key `targets` (sorted
// last, never applied) and are flagged in status[0].
// Params: [0] tuples, [1] q, [2..9] sizes of the q indexed dims, [10..17] their pitches in slices,
// [18..34] indices view, [35] targets (slices in the output), [36..37] group order (ORDERED_GROUP).
// Bindings: 1 indices, 2 keys, 3 values, 4 status.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/index.glsl"

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 3) writeonly buffer Values { uint values[]; };
layout(std430, binding = 4) buffer Status { uint status[]; };
#include "ripple/counted.glsl"

void main() {
    const uint tuples = P(0);
    const uint q = P(1);
    const uint counted = countedUnits(tuples, 1u); // tuples past a CountTensor's count: never applied
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint t = ORDERED_GROUP(36u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; t < tuples; t += stride) {
        uint key = t < counted ? 0u : P(35);
        for (uint j = 0u; j < q && t < counted; ++j) {
            uint r;
            if (!resolveIndex(LOAD_INDEX(indices, viewOffset(18u, t * q + j)), P(2u + j), r)) {
                key = P(35);
                atomicOr(status[0], 1u);
                break;
            }
            key += r * P(10u + j);
        }
        keys[t] = key;
        values[t] = t;
    }
}
