// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 1: each block's digit counts (ripple/pair_sort.glsl).
// Bindings: 1 keys, 2 counts (256 * blocks).
#include "ripple/pair_sort.glsl"

layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Counts { uint counts[]; };

shared uint sHist[256];

void main() {
    const uint pairs = P(0), blocks = P(1), rounds = P(4), lid = gl_LocalInvocationID.x;
    for (uint block = ORDERED_GROUP(2u); block < blocks; block += pc.groupCount) {
        for (uint d = lid; d < 256u; d += gl_WorkGroupSize.x) sHist[d] = 0u;
        barrier();
        for (uint r = 0u; r < rounds; ++r) {
            for (uint lane = lid; lane < 256u; lane += gl_WorkGroupSize.x) {
                const uint i = (block * rounds + r) * 256u + lane;
                if (i < pairs) atomicAdd(sHist[digitOf(keys[i])], 1u);
            }
        }
        barrier();
        for (uint d = lid; d < 256u; d += gl_WorkGroupSize.x) counts[d * blocks + block] = sHist[d];
        barrier();
    }
}
