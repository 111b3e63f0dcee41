// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 1 (ripple/topk_list.glsl): one workgroup per row sorts LIST_BUCKETS
// samples of the row's candidate list into its splitters and clears the row's bucket counts and cursors.
// Bindings: 1 candidate lists, 2 state, 3 splitters (LIST_BUCKETS entries per row), 4 counts and cursors.
layout(local_size_x = 1024) in;  // one pair of the 2048-entry bitonic network per invocation and step
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"
#include "ripple/hash.glsl"

layout(std430, binding = 1) readonly buffer Candidates { uint candidates[]; };
layout(std430, binding = 2) readonly buffer State { uint state[]; };
layout(std430, binding = 3) writeonly buffer Splitters { uint splitters[]; };
layout(std430, binding = 4) writeonly buffer Counts { uint counts[]; };

#define SLOTS LIST_BUCKETS
#include "ripple/bitonic.glsl"

void main() {
    const uint C = SELECT_CAPACITY, B = LIST_BUCKETS, lid = gl_LocalInvocationID.x;
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        const uint L = state[row * SELECT_STATE + 3u];
        const uint stratum = L / B;  // whole entries per stratum; the first L % B strata get one more
        for (uint j = lid; j < B; j += gl_WorkGroupSize.x) {
            // Stratum j starts at floor(j * L / B), without the 32-bit product overflowing.
            const uint lo = j * stratum + (j * (L % B)) / B;
            const uint pos = min(lo + hash(j) % max(stratum, 1u), L - 1u);
            sKey[0][j] = candidates[(row * C + pos) * 2u];
            sIdx[j] = candidates[(row * C + pos) * 2u + 1u];
            counts[(row * 2u) * B + j] = 0u;
            counts[(row * 2u + 1u) * B + j] = 0u;
        }
        barrier();
        sortFirst(B);
        for (uint j = lid; j < B; j += gl_WorkGroupSize.x) {
            splitters[(row * B + j) * 2u] = sKey[0][j];
            splitters[(row * B + j) * 2u + 1u] = sIdx[j];
        }
        barrier();
    }
}
