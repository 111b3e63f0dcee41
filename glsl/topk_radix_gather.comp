// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix TopK: every element at or below its row's threshold composite (exactly K per row) is appended to the
// row's K survivor entries, in no particular order. Bindings: 1 input, 2 state, 3 survivors.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#if defined(DTYPE_i64) || defined(DTYPE_u64)
#define KEYW_k2
#endif
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer State { uint state[]; };
layout(std430, binding = 3) writeonly buffer Survivors { uint survivors[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_radix.glsl"

void main() {
    const uint n = TOPK_N, K = TOPK_K, chunk = RADIX_CHUNK, chunks = RADIX_CHUNKS, stride = TOPK_AXIS_STRIDE;
    const uint wg = gl_WorkGroupSize.x;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, s = row * RADIX_STATE;
        uint p[3] = uint[3](state[s], state[s + 1u], state[s + 2u]);
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        const uint begin = (g % chunks) * chunk, end = min(n, begin + chunk);
        for (uint j0 = begin + gl_LocalInvocationID.x; j0 < end; j0 += RADIX_BATCH * wg) {
            uvec2 raw[RADIX_BATCH];
            [[unroll]] for (uint u = 0u; u < RADIX_BATCH; ++u)
                raw[u] = loadElement(rowBase + min(j0 + u * wg, end - 1u) * stride);
            [[unroll]] for (uint u = 0u; u < RADIX_BATCH; ++u) {
                const uint j = j0 + u * wg;
                if (j >= end) break;
                uint c[3];
                compositeOf(raw[u], j, c);
                if (!atMostThreshold(c, p)) continue;
                uint at = atomicAdd(state[s + 5u], 1u);
                if (at >= K) continue;  // cannot happen: composites are distinct and the threshold is exact
                uint d = (row * K + at) * ENTRY_WORDS;
                [[unroll]] for (uint w = 0u; w < KEYW; ++w) survivors[d + w] = c[w];
                survivors[d + KEYW] = j;
            }
        }
    }
}
