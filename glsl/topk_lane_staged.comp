// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK by invocation-private lists, pass 1, for rows whose elements are neighbours in memory (the axis'
// stride 1; core/topk.cpp's planLane): topk_lane.comp's lists, with loads staged through shared memory.
// There, invocation x reads its own row, so one load of a subgroup touches as many rows, each in its own
// cache line: 32 lines a load on the H100 and H200 ((1048576,32) K=4: 158 us, 2.8x the floor, about what
// one line lookup a cycle per SM predicts; bench/NOTES.md, issue 59). Here the workgroup loads the next
// LANE_BATCH elements of each of its invocations' parts together, element after element of one part after
// another, so a subgroup's load covers a few rows' neighbouring elements; a barrier; each invocation takes
// its own from shared memory (rows padded by a word: no bank conflict); a barrier before the next batch.
// With one part a row the outputs go through the stage too (stageWrite). The lists and the candidates are
// topk_lane.comp's. ELEM_x: the element size, up to 32 bits (64-bit types take topk_lane); the type's
// order from params [33] (topk_key.glsl's KEY_RUNTIME). Planned for contiguous rows (core/topk.cpp, planLane).
// Bindings: 1 input, 2 values, 3 indices, 4 candidates (scratch).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };
layout(std430, binding = 4) writeonly buffer Candidates { uint candidates[]; };

#define KEY_RUNTIME P(33u)
#include "ripple/topk_key.glsl"
#include "ripple/topk_write.glsl"
#define LANE_BATCH 8u  // a power of 2: the staging's divisions are shifts
#define LANE_WRITES_CANDIDATES
#include "ripple/topk_lane.glsl"

#define GROUP RIPPLE_GROUP_SIZE
#define STAGE_PITCH (LANE_BATCH + 1u)  // words per invocation's row of the stage: odd, so no bank conflict
shared uint sFirst[GROUP];             // the invocation's part's first element (offset in the input)
shared uint sLength[GROUP];            // its part's length; 0 for an invocation past the last part
shared uint sStage[GROUP * STAGE_PITCH];

// This invocation's LANE_BATCH loads of the batch at j0 (0 past a part's end).
void stageLoad(out uint raw[LANE_BATCH], uint j0) {
    [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) {
        const uint f = u * GROUP + gl_LocalInvocationID.x, s = f / LANE_BATCH, j = j0 + f % LANE_BATCH;
        raw[u] = j < sLength[s] ? loadElement(sFirst[s] + j).x : 0u;
    }
}

// laneConsiderBatch for the batch in this invocation's row of the stage (rank keys, from word `at`): each
// key is read where it is needed, the chosen one by its place, instead of a copy of the batch in registers
// picked by a tree of selects (H200, (1048576,32) K=4: 122.9 -> 115.2 us; the driver's register count went
// 58 -> 64, so the gain is the pick's instructions, not occupancy). Registers do bound this kernel: 58 allow
// 4 workgroups an SM, and batches of 16 (114 registers) ran 1.4x longer (bench/NOTES.md, issue 59).
void laneConsiderStaged(uint at, uint first, uint count) {
    uint pending = 0u;
    [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
        pending |= (uint(laneBeats(sStage[at + u])) & uint(u < count)) << u;
    while (pending != 0u) {
        const uint u = uint(findLSB(pending));
        pending &= pending - 1u;
        const uint k = sStage[at + u];
        if (laneBeats(k)) laneInsert(k, first + u);  // the worst may have improved since the mask was taken
    }
}

// Writes the tile's outputs (one part a row: invocation s of the tile holds row x0 + s's list) through the
// stage, LANE_BATCH ranks a round: each invocation stages its next LANE_BATCH indices, and the workgroup
// writes them in the stage's order, so that neighbouring invocations copy neighbouring values of one row
// and write neighbouring outputs (each invocation writing its own row would again touch a line a row).
// The stage and sFirst are free (the batch loop ended with a barrier); ends with a barrier.
void stageWrite(uint x0, uint total) {
    const uint l = gl_LocalInvocationID.x;
    for (uint r0 = 0u; r0 < TOPK_K; r0 += LANE_BATCH) {
        [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
            if (u < KMAX) sStage[l * STAGE_PITCH + u] = gIdx[min(u, KMAX - 1u)];
        // The list moves down by LANE_BATCH (indexing it by r0 would put it in local memory).
        [[unroll]] for (uint s = 0u; s + LANE_BATCH < KMAX; ++s) gIdx[s] = gIdx[s + LANE_BATCH];
        barrier();
        [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) {
            const uint f = u * GROUP + l, s = f / LANE_BATCH, c = f % LANE_BATCH, r = r0 + c;
            if (r < TOPK_K && x0 + s < total) writeWinner(x0 + s, sFirst[s], r, sStage[s * STAGE_PITCH + c]);
        }
        barrier();
    }
}

void main() {
    const uint n = TOPK_N, rows = TOPK_ROWS, parts = LANE_PARTS, L = LANE_PART_LENGTH;
    const uint bits = LANE_KEY_BITS;
    const uint flip = TOPK_DIRECTION == 0u ? (bits >= 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    const uint total = rows * parts, tiles = (total + GROUP - 1u) / GROUP, l = gl_LocalInvocationID.x;
    keyKindSetup();
    // Workgroup-uniform loops (the barriers): tile t is invocations t * GROUP .. t * GROUP + GROUP - 1.
    for (uint t = gl_WorkGroupID.x; t < tiles; t += pc.groupCount) {
        const uint x = t * GROUP + l;
        const bool live = x < total;
        const uint row = x % rows, part = x / rows;
        RIPPLE_MARK(0);  // phases (PROFILE builds): the params and the row's offset, loads, selection, write
        const uint rowBase = live ? viewOffset(TOPK_ROW_VIEW, row) : 0u;
        const uint begin = part * L, length = live ? min(n, begin + L) - begin : 0u;
        barrier();  // the previous tile's readers of sFirst and sLength are done
        sFirst[l] = rowBase + begin;
        sLength[l] = length;
        laneClear();
        barrier();
        RIPPLE_MARK(1);
        // Element j0 + c of invocation s's part goes to sStage[s * STAGE_PITCH + c], for flat f = s *
        // LANE_BATCH + c = u * GROUP + l: neighbouring invocations load neighbouring elements. A batch ahead:
        // the next batch's loads are in flight while this one's insertions run.
        uint raw[LANE_BATCH];
        stageLoad(raw, 0u);
        for (uint j0 = 0u; j0 < L; j0 += LANE_BATCH) {
            [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) {  // staged as rank keys
                const uint f = u * GROUP + l, key = orderKeyOf(uvec2(raw[u], 0u)).x ^ flip;
                sStage[(f / LANE_BATCH) * STAGE_PITCH + f % LANE_BATCH] = key;
            }
            barrier();
            stageLoad(raw, j0 + LANE_BATCH);
            if (j0 < length) laneConsiderStaged(l * STAGE_PITCH, begin + j0, min(length - j0, LANE_BATCH));
            barrier();  // the stage is read before the next batch overwrites it
        }
        RIPPLE_MARK(2);
        if (pc.arg == 0u) {  // uniform: one part a row, the outputs written here
            stageWrite(t * GROUP, total);
            RIPPLE_MARK(3);
        } else if (live) {
            laneWriteCandidates(row, part);
        }
    }
}
