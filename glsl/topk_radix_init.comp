// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix TopK, first pass: every row's selection state (nothing decided, K needed) and histogram cleared.
// Bindings: 1 state, 2 histograms.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_radix.glsl"

layout(std430, binding = 1) writeonly buffer State { uint state[]; };
layout(std430, binding = 2) writeonly buffer Hist { uint hist[]; };

void main() {
    const uint total = TOPK_ROWS * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < total; i += pc.groupCount * gl_WorkGroupSize.x) {
        hist[i] = 0u;
        uint b = i % 256u;
        if (b < RADIX_STATE) state[(i / 256u) * RADIX_STATE + b] = b == 3u ? TOPK_K : 0u;
    }
}
