// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK by invocation-private lists, pass 2 for many rows of many parts (core/topk.cpp's planLane; else
// topk_lane_rank): one invocation per row merges the P * KMAX candidates of its row's parts, part by part,
// into one list and writes the row's K winners (values bit for bit from the input). Part p's indices all
// come before part p + 1's, and each part's list is sorted, so a candidate comes before a listed entry
// exactly when its key is smaller (topk_lane.glsl's rule for elements in index order). Candidates from parts
// shorter than KMAX carry index 0xFFFFFFFF and the worst key: they rank after every real entry, and each
// row has at least K real ones. ELEM_x: the value size (b64: 64-bit keys).
// Bindings: 1 input, 2 values, 3 indices, 4 candidates.
#if defined(ELEM_b64)
#define KEYW_k2
#define DTYPE_u64
#elif defined(ELEM_b32)
#define DTYPE_u32
#elif defined(ELEM_b16)
#define DTYPE_u16
#else
#define DTYPE_u8
#endif
layout(local_size_x = 64) in;  // one row per invocation: small workgroups spread the rows over every SM
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };
layout(std430, binding = 4) readonly buffer Candidates { uint candidates[]; };

#include "ripple/topk_write.glsl"
#define LANE_BATCH KMAX  // one part's list
#define LANE_INDEXED     // each candidate with its own index
#include "ripple/topk_lane.glsl"

void main() {
    const uint rows = TOPK_ROWS, count = LANE_PARTS * KMAX, plane = rows * count;
    const uint step = pc.groupCount * gl_WorkGroupSize.x;
    for (uint row = gl_GlobalInvocationID.x; row < rows; row += step) {
        laneClear();
        for (uint c0 = 0u; c0 < count; c0 += KMAX) {  // one part's list at a time: KMAX loads in flight
            LaneKey key[LANE_BATCH];
            uint idx[LANE_BATCH];
            [[unroll]] for (uint s = 0u; s < LANE_BATCH; ++s) {
                const uint e = (c0 + s) * rows + row;
                idx[s] = candidates[e];
#if KEYW == 2
                key[s] = uvec2(candidates[plane + e], candidates[2u * plane + e]);
#else
                key[s] = candidates[plane + e];
#endif
            }
            laneConsiderBatch(key, idx, KMAX);
        }
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        laneWrite(row, rowBase);
    }
}
