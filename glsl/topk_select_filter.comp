#version 450
#extension GL_GOOGLE_include_directive : require
// Sampled radix-select TopK, dispatch 2 (topk_select.glsl): reads every row once, chunk by chunk. Elements
// ranked below the row's tau are appended to its candidate list as (rank, index); elements equal to tau
// are counted, per chunk and per row. Bindings: 1 input, 2 state, 3 per-chunk tie counts, 4 candidates.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer State { uint state[]; };
layout(std430, binding = 3) writeonly buffer ChunkTies { uint chunkTies[]; };
layout(std430, binding = 4) writeonly buffer Candidates { uint candidates[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_select.glsl"

#define UNROLL 8u
shared uint sCount[2];  // by tile parity: candidates the tile appends
shared uint sBase[2];   // where they go in the row's list
shared uint sTies;

void main() {
    const uint C = SELECT_CAPACITY, chunks = SELECT_CHUNKS, lid = gl_LocalInvocationID.x;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, chunk = g % chunks, s = row * SELECT_STATE;
        const uint tau = state[s];
        const uint begin = chunk * SELECT_CHUNK, end = min(TOPK_N, begin + SELECT_CHUNK);
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row), stride = TOPK_AXIS_STRIDE;
        if (lid == 0u) sCount[0] = sTies = 0u;
        barrier();
        uint ties = 0u, parity = 0u;
        for (uint tile = begin; tile < end; tile += 256u * UNROLL) {  // the same trip count for the workgroup
            uint key[UNROLL];
            uint mine = 0u, n = 0u;  // bit u: element u is a candidate
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                const uint j = tile + u * 256u + lid;
                key[u] = j < end ? rankKeyAt(rowBase + j * stride) : 0xFFFFFFFFu;
                if (j < end && key[u] < tau) mine |= 1u << u, ++n;
                if (j < end && key[u] == tau) ++ties;
            }
            // Append: offsets by a shared atomic, one global reservation per tile that has candidates.
            if (lid == 0u) sCount[parity ^ 1u] = 0u;  // for the next tile (read there after a barrier)
            const uint off = n != 0u ? atomicAdd(sCount[parity], n) : 0u;
            barrier();
            if (sCount[parity] != 0u) {  // uniform
                if (lid == 0u) sBase[parity] = atomicAdd(state[s + 1u], sCount[parity]);
                barrier();
                uint at = sBase[parity] + off;
                [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                    if ((mine & (1u << u)) == 0u) continue;
                    if (at < C) {
                        const uint o = (row * C + at) * 2u;
                        candidates[o] = key[u];
                        candidates[o + 1u] = tile + u * 256u + lid;
                    }
                    ++at;
                }
            }
            parity ^= 1u;
        }
        if (ties != 0u) atomicAdd(sTies, ties);
        barrier();
        if (lid == 0u) {
            chunkTies[g] = sTies;
            if (sTies != 0u) atomicAdd(state[s + 2u], sTies);
        }
        barrier();
    }
}
