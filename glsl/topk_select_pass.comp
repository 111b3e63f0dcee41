#version 450
#extension GL_GOOGLE_include_directive : require
// Radix-select TopK, pass p (push constant arg) over chunks of every row; see topk_select.glsl.
// Bindings: 1 input, 2 state, 3 histograms (SELECT_BINS per row), 4 selected lists (K entries per row),
// 5 candidate lists (two of `capacity` entries per row). An entry is (rank key, index).
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) coherent buffer State { uint state[]; };
layout(std430, binding = 3) coherent buffer Hist { uint hist[]; };
layout(std430, binding = 4) writeonly buffer Selected { uint selected[]; };
layout(std430, binding = 5) buffer Lists { uint lists[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_select.glsl"

#define UNROLL 8u
shared uint sCount[2][2];  // [tile parity][selected, kept]: entries the tile appends
shared uint sBase[2][2];   // where they go in the row's lists
shared bool sLast;

void main() {
    const uint p = pc.arg, D = SELECT_DIGITS, K = TOPK_K, C = SELECT_CAPACITY, chunks = SELECT_CHUNKS;
    const uint lid = gl_LocalInvocationID.x;
    const bool filters = p >= 1u, counts = p < D;
    const uint listIn = (p + 1u) & 1u, listOut = p & 1u;  // list p-1 is read, list p written
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, chunk = g % chunks, s = row * SELECT_STATE;
        const uint prefix = state[s];
        const uint listCount = p >= 2u ? state[s + 3u + listIn] : 0xFFFFFFFFu;
        const bool fromList = listCount <= C;
        uint begin, end;
        if (fromList) {
            const uint per = (listCount + chunks - 1u) / chunks;
            begin = min(listCount, chunk * per);
            end = min(listCount, begin + per);
        } else {
            begin = chunk * SELECT_CHUNK;
            end = min(TOPK_N, begin + SELECT_CHUNK);
        }
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row), stride = TOPK_AXIS_STRIDE;
        const uint listBase = (listIn * TOPK_ROWS + row) * C * 2u;
        const uint bucket = filters ? digitOf(prefix, p - 1u) : 0u;
        for (uint i = lid; i < SELECT_BINS; i += 256u) sBins[i] = 0u;
        if (lid < 2u) sCount[0][lid] = 0u;
        barrier();
        uint parity = 0u;
        for (uint tile = begin; tile < end; tile += 256u * UNROLL) {  // the same trip count for the workgroup
            uint key[UNROLL], idx[UNROLL];
            uint what = 0u;  // 2 bits per element: 1 selected, 2 kept
            uint nSel = 0u, nKeep = 0u;
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                const uint i = tile + u * 256u + lid;
                if (i >= end) continue;
                if (fromList) {
                    key[u] = lists[listBase + 2u * i];
                    idx[u] = lists[listBase + 2u * i + 1u];
                } else {
                    key[u] = rankKeyAt(rowBase + i * stride);
                    idx[u] = i;
                }
                uint kind = 2u;
                if (filters) {
                    kind = 0u;
                    if (matchThrough(key[u], prefix, int(p) - 2)) {
                        const uint d = digitOf(key[u], p - 1u);
                        kind = d < bucket ? 1u : (d == bucket ? 2u : 0u);
                    }
                }
                if (kind == 2u && counts) atomicAdd(sBins[digitOf(key[u], p)], 1u);
                what |= kind << (2u * u);
                nSel += kind == 1u ? 1u : 0u;
                nKeep += kind == 2u ? 1u : 0u;
            }
            if (!filters) continue;  // pass 0 only counts (uniform)
            // Append: offsets within the tile by shared atomics, one global reservation per list and tile.
            const uint offSel = nSel != 0u ? atomicAdd(sCount[parity][0], nSel) : 0u;
            const uint offKeep = nKeep != 0u ? atomicAdd(sCount[parity][1], nKeep) : 0u;
            barrier();
            if (lid == 0u) {
                const uint a = sCount[parity][0], b = sCount[parity][1];
                sBase[parity][0] = a != 0u ? atomicAdd(state[s + 2u], a) : 0u;
                sBase[parity][1] = b != 0u ? atomicAdd(state[s + 3u + listOut], b) : 0u;
                sCount[parity ^ 1u][0] = 0u;
                sCount[parity ^ 1u][1] = 0u;
            }
            barrier();
            uint atSel = sBase[parity][0] + offSel, atKeep = sBase[parity][1] + offKeep;
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                const uint kind = (what >> (2u * u)) & 3u;
                if (kind == 1u) {
                    if (atSel < K) {  // always: at most K - 1 elements are above the threshold
                        selected[(row * K + atSel) * 2u] = key[u];
                        selected[(row * K + atSel) * 2u + 1u] = idx[u];
                    }
                    ++atSel;
                } else if (kind == 2u) {
                    if (atKeep < C) {
                        const uint o = ((listOut * TOPK_ROWS + row) * C + atKeep) * 2u;
                        lists[o] = key[u];
                        lists[o + 1u] = idx[u];
                    }
                    ++atKeep;
                }
            }
            parity ^= 1u;
        }
        if (!counts) continue;  // the extra pass of one-digit keys: nothing to count (uniform)
        barrier();
        for (uint i = lid; i < SELECT_BINS; i += 256u)
            if (sBins[i] != 0u) atomicAdd(hist[row * SELECT_BINS + i], sBins[i]);
        memoryBarrierBuffer();
        barrier();
        if (lid == 0u) sLast = atomicAdd(state[s + 5u], 1u) == chunks - 1u;
        barrier();
        if (sLast) {  // every other workgroup of this row has counted: find the bucket of the K-th element
            memoryBarrierBuffer();
            for (uint i = lid; i < SELECT_BINS; i += 256u) sBins[i] = atomicExchange(hist[row * SELECT_BINS + i], 0u);
            const uint need = state[s + 1u];
            findBucket(need);
            if (lid == 0u) {
                state[s] = prefix | (sFoundBucket << digitShift(p));
                state[s + 1u] = need - sFoundBefore;
                state[s + 5u] = 0u;
                if (p >= 2u) state[s + 3u + listIn] = 0u;  // list p-1 is consumed; pass p+1 writes it
                if (p + 1u == D) state[s + 6u] = sBins[sFoundBucket];
            }
        }
        barrier();
    }
}
