// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK pass 1: each workgroup sorts tiles of T entries in shared memory (bitonic network, every tile
// ascending) and writes each tile's first min(K, tile length) entries as a level-0 run. Rows shorter than
// SLOTS share a workgroup, one tile each. DTYPE_xx picks the value-to-key mapping.
// Bindings: 1 input, 2 level-0 runs.
#if defined(DTYPE_i64) || defined(DTYPE_u64)
#define KEYW_k2
#endif
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) writeonly buffer Runs { uint runs[]; };

#include "ripple/topk_key.glsl"
#include "ripple/bitonic.glsl"

void main() {
    const uint n = TOPK_N, K = TOPK_K, T = TOPK_T, log2T = TOPK_LOG2T, tiles = TOPK_TILES;
    const uint perGroup = P(6), totalTiles = P(7);
    const bool decreasing = TOPK_DIRECTION == 0u;
    const uint groups = (totalTiles + perGroup - 1u) / perGroup;
    const uint lid = gl_LocalInvocationID.x;
    const uint cap0 = runCapacity(0u);

    for (uint g = gl_WorkGroupID.x; g < groups; g += pc.groupCount) {
        for (uint i = lid; i < SLOTS; i += gl_WorkGroupSize.x) {
            uint seg = i >> log2T, local = i & (T - 1u);
            uint tile = g * perGroup + seg;
            uint j = (tile % tiles) * T + local;
            bool real = seg < perGroup && tile < totalTiles && j < n;
            uvec2 key = real ? orderKey(inputOffset(tile / tiles, j)) : uvec2(0u);
            if (decreasing) key = ~key;
            sKey[0][i] = real ? key.x : 0xFFFFFFFFu;
            if (KEYW == 2u) sKey[KEYW - 1u][i] = real ? key.y : 0xFFFFFFFFu;
            sIdx[i] = real ? j : 0xFFFFFFFFu;  // padding sorts after every real entry
        }
        barrier();
        sortSegments(T);
        for (uint i = lid; i < SLOTS; i += gl_WorkGroupSize.x) {
            uint seg = i >> log2T, local = i & (T - 1u);
            uint tile = g * perGroup + seg;
            if (seg < perGroup && tile < totalTiles && local < runLength(0u, tile % tiles)) {
                uint dst = (tile * cap0 + local) * ENTRY_WORDS;
                [[unroll]] for (uint w = 0u; w < KEYW; ++w) runs[dst + w] = sKey[w][i];
                runs[dst + KEYW] = sIdx[i];
            }
        }
        barrier();
    }
}
