// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
// TopK of short rows, one part a row (core/topk.cpp's planLane): the fast family's form of
// topk_lane_staged for rows of at most LANE_SUBGROUP_MAX_ROW elements. There, each invocation walks its own
// row in batches staged through shared memory, two barriers a batch, and the kernel waits on its loads
// ((1048576,32) K=4: 115 us on the H200, 2.8x the floor; bench/NOTES.md, issue 59). Here a cluster of C
// neighbouring lanes of a subgroup holds a row, PER_LANE neighbouring elements a lane, C the power of 2 >=
// ceil(n / PER_LANE): lane c of a cluster holds elements c * PER_LANE .. c * PER_LANE + PER_LANE - 1, so
// lane order then slot order is index order. K rounds each take the row's best remaining entry: every lane
// offers its own best (the smallest rank key, the lowest slot among equal ones), shuffles find the cluster's
// smallest key, a ballot the lowest lane offering it (so ties fall to the smaller index), shuffles bring
// its value and index to the lane that writes that rank. No shared memory, no barrier, and nothing waits on
// another subgroup.
//
// Needs full subgroups (FeatureFullSubgroups: every lane present) and C <= gl_SubgroupSize: the plan asks
// for subgroups of at least C (PlanDispatch::fastMinSubgroupSize), and a device with smaller ones runs
// topk_lane_staged (runtime/variants.cpp). Rows are indexed by gl_SubgroupID and gl_SubgroupInvocationID,
// not by gl_LocalInvocationIndex, so no mapping of invocations to lanes is assumed. ELEM_x: the element
// size, up to 32 bits; the type's order from params [33] (topk_key.glsl's KEY_RUNTIME). Params: planLane's
// (topk_lane.glsl) with one part a row. Bindings: 1 input, 2 values, 3 indices.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };

#define KEY_RUNTIME P(33u)
#include "ripple/topk_key.glsl"
#include "ripple/topk_write.glsl"

#define LANE_KEY_BITS P(32)
#define PER_LANE 4u
#define MAX_CLUSTER 32u  // a cluster's ballot bits lie in one word (core/topk.cpp: kLaneSubgroupMaxRow)

uint gKey[PER_LANE], gRaw[PER_LANE];
uint gValid;  // bit s: slot s holds an element not yet taken
uint gBestKey, gBestRaw, gBestIdx;

// This lane's best remaining entry: the smallest rank key, the lowest slot among equal keys (slots
// descending, each at least as good replacing the last). Branch-free selects: the winner's lane runs it
// in every round.
void laneBest(uint c) {
    gBestKey = 0xFFFFFFFFu;
    gBestRaw = 0u;
    gBestIdx = 0u;
    [[unroll]] for (int s = int(PER_LANE) - 1; s >= 0; --s) {
        const bool take = ((gValid >> uint(s)) & 1u) != 0u && gKey[s] <= gBestKey;
        gBestKey = take ? gKey[s] : gBestKey;
        gBestRaw = take ? gRaw[s] : gBestRaw;
        gBestIdx = take ? c * PER_LANE + uint(s) : gBestIdx;
    }
}

void main() {
    const uint n = TOPK_N, rows = TOPK_ROWS, K = TOPK_K, stride = TOPK_AXIS_STRIDE;
    const uint bits = LANE_KEY_BITS;
    const uint flip = TOPK_DIRECTION == 0u ? (bits >= 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    keyKindSetup();
    const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
    uint C = 1u;
    while (C * PER_LANE < n) C <<= 1u;
    // The runtime never runs this where C > S (above); were it to, nothing would be written rather than
    // written wrong. A cluster's lanes c = lane % C start at lane `base`, a multiple of C.
    if (C > S || C > MAX_CLUSTER) return;
    const uint c = lane % C, base = lane - c;
    const uint rowsPerGroup = gl_NumSubgroups * (S / C);
    const uint rowInGroup = gl_SubgroupID * (S / C) + lane / C;
    // The loop's bound is uniform in the workgroup; a cluster past the last row still takes part in its
    // subgroup's shuffles and ballots, with nothing to offer and nothing to write.
    for (uint g = gl_WorkGroupID.x; g < (rows + rowsPerGroup - 1u) / rowsPerGroup; g += pc.groupCount) {
        const uint row = g * rowsPerGroup + rowInGroup;
        const bool live = row < rows;
        const uint rowBase = live ? viewOffset(TOPK_ROW_VIEW, row) : 0u;
        gValid = 0u;
        [[unroll]] for (uint s = 0u; s < PER_LANE; ++s) {
            const uint j = c * PER_LANE + s;
            const bool ok = live && j < n;
            gRaw[s] = ok ? loadElement(rowBase + j * stride).x : 0u;
            gKey[s] = orderKeyOf(uvec2(gRaw[s], 0u)).x ^ flip;
            gValid |= uint(ok) << s;
        }
        laneBest(c);
        // Rank r is written by cluster lane r % C, from its slot r / C (K <= n <= PER_LANE * C).
        uint outIdx[PER_LANE], outRaw[PER_LANE];
        [[unroll]] for (uint s = 0u; s < PER_LANE; ++s) outIdx[s] = outRaw[s] = 0u;
        for (uint r = 0u; r < K; ++r) {
            const bool has = gValid != 0u;
            uint m = has ? gBestKey : 0xFFFFFFFFu;
            for (uint d = 1u; d < C; d <<= 1u) m = min(m, subgroupShuffleXor(m, d));
            const uvec4 ballot = subgroupBallot(has && gBestKey == m);
            const uint word = ballot[base >> 5u] >> (base & 31u);
            const uint offered = C == 32u ? word : word & ((1u << C) - 1u);
            const uint w = offered != 0u ? uint(findLSB(offered)) : 0u;  // 0: a cluster past the last row
            const uint idx = subgroupShuffle(gBestIdx, base + w), raw = subgroupShuffle(gBestRaw, base + w);
            if (c == r % C) {
                const uint q = r / C;
                [[unroll]] for (uint s = 0u; s < PER_LANE; ++s) {
                    outIdx[s] = s == q ? idx : outIdx[s];
                    outRaw[s] = s == q ? raw : outRaw[s];
                }
            }
            if (has && c == w) {
                gValid &= ~(1u << (gBestIdx - c * PER_LANE));
                laneBest(c);
            }
        }
        if (live) {
            [[unroll]] for (uint s = 0u; s < PER_LANE; ++s) {
                const uint r = s * C + c;
                if (r < K) writeWinnerValue(row, r, outIdx[s], uvec2(outRaw[s], 0u));
            }
        }
    }
}
