// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK by invocation-private lists, pass 1 (topk_lane.glsl): each invocation reads one part of one row in
// index order and keeps its best KMAX entries. With one part per row (arg 0) it writes the row's K winners
// to the outputs; otherwise (arg 1) its KMAX entries go to scratch for topk_lane_merge.
// Bindings: 1 input, 2 values, 3 indices, 4 candidates (scratch).
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
layout(std430, binding = 4) writeonly buffer Candidates { uint candidates[]; };
#if (defined(DTYPE_f32) || defined(DTYPE_i32) || defined(DTYPE_u32)) && !defined(RIPPLE_SMALL)
#define LANE_QUADS
// The input as 16-byte quads (the plan binds it again), for contiguous rows of whole aligned quads
// (params [34]; core/topk.cpp's planLane): each invocation reads its part a quad at a time.
layout(std430, binding = 5) readonly buffer InputQuads { uvec4 inputQuads[]; };
#endif

#include "ripple/topk_key.glsl"
#include "ripple/topk_write.glsl"
// Loads in flight per invocation, considered together (LANE_BATCH): the strided rows' 32768 invocations are
// 8 warps an SM on the H100/H200, which need about 25 KiB of loads in flight to reach the copy rate. H200
// (bench/NOTES.md, issue 59), (128,4096,64) K=16: topk_lane 172.8 us with 8, 129.8 with 32 (146.9 with 32
// considered 8 at a time: more insertion rounds); but rows of contiguous elements, whose invocations read
// 32 different rows a load, lost: (4096,1024) K=8 29.2 with 8, 42.0 with 32; (1048576,32) K=4 158.7 with
// 8, 236.5 with 32. So 32 for KMAX 16 (the strided case's list), 16 for large lists (64-bit keys, KMAX 32:
// registers), 8 for the rest.
#if defined(KMAX_k16) && KEYW == 1
#define LANE_BATCH 32u
#elif KEYW == 2 || defined(KMAX_k32) || defined(KMAX_k16)
#define LANE_BATCH 16u
#else
#define LANE_BATCH 8u
#endif
#define LANE_WRITES_CANDIDATES
#include "ripple/topk_lane.glsl"


void main() {
    const uint n = TOPK_N, rows = TOPK_ROWS, parts = LANE_PARTS, L = LANE_PART_LENGTH, stride = TOPK_AXIS_STRIDE;
    const uint bits = LANE_KEY_BITS;
    const uint flip = TOPK_DIRECTION == 0u ? (bits >= 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    const uint total = rows * parts, step = pc.groupCount * gl_WorkGroupSize.x;
    for (uint x = gl_GlobalInvocationID.x; x < total; x += step) {
        const uint row = x % rows, part = x / rows;
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        const uint begin = part * L, end = min(n, begin + L);
        RIPPLE_MARK(0);  // phases (PROFILE builds): the params and the row's offset, loads, selection, write
        laneClear();
#if defined(LANE_QUADS)
        if (P(34u) != 0u) {  // uniform: stride 1, rowBase, begin and end multiples of 4
            uvec4 quad[LANE_BATCH / 4u];
            [[unroll]] for (uint v = 0u; v < LANE_BATCH / 4u; ++v) {
                const uint j = begin + 4u * v;
                quad[v] = j < end ? inputQuads[(rowBase + j) >> 2u] : uvec4(0u);
            }
            for (uint j0 = begin; j0 < end; j0 += LANE_BATCH) {
                LaneKey key[LANE_BATCH];
                [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
                    key[u] = orderKeyOf(uvec2(quad[u / 4u][u % 4u], 0u)).x ^ flip;
                [[unroll]] for (uint v = 0u; v < LANE_BATCH / 4u; ++v) {
                    const uint j = j0 + LANE_BATCH + 4u * v;
                    quad[v] = j < end ? inputQuads[(rowBase + j) >> 2u] : uvec4(0u);
                }
                laneConsiderBatch(key, j0, end - j0);
            }
            if (pc.arg == 0u) laneWrite(row, rowBase);
            else laneWriteCandidates(row, part);
            continue;
        }
#endif
        // Loads together, with no branch between (orderKeyOf has some), and a batch ahead: the next batch's
        // loads are in flight while this one's insertions run (8 warps an SM have little else to switch to).
        // Past the end the last element is loaded again, not considered.
        uvec2 raw[LANE_BATCH];
        [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
            raw[u] = loadElement(rowBase + min(begin + u, end - 1u) * stride);
        for (uint j0 = begin; j0 < end; j0 += LANE_BATCH) {
            LaneKey key[LANE_BATCH];
            [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) {
                const uvec2 o = orderKeyOf(raw[u]);
#if KEYW == 2
                key[u] = uvec2(o.x ^ flip, o.y ^ flip);
#else
                key[u] = o.x ^ flip;
#endif
            }
            [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
                raw[u] = loadElement(rowBase + min(j0 + LANE_BATCH + u, end - 1u) * stride);
            if (j0 == begin) RIPPLE_MARK(1);
            laneConsiderBatch(key, j0, end - j0);
        }
        RIPPLE_MARK(2);
        if (pc.arg == 0u) {
            laneWrite(row, rowBase);
            RIPPLE_MARK(3);
        } else {
            laneWriteCandidates(row, part);
        }
    }
}
