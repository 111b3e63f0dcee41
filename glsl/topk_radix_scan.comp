// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix TopK, after each digit pass: one workgroup per row finds the bucket holding the K-th remaining
// element (a prefix sum over the 256 counts), adds its digit to the row's threshold, and resolves the row
// when that bucket holds exactly the elements still needed (or the digit was the last). Clears the
// histogram for the next pass. Bindings: 1 state, 2 histograms.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_radix.glsl"

layout(std430, binding = 1) buffer State { uint state[]; };
layout(std430, binding = 2) buffer Hist { uint hist[]; };

shared uint sScan[256];
// Each invocation owns BINS_PER consecutive bins (1, or 2 in the small-device form's 128 invocations).
#define BINS_PER (256u / RIPPLE_GROUP_SIZE)

void main() {
    const uint word = (pc.arg >> 8u) & 0xFFu, shift = pc.arg & 0xFFu;
    const bool last = (pc.arg >> 16u) != 0u;
    const uint lid = gl_LocalInvocationID.x;
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        const uint s = row * RADIX_STATE;
        if (state[s + 4u] != 0u) continue;  // resolved: the same for the whole workgroup
        uint h[BINS_PER];
        [[unroll]] for (uint u = 0u; u < BINS_PER; ++u) {
            h[u] = hist[row * 256u + lid * BINS_PER + u];
            sScan[lid * BINS_PER + u] = h[u];
        }
        const uint need = state[s + 3u];
        barrier();
        for (uint off = 1u; off < 256u; off <<= 1u) {  // inclusive prefix sum
            uint v[BINS_PER];
            [[unroll]] for (uint u = 0u; u < BINS_PER; ++u) {
                const uint b = lid * BINS_PER + u;
                v[u] = b >= off ? sScan[b - off] : 0u;
            }
            barrier();
            [[unroll]] for (uint u = 0u; u < BINS_PER; ++u) sScan[lid * BINS_PER + u] += v[u];
            barrier();
        }
        [[unroll]] for (uint u = 0u; u < BINS_PER; ++u) {
            const uint b = lid * BINS_PER + u;
            const uint incl = sScan[b], excl = incl - h[u];
            if (h[u] != 0u && excl < need && need <= incl) {  // exactly one bucket
                const uint left = need - excl;
                state[s + word] |= b << shift;
                if (left == h[u] || last) {  // every element of this bucket is selected: lower digits all ones
                    state[s + word] |= shift == 0u ? 0u : ((1u << shift) - 1u);
                    for (uint w = word + 1u; w < COMPOSITE_WORDS; ++w) state[s + w] = 0xFFFFFFFFu;
                    state[s + 4u] = 1u;
                }
                state[s + 3u] = left;
            }
            hist[row * 256u + b] = 0u;
        }
        barrier();
    }
}
