// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix TopK, a digit pass: each workgroup counts, for one chunk of a row, the digits of the elements that
// still agree with the row's threshold prefix, in shared memory, then adds them to the row's histogram.
// Resolved rows are skipped. Bindings: 1 input, 2 state, 3 histograms.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#if defined(DTYPE_i64) || defined(DTYPE_u64)
#define KEYW_k2
#endif
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) readonly buffer State { uint state[]; };
layout(std430, binding = 3) buffer Hist { uint hist[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_radix.glsl"

shared uint sHist[256];

void main() {
    const uint word = (pc.arg >> 8u) & 0xFFu, shift = pc.arg & 0xFFu;
    const uint n = TOPK_N, chunk = RADIX_CHUNK, chunks = RADIX_CHUNKS;
    const uint lid = gl_LocalInvocationID.x;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks;
        if (state[row * RADIX_STATE + 4u] != 0u) continue;  // resolved: the same for the whole workgroup
        uint p[3] = uint[3](state[row * RADIX_STATE], state[row * RADIX_STATE + 1u], state[row * RADIX_STATE + 2u]);
        for (uint b = lid; b < 256u; b += gl_WorkGroupSize.x) sHist[b] = 0u;
        barrier();
        const uint begin = (g % chunks) * chunk, end = min(n, begin + chunk);
        for (uint j = begin + lid; j < end; j += gl_WorkGroupSize.x) {
            uint c[3];
            composite(row, j, c);
            if (abovePrefix(c, p, word, shift)) atomicAdd(sHist[(c[word] >> shift) & 0xFFu], 1u);
        }
        barrier();
        for (uint b = lid; b < 256u; b += gl_WorkGroupSize.x)
            if (sHist[b] != 0u) atomicAdd(hist[row * 256u + b], sHist[b]);
        barrier();
    }
}
