// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterElements' deterministic mode, first pass (core/scatter_ordered.cpp): each update's target
// element as a sort key, the update's row-major number as its value. Out-of-range indices get the key
// `targets` (sorted last, never applied) and are flagged in status[0].
// Params: [0] updates count, [1] axis, [2] input size at axis, [3..19] indices view (its sizes are also
// the updates' sizes), [20..27] output pitch per dimension, [28] targets (output elements), [29..30] group
// order (ORDERED_GROUP).
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
    const uint count = P(0);
    const uint counted = countedUnits(count, 1u); // updates past a CountTensor's count: never applied
    const uint axis = P(1);
    const uint rank = P(3);
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint e = ORDERED_GROUP(29u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; e < count; e += stride) {
        uint linear = e;
        uint offIndices = 0u, key = 0u;
        for (uint d = rank; d > 0u; --d) {
            uint size = P(3u + d);
            uint c = linear % size;
            linear /= size;
            offIndices += c * P(3u + 8u + d);
            if (d - 1u != axis) key += c * P(20u + d - 1u);
        }
        uint r;
        if (e >= counted) {
            key = P(28);
        } else if (resolveIndex(LOAD_INDEX(indices, offIndices), P(2), r)) {
            key += r * P(20u + axis);
        } else {
            key = P(28);
            atomicOr(status[0], 1u);
        }
        keys[e] = key;
        values[e] = e;
    }
}
