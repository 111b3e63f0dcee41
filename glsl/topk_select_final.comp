#version 450
#extension GL_GOOGLE_include_directive : require
// Sampled radix-select TopK, dispatch 3 (topk_select.glsl): one workgroup per row gathers the K winners.
// arg 0 (K <= 1024): sorts them by (rank, index) and writes values (bit for bit from the input) and indices.
// arg 1 (larger K; core/topk.cpp's planSelectLarge): leaves them in the row's candidate list for the tile
// and merge passes to sort, and stores the list's length in the row's state word 3: the candidates as they
// are when there are at least K, else the candidates plus the first ties of tau, else (the estimate missed
// or the list overflowed) exactly the K winners, selected from the whole row.
// Bindings: 1 input, 2 state, 3 per-chunk tie counts, 4 candidates, 5 values, 6 indices.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer State { uint state[]; };
layout(std430, binding = 3) readonly buffer ChunkTies { uint chunkTies[]; };
layout(std430, binding = 4) buffer Candidates { uint candidates[]; };
layout(std430, binding = 5) buffer Values { uint values[]; };
layout(std430, binding = 6) writeonly buffer IndicesOut { uint indicesOut[]; };

#include "ripple/topk_key.glsl"
#define SELECT_ENTRIES
#include "ripple/topk_select.glsl"
#include "ripple/bitonic.glsl"  // the K winners (K <= SLOTS), unordered until written
#include "ripple/topk_write.glsl"


shared uint sSlots;
bool gFromList;
uint gListBase, gRowBase, gGatherBase;

// Entry i of the source: the row's candidate list, or the input row itself.
void selectEntry(uint i, out uint key, out uint idx) {
    if (gFromList) {
        key = candidates[gListBase + 2u * i];
        idx = candidates[gListBase + 2u * i + 1u];
    } else {
        key = rankKeyAt(gRowBase + i * TOPK_AXIS_STRIDE);
        idx = i;
    }
}

void take(uint key, uint idx) {
    const uint at = atomicAdd(sSlots, 1u);
    if (pc.arg != 0u) {  // into the list, after its first gGatherBase entries (at most K in all)
        candidates[gListBase + 2u * (gGatherBase + at)] = key;
        candidates[gListBase + 2u * (gGatherBase + at) + 1u] = idx;
    } else if (at < SLOTS) {
        sKey[0][at] = key;
        sIdx[at] = idx;
    }
}

// Takes the K best of the source by (rank, index): radix selection of the K-th rank T, then, when only
// some of the entries equal to T are wanted, radix selection of the last wanted index among them.
void takeBest(uint count) {
    const uint lid = gl_LocalInvocationID.x;
    uint need = TOPK_K, ties;
    const uint T = selectByRank(count, need, ties);
    uint lastIndex = 0xFFFFFFFFu;
    if (need < ties) {
        uint prefix = 0u;
        for (int shift = 22; shift >= 0; shift -= 11) {
            for (uint b = lid; b < SELECT_BINS; b += 256u) sBins[b] = 0u;
            barrier();
            const uint above = uint(shift) + 11u;
            for (uint i = lid; i < count; i += 256u) {
                uint key, idx;
                selectEntry(i, key, idx);
                if (key == T && (above >= 32u || (idx >> above) == (prefix >> above)))
                    atomicAdd(sBins[(idx >> uint(shift)) & 0x7FFu], 1u);
            }
            findBucket(need);
            prefix |= sFoundBucket << uint(shift);
            need -= sFoundBefore;
            barrier();
        }
        lastIndex = prefix;
    }
    for (uint i = lid; i < count; i += 256u) {
        uint key, idx;
        selectEntry(i, key, idx);
        if (key < T || (key == T && idx <= lastIndex)) take(key, idx);
    }
}

// Takes the first `need` elements equal to tau in index order, visiting only chunks that hold some. A
// chunk is read in windows of 8192 elements: each invocation loads 32 consecutive elements (all loads in
// flight), marks its ties in a bit mask, and a prefix sum of the mask counts orders the invocations.
void takeFirstTies(uint row, uint tau, uint need) {
    const uint chunks = SELECT_CHUNKS, x = scanIndex();
    uint taken = 0u;
    for (uint c = 0u; c < chunks && taken < need; ++c) {  // uniform
        const uint here = chunkTies[row * chunks + c];
        if (here == 0u) continue;
        const uint begin = c * SELECT_CHUNK, end = min(TOPK_N, begin + SELECT_CHUNK);
        for (uint w = begin; w < end && taken < need; w += 8192u) {  // uniform
            const uint first = w + x * 32u;
            uint mask = 0u;
            [[unroll]] for (uint i = 0u; i < 32u; ++i) {
                const uint j = first + i;
                if (j < end && rankKeyAt(gRowBase + j * TOPK_AXIS_STRIDE) == tau) mask |= 1u << i;
            }
            const uint mine = bitCount(mask);
            uint total;
            uint rank = taken + workgroupExclusiveAdd(mine, total);
            for (; mask != 0u && rank < need; ++rank) {
                const int i = findLSB(mask);
                mask &= mask - 1u;
                take(tau, first + uint(i));
            }
            taken = min(need, taken + total);
        }
    }
}

void main() {
    const uint K = TOPK_K, C = SELECT_CAPACITY, lid = gl_LocalInvocationID.x;
    rankKeySetup();
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        const uint s = row * SELECT_STATE;
        const uint tau = state[s], below = state[s + 1u], atTau = state[s + 2u];
        gRowBase = viewOffset(TOPK_ROW_VIEW, row);
        gListBase = row * C * 2u;
        if (lid == 0u) sSlots = 0u;
        barrier();
        if (pc.arg != 0u) {  // gather: the list, sorted by the passes after this one
            gGatherBase = below;
            if (below >= K && below <= C) {
                if (lid == 0u) state[s + 3u] = below;  // the list as it is
            } else if (below < K && below + atTau >= K) {
                takeFirstTies(row, tau, K - below);
                if (lid == 0u) state[s + 3u] = K;
            } else {
                gGatherBase = 0u;
                gFromList = false;
                takeBest(TOPK_N);
                if (lid == 0u) state[s + 3u] = K;
            }
            barrier();
            continue;
        }
        if (below >= K && below <= C) {  // the K best are all in the list
            gFromList = true;
            takeBest(below);
        } else if (below < K && below + atTau >= K) {  // all candidates, then the first ties of tau
            for (uint i = lid; i < below; i += 256u)
                take(candidates[gListBase + 2u * i], candidates[gListBase + 2u * i + 1u]);
            takeFirstTies(row, tau, K - below);
        } else {  // the estimate missed, or the list overflowed: select from the whole row (exact, slow)
            gFromList = false;
            takeBest(TOPK_N);
        }
        barrier();
        writeWinners(row, gRowBase);
        barrier();
    }
}
