// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK by rank counting, for short rows in small dispatches (core/topk.cpp's planRank): one invocation per
// element reads the element's row, counts the entries that come before its own and, when that count r is
// below K, writes the element as output rank r. No list, no barrier, no scratch, and a short path: where a
// dispatch has a few elements per invocation, topk_lane.comp's lists cost more than the work (H100,
// (1,1,3,4) K=2: 4.6 us by lists, 4.1 by rank counting, an empty dispatch 2.6; bench/NOTES.md, issue 21's
// thirteenth session).
// Bindings: 0 params, 1 input, 2 values, 3 indices. Params: topk.glsl's, then [30] 1, [31] n, [32] the
// key's bits (planLane's layout, one part per row).
#if defined(DTYPE_i64) || defined(DTYPE_u64)
#define KEYW_k2
#endif
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_write.glsl"

#define RANK_KEY_BITS P(32)

// The rank key of element bits v: its order key, complemented for DECREASING (flip), so that the output
// order is ascending (rank key, index).
uvec2 rankKey(uvec2 v, uint flip) {
    const uvec2 o = orderKeyOf(v);
#if KEYW == 2
    return uvec2(o.x ^ flip, o.y ^ flip);
#else
    return uvec2(o.x ^ flip, 0u);
#endif
}

// 1 when (a, ai) comes before (b, bi). Branch-free: glslang makes `||` and `&&` branches.
uint rankBefore(uvec2 a, uint ai, uvec2 b, uint bi) {
    return uint(a.x < b.x) | (uint(a.x == b.x) & (uint(a.y < b.y) | (uint(a.y == b.y) & uint(ai < bi))));
}

void main() {
    const uint n = TOPK_N, K = TOPK_K, stride = TOPK_AXIS_STRIDE, bits = RANK_KEY_BITS;
    const uint flip = TOPK_DIRECTION == 0u ? (bits >= 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    const uint total = TOPK_ROWS * n;  // core/topk.cpp keeps it small
    for (uint e = gl_GlobalInvocationID.x; e < total; e += pc.groupCount * gl_WorkGroupSize.x) {
        const uint row = e / n, u = e - row * n;
        const uint rowBase = rowViewOffset(row);
        const uvec2 value = loadElement(rowBase + u * stride), mine = rankKey(value, flip);
        uint rank = 0u;
        for (uint v = 0u; v < n; ++v)
            rank += rankBefore(rankKey(loadElement(rowBase + v * stride), flip), v, mine, u);
        if (rank < K) writeWinnerValue(row, rank, u, value);
    }
}
