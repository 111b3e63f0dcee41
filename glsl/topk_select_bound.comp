#version 450
#extension GL_GOOGLE_include_directive : require
// Bounded radix-select TopK (core/topk.cpp, planSelect's `bounded`): the first of two dispatches, in place
// of sampled selection's sample and filter steps (topk_select.glsl). Each workgroup reads one chunk of a row,
// tile by tile, and appends to the row's candidate list every element whose rank is at most the chunk's
// bound: a rank that at least K elements of the chunk read so far are at or below. So the chunk's K best by
// (rank, index), and with them every winner of the row that lies in the chunk, are always in the list, and
// topk_select_final selects from it. No sample step: on the H100 that level costs 13 to 18 us on the LLM
// shapes whatever its work (bench/NOTES.md, v13, v14). The price is a longer list (a few K per tile when
// the bound is loose) and, for inputs with many ties at the bounds, a list that overflows its capacity and
// sends the final step to the whole row (exact, slow).
//
// The bound: each invocation keeps the smallest rank it has read in the chunk (a distinct element per
// invocation). Fast variant: each subgroup sorts those minima by shuffles and offers its q-th smallest,
// q = ceil(K / subgroups) (at most the subgroup size for K <= 256); the bound is the largest offer, since
// every subgroup holds q minima at or below it. Portable variant: the K-th smallest of the 256 minima, by
// counting in shared memory. Either bound only keeps more than needed, and tightens as the chunk is read.
//
// Params: sampled selection's (topk_select.glsl; the sample words unused). K <= 256.
// Bindings: 1 input, 2 state (zero before the dispatch: word 1 counts the row's candidates; the final step
// sets it back to zero), 3 the candidate lists.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer State { uint state[]; };
layout(std430, binding = 3) writeonly buffer Candidates { uint candidates[]; };

#include "ripple/topk_key.glsl"
#define SELECT_STAGE
#include "ripple/topk_select.glsl"

#define UNROLL 16u
// Two sets in turn (tile parity), so that one barrier per tile separates a set's reads from its next writes.
shared uint sBound[2][256];
#if !defined(MODE_fast)
shared uint sKth[2];
#endif

// The chunk's bound after a tile, from this invocation's smallest rank so far. All invocations call it.
uint chunkBound(uint least, uint parity) {
    const uint K = TOPK_K;
#if defined(MODE_fast)
    uint v = least;  // bitonic sort of the subgroup's minima, ascending in lane order
    const uint lane = gl_SubgroupInvocationID;
    for (uint k = 2u; k <= gl_SubgroupSize; k <<= 1u) {
        for (uint d = k >> 1u; d > 0u; d >>= 1u) {
            const uint other = subgroupShuffleXor(v, d);
            v = (((lane & d) == 0u) == ((lane & k) == 0u)) ? min(v, other) : max(v, other);
        }
    }
    const uint q = (K + gl_NumSubgroups - 1u) / gl_NumSubgroups;
    const uint offer = subgroupShuffle(v, q - 1u);
    if (lane == 0u) sBound[parity][gl_SubgroupID] = offer;
    barrier();
    uint bound = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) bound = max(bound, sBound[parity][s]);
    return bound;
#else
    const uint lid = gl_LocalInvocationID.x;
    sBound[parity][lid] = least;
    barrier();
    uint below = 0u, atMost = 0u;
    for (uint i = 0u; i < 256u; ++i) {
        const uint other = sBound[parity][i];
        below += other < least ? 1u : 0u;
        atMost += other <= least ? 1u : 0u;
    }
    if (below < K && K <= atMost) sKth[parity] = least;  // the K-th smallest (its holders agree)
    barrier();
    return sKth[parity];
#endif
}

void main() {
    const uint chunks = SELECT_CHUNKS, lid = gl_LocalInvocationID.x;
    const uint n = TOPK_N, chunkSize = SELECT_CHUNK, stride = TOPK_AXIS_STRIDE;
    rankKeySetup();
    uint parity = 0u;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, chunk = g % chunks;
        const uint begin = chunk * chunkSize, end = min(n, begin + chunkSize);
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        if (lid == 0u) sStaged = 0u;
        barrier();
        uint least = 0xFFFFFFFFu;  // no element yet: a bound that keeps everything
        for (uint tile = begin; tile < end; tile += 256u * UNROLL) {
            uint key[UNROLL];
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {  // all loads first, no branch between: in flight
                const uint j = min(tile + u * 256u + lid, end - 1u);
                key[u] = loadElement(rowBase + j * stride).x;
            }
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                key[u] = rankKeyOf(key[u]);
                if (tile + u * 256u + lid < end) least = min(least, key[u]);  // real elements only
            }
            const uint bound = chunkBound(least, parity);
            parity ^= 1u;
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                const uint j = tile + u * 256u + lid;
                if (j < end && key[u] <= bound) stageCandidate(row, key[u], j);
            }
        }
        barrier();
        flushStage(row);
    }
}
