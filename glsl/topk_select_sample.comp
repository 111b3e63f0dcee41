#version 450
#extension GL_GOOGLE_include_directive : require
// Sampled radix-select TopK, dispatch 1 (topk_select.glsl): one workgroup per row finds tau, the m-th
// smallest rank among S samples of the row, and clears the row's counts. Sample i is taken at a
// pseudo-random position of the i-th of S equal strata, so periodic data cannot fool it.
// Bindings: 1 input, 2 state.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) writeonly buffer State { uint state[]; };

#include "ripple/topk_key.glsl"
#define SELECT_ENTRIES
#include "ripple/topk_select.glsl"

uint gRowBase;

uint hash(uint x) {  // a 32-bit integer mix (fixed: the samples, and so the work, repeat run to run)
    x ^= x >> 16u;
    x *= 0x7FEB352Du;
    x ^= x >> 15u;
    x *= 0x846CA68Bu;
    x ^= x >> 16u;
    return x;
}

void selectEntry(uint i, out uint key, out uint idx) {
    const uint width = TOPK_N / SELECT_SAMPLES;  // >= 1; strata cover [0, S * width)
    idx = i * width + hash(i) % width;
    key = rankKeyAt(gRowBase + idx * TOPK_AXIS_STRIDE);
}

void main() {
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        gRowBase = viewOffset(TOPK_ROW_VIEW, row);
        uint need = SELECT_SAMPLE_RANK, ties;
        const uint tau = selectByRank(SELECT_SAMPLES, need, ties);
        if (gl_LocalInvocationID.x == 0u) {
            state[row * SELECT_STATE] = tau;
            state[row * SELECT_STATE + 1u] = 0u;
            state[row * SELECT_STATE + 2u] = 0u;
        }
        barrier();
    }
}
