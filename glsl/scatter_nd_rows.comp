// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterND's scatter pass for slices of whole 16-byte blocks (reduction NONE, packed updates, elements of
// up to 32 bits; core/scatter_nd.cpp chooses it): each invocation copies one 16-byte block of an update
// slice to its target, consecutive invocations across the slice, so loads and stores are 16 bytes and
// coalesced. An element is never split between two blocks, and 32-bit stores keep every element whole when
// tuples collide. Out-of-range tuples are dropped and flagged in status[0].
// Params: [0] blocks in all (tuples * slice blocks), [1] blocks per slice, [2] q, [3..10] sizes of the q
// indexed dims, [11..18] their output pitches in blocks, [19..35] indices view.
// Bindings: 1 indices, 2 updates (packed), 3 output (packed), 4 status.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/index.glsl"

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer Updates { uvec4 updates[]; };
layout(std430, binding = 3) writeonly buffer Output { uvec4 outBlocks[]; };
layout(std430, binding = 4) buffer Status { uint status[]; };
#include "ripple/counted.glsl"
#include "ripple/scatter_nd_tuple.glsl"

void main() {
    const uint slice = P(1), q = P(2);
    const uint count = countedUnits(P(0), slice); // the first tuples' blocks, with a CountTensor
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint b = gl_GlobalInvocationID.x; b < count; b += stride) {
        const uint tuple = b / slice, within = b - tuple * slice;
        uint target = within;
        if (!addTupleOffset(tuple, q, target)) {
            if (within == 0u) atomicOr(status[0], 1u);
            continue;
        }
        outBlocks[target] = updates[b];
    }
}
