// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K after sampled selection (core/topk.cpp, planSelectLarge): the first pass of the tile
// and merge sort, over each row's candidate list instead of the input. Each workgroup sorts one tile of
// T = SLOTS list entries (rank, index) in shared memory and writes its first min(K, T) entries as a level-0
// run. The list's length per row is the state's word 3 (topk_select_final, gather mode); tiles past it
// write nothing, and topk_merge's list variant reads the same length.
// Params: the TopK block (topk.glsl) with [0] the list capacity C, [3] T = SLOTS, [5] tiles per row
// (C / T), [7] total tiles. Bindings: 1 candidate lists (C entries of 2 words per row), 2 level-0 runs,
// 3 state (SELECT_STATE = 4 words per row).
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Candidates { uint candidates[]; };
layout(std430, binding = 2) writeonly buffer Runs { uint runs[]; };
layout(std430, binding = 3) readonly buffer State { uint state[]; };

#include "ripple/bitonic.glsl"

void main() {
    const uint C = TOPK_N, T = TOPK_T, tiles = TOPK_TILES, totalTiles = P(7);
    const uint lid = gl_LocalInvocationID.x, cap0 = runCapacity(0u);
    for (uint tile = gl_WorkGroupID.x; tile < totalTiles; tile += pc.groupCount) {
        const uint row = tile / tiles, first = (tile % tiles) * T;
        const uint n = state[row * 4u + 3u];
        if (first >= n) continue;  // uniform: nothing of this row's list here
        for (uint i = lid; i < SLOTS; i += 256u) {
            const bool real = i < T && first + i < n;
            sKey[0][i] = real ? candidates[(row * C + first + i) * 2u] : 0xFFFFFFFFu;
            sIdx[i] = real ? candidates[(row * C + first + i) * 2u + 1u] : 0xFFFFFFFFu;  // sorts last
        }
        barrier();
        uint P2 = 2u;
        while (P2 < min(T, n - first)) P2 <<= 1u;
        sortFirst(P2);
        const uint length = runLengthOf(0u, tile % tiles, n);
        for (uint i = lid; i < length; i += 256u) {
            runs[(tile * cap0 + i) * 2u] = sKey[0][i];
            runs[(tile * cap0 + i) * 2u + 1u] = sIdx[i];
        }
        barrier();
    }
}
