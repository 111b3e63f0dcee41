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
// Bindings: 1 input, 2 values, 3 indices, 4 candidates (scratch), 5 the input again (as 16-byte quads).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
#if defined(ELEM_b32) && !defined(RIPPLE_SMALL)
#define LANE_QUADS
// The same input as whole 16-byte quads, for the batches of parts at 16-byte offsets (params [34]). A
// binding of its own (the plan binds the input again): as a second view of binding 1, SPIRV-Cross's HLSL
// declares two resources at one register, which vkd3d-shader refuses (E5015). The small forms have only
// 4 storage buffers and load word by word.
layout(std430, binding = 5) readonly buffer InputQuads { uvec4 inputQuads[]; };
#endif
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

#define QUADS (LANE_BATCH / 4u)
bool gQuads;  // params [34]: every part starts at a 16-byte offset and holds whole quads (planLane)
// The parts of this invocation's quads (sFirst and sLength of part (u * GROUP + l) / QUADS), read once a
// tile: from shared memory, after each barrier, they were two more loads a quad.
uint gQFirst[QUADS], gQLength[QUADS];

// This invocation's LANE_BATCH loads of the batch at j0 (0 past a part's end): element after element of
// one part after another, or with gQuads QUADS 16-byte loads, quad q = u * GROUP + l being quad q % QUADS
// of part q / QUADS's batch (H200, (1048576,32) K=4: 114.9 -> 105.7 us; bench/NOTES.md, issue 59).
void stageLoad(out uint raw[LANE_BATCH], uint j0) {
#if defined(LANE_QUADS)
    if (gQuads) {  // uniform
        [[unroll]] for (uint u = 0u; u < QUADS; ++u) {
            const uint q = u * GROUP + gl_LocalInvocationID.x, j = j0 + (q % QUADS) * 4u;
            const uvec4 v = j < gQLength[u] ? inputQuads[(gQFirst[u] + j) >> 2u] : uvec4(0u);
            [[unroll]] for (uint e = 0u; e < 4u; ++e) raw[4u * u + e] = v[e];
        }
        return;
    }
#endif
    [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) {
        const uint f = u * GROUP + gl_LocalInvocationID.x, s = f / LANE_BATCH, j = j0 + f % LANE_BATCH;
        raw[u] = j < sLength[s] ? loadElement(sFirst[s] + j).x : 0u;
    }
}

// Where raw[i] of stageLoad goes in the stage: its part's row, at its place in the batch.
uint stagePlace(uint i) {
    const uint l = gl_LocalInvocationID.x;
    const uint q = (i / 4u) * GROUP + l, f = i * GROUP + l;
    return gQuads ? (q / QUADS) * STAGE_PITCH + (q % QUADS) * 4u + i % 4u
                  : (f / LANE_BATCH) * STAGE_PITCH + f % LANE_BATCH;
}

#if defined(ELEM_b32)
// FLOAT32's rank key: orderKeyOf for its kind (0x7F800000) without the run-time kind's masks, XORed with
// flip: every NaN 0xFFFFFFFF, -0.0 as +0.0, a negative complemented, a positive with its sign bit set.
uint rankKeyF32(uint b, uint flip) {
    const uint c = b == 0x80000000u ? 0u : b;
    const uint key = c ^ (uint(int(c) >> 31) | 0x80000000u);
    return ((b & 0x7FFFFFFFu) > 0x7F800000u ? 0xFFFFFFFFu : key) ^ flip;
}
#endif

// laneConsiderBatch for the batch in this invocation's row of the stage (rank keys, from word `at`): each
// key is read where it is needed, the chosen one by its place, instead of a copy of the batch in registers
// picked by a tree of selects (H200, (1048576,32) K=4: 122.9 -> 115.2 us; the driver's register count went
// 58 -> 64, so the gain is the pick's instructions, not occupancy). Registers do bound this kernel: 58 allow
// 4 workgroups an SM, and batches of 16 (114 registers) ran 1.4x longer (bench/NOTES.md, issue 59).
#if !defined(KMAX_k16) && !defined(KMAX_k32)
// KMAX <= LANE_BATCH: the part's first batch fills the list (laneFillStaged), so every later batch meets a
// full list, whose comparisons need no test for empty slots (laneBeatsFull, laneInsertFull).
#define LANE_FILL
#define LANE_BEATS laneBeatsFull
#define LANE_INSERT laneInsertFull
#else
#define LANE_BEATS laneBeats
#define LANE_INSERT laneInsert
#endif
void laneConsiderStaged(uint at, uint first, uint count) {
    uint pending = 0u;
    [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
        pending |= (uint(LANE_BEATS(sStage[at + u])) & uint(u < count)) << u;
    while (pending != 0u) {
        const uint u = uint(findLSB(pending));
        pending &= pending - 1u;
        const uint k = sStage[at + u];
        if (LANE_BEATS(k)) LANE_INSERT(k, first + u);  // the worst may have improved since the mask was taken
    }
}

#if defined(LANE_FILL)
// Batcher's odd-even merge network of 8: comparator c orders entries kFillA[c] < kFillB[c].
const uint kFillA[19] = uint[19](0u, 2u, 4u, 6u, 0u, 1u, 4u, 5u, 1u, 5u, 0u, 3u, 1u, 2u, 1u, 3u, 2u, 3u, 3u);
const uint kFillB[19] = uint[19](1u, 3u, 5u, 7u, 2u, 3u, 6u, 7u, 2u, 6u, 4u, 7u, 5u, 6u, 4u, 6u, 4u, 5u, 4u);
// The list from the part's first batch (the stage's row from word `at`, count entries from index first):
// sorted by the network (19 comparators, the same work in every invocation) instead of an insertion round
// for each entry that beats the worst, which the first batch's entries nearly all do and a warp runs as
// many rounds as its busiest invocation needs. (key, index) ascending, an empty entry (index 0xFFFFFFFF,
// key the worst) after every real one. A loop the driver unrolls (its indices then constants), not 19
// copies: glslang's unoptimized SPIR-V took 28 KB a variant for those (the library's size).
// Branch-free: glslang makes branches of || and &&, and of a ?: whose operands are array loads.
void laneFillStaged(uint at, uint first, uint count) {
    uint k[LANE_BATCH], i[LANE_BATCH];
    [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) {
        k[u] = u < count ? sStage[at + u] : 0xFFFFFFFFu;
        i[u] = u < count ? first + u : 0xFFFFFFFFu;
    }
    [[unroll]] for (uint c = 0u; c < 19u; ++c) {
        const uint a = kFillA[c], b = kFillB[c];
        const uint ka = k[a], ia = i[a], kb = k[b], ib = i[b];
        const bool swap = (uint(kb < ka) | (uint(kb == ka) & uint(ib < ia))) != 0u;
        k[a] = swap ? kb : ka;
        i[a] = swap ? ib : ia;
        k[b] = swap ? ka : kb;
        i[b] = swap ? ia : ib;
    }
    [[unroll]] for (uint s = 0u; s < KMAX; ++s) {
        gKey[s] = k[s];
        gIdx[s] = i[s];
    }
}
#endif

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
#if defined(LANE_QUADS)
    gQuads = P(34u) != 0u;
#else
    gQuads = false;
#endif
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
        [[unroll]] for (uint u = 0u; u < QUADS; ++u) {
            const uint s = (u * GROUP + l) / QUADS;
            gQFirst[u] = sFirst[s];
            gQLength[u] = sLength[s];
        }
        RIPPLE_MARK(1);
        // Element j0 + c of invocation s's part goes to sStage[s * STAGE_PITCH + c], for flat f = s *
        // LANE_BATCH + c = u * GROUP + l: neighbouring invocations load neighbouring elements. A batch ahead:
        // the next batch's loads are in flight while this one's insertions run.
        uint raw[LANE_BATCH];
        stageLoad(raw, 0u);
        for (uint j0 = 0u; j0 < L; j0 += LANE_BATCH) {
#if defined(ELEM_b32)
            if (gKeyKind == 0x7F800000u) {  // uniform: FLOAT32
                [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) sStage[stagePlace(u)] = rankKeyF32(raw[u], flip);
            } else
#endif
            [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)  // staged as rank keys
                sStage[stagePlace(u)] = orderKeyOf(uvec2(raw[u], 0u)).x ^ flip;
            barrier();
            stageLoad(raw, j0 + LANE_BATCH);
#if defined(LANE_FILL)
            if (j0 == 0u) {  // uniform
                laneFillStaged(l * STAGE_PITCH, begin, min(length, LANE_BATCH));
            } else
#endif
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
