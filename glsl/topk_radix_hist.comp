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

// RADIX_COPIES histograms, invocation i adding to copy i % RADIX_COPIES: the first digits of real data
// fall in few buckets, and every invocation adding to one shared word serializes.
#define RADIX_COPIES 4u
shared uint sHist[RADIX_COPIES * 256u];

void main() {
    const uint word = (pc.arg >> 8u) & 0xFFu, shift = pc.arg & 0xFFu;
    const uint n = TOPK_N, chunk = RADIX_CHUNK, chunks = RADIX_CHUNKS, stride = TOPK_AXIS_STRIDE;
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, copy = (lid % RADIX_COPIES) * 256u;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks;
        if (state[row * RADIX_STATE + 4u] != 0u) continue;  // resolved: the same for the whole workgroup
        uint p[3] = uint[3](state[row * RADIX_STATE], state[row * RADIX_STATE + 1u], state[row * RADIX_STATE + 2u]);
        for (uint b = lid; b < RADIX_COPIES * 256u; b += wg) sHist[b] = 0u;
        barrier();
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        const uint begin = (g % chunks) * chunk, end = min(n, begin + chunk);
        for (uint j0 = begin + lid; j0 < end; j0 += RADIX_BATCH * wg) {
            uvec2 raw[RADIX_BATCH];
            [[unroll]] for (uint u = 0u; u < RADIX_BATCH; ++u)
                raw[u] = loadElement(rowBase + min(j0 + u * wg, end - 1u) * stride);
            [[unroll]] for (uint u = 0u; u < RADIX_BATCH; ++u) {
                const uint j = j0 + u * wg;
                if (j >= end) break;
                uint c[3];
                compositeOf(raw[u], j, c);
                if (abovePrefix(c, p, word, shift)) atomicAdd(sHist[copy + ((c[word] >> shift) & 0xFFu)], 1u);
            }
        }
        barrier();
        for (uint b = lid; b < 256u; b += wg) {
            uint count = 0u;
            [[unroll]] for (uint k = 0u; k < RADIX_COPIES; ++k) count += sHist[k * 256u + b];
            if (count != 0u) atomicAdd(hist[row * 256u + b], count);
        }
        barrier();
    }
}
