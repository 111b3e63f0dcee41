#version 450
#extension GL_GOOGLE_include_directive : require
// Radix-select TopK, first dispatch: every row's state (K needed, lists empty) and histogram cleared.
// Bindings: 1 state, 2 histograms.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_select.glsl"

layout(std430, binding = 1) writeonly buffer State { uint state[]; };
layout(std430, binding = 2) writeonly buffer Hist { uint hist[]; };

void main() {
    const uint total = TOPK_ROWS * SELECT_BINS;
    for (uint i = gl_GlobalInvocationID.x; i < total; i += pc.groupCount * gl_WorkGroupSize.x) {
        hist[i] = 0u;
        const uint b = i % SELECT_BINS;
        if (b < SELECT_STATE) state[(i / SELECT_BINS) * SELECT_STATE + b] = b == 1u ? TOPK_K : 0u;
    }
}
