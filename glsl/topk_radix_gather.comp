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

// A workgroup's survivors are reserved in the row's list with one atomic a batch, not one each: a row of
// K = 256 in 4096 took 56 us of atomics on one word (H200 under mobile-vk11; bench/NOTES.md, issue 58).
shared uint sCount, sBase;

void main() {
    const uint n = TOPK_N, K = TOPK_K, chunk = RADIX_CHUNK, chunks = RADIX_CHUNKS, stride = TOPK_AXIS_STRIDE;
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, s = row * RADIX_STATE;
        uint p[3] = uint[3](state[s], state[s + 1u], state[s + 2u]);
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        const uint begin = (g % chunks) * chunk, end = min(n, begin + chunk);
        for (uint b0 = begin; b0 < end; b0 += RADIX_BATCH * wg) {  // the same trip count for every invocation
            uvec2 raw[RADIX_BATCH];
            [[unroll]] for (uint u = 0u; u < RADIX_BATCH; ++u)
                raw[u] = loadElement(rowBase + min(b0 + lid + u * wg, end - 1u) * stride);
            if (lid == 0u) sCount = 0u;
            barrier();
            uint mine = 0u;  // bit u: element b0 + lid + u * wg survives
            [[unroll]] for (uint u = 0u; u < RADIX_BATCH; ++u) {
                const uint j = b0 + lid + u * wg;
                uint c[3];
                compositeOf(raw[u], j, c);
                if (j < end && atMostThreshold(c, p)) mine |= 1u << u;
            }
            const uint first = mine != 0u ? atomicAdd(sCount, bitCount(mine)) : 0u;
            barrier();
            if (lid == 0u && sCount != 0u) sBase = atomicAdd(state[s + 5u], sCount);
            barrier();
            uint at = sBase + first;
            [[unroll]] for (uint u = 0u; u < RADIX_BATCH; ++u) {
                if ((mine & (1u << u)) == 0u) continue;
                const uint j = b0 + lid + u * wg;
                if (at < K) {  // always: composites are distinct and the threshold is exact
                    uint c[3];
                    compositeOf(raw[u], j, c);
                    const uint d = (row * K + at) * ENTRY_WORDS;
                    [[unroll]] for (uint w = 0u; w < KEYW; ++w) survivors[d + w] = c[w];
                    survivors[d + KEYW] = j;
                }
                ++at;
            }
            barrier();  // sCount and sBase are read before the next batch resets them
        }
    }
}
