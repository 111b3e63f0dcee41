// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix TopK: one workgroup per row sorts its K survivors (K <= 1024) by (rank key, index) in shared memory,
// in place, for topk_emit. Bindings: 1 survivors.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) buffer Survivors { uint survivors[]; };

#include "ripple/bitonic.glsl"

void main() {
    const uint K = TOPK_K, T = TOPK_T;  // T: a power of 2 >= K
    const uint lid = gl_LocalInvocationID.x;
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        for (uint i = lid; i < T; i += gl_WorkGroupSize.x) {  // slots past T are never read
            const bool real = i < K;
            const uint e = (row * K + i) * ENTRY_WORDS;
            [[unroll]] for (uint w = 0u; w < KEYW; ++w) sKey[w][i] = real ? survivors[e + w] : 0xFFFFFFFFu;
            sIdx[i] = real ? survivors[e + KEYW] : 0xFFFFFFFFu;
        }
        barrier();
        sortFirst(T);  // the first T slots only: sorting all SLOTS cost 4x at K = 256 (bench/NOTES.md, issue 58)
        for (uint i = lid; i < K; i += gl_WorkGroupSize.x) {
            const uint e = (row * K + i) * ENTRY_WORDS;
            [[unroll]] for (uint w = 0u; w < KEYW; ++w) survivors[e + w] = sKey[w][i];
            survivors[e + KEYW] = sIdx[i];
        }
        barrier();
    }
}
