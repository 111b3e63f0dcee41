// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 1 (ripple/topk_list.glsl): each workgroup takes LIST_CHUNK entries of a
// row's candidate list, sorts the row's B samples of the list into splitters, finds each entry's bucket,
// writes it to the bucket ids and adds its chunk's bucket counts to the row's (one global atomic per bucket
// present). MODE fast: the samples' sort exchanges by subgroup shuffles.
// Bindings: 1 candidate lists, 2 state, 3 counts and cursors (zeroed scratch), 4 bucket ids (C per row).
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"
#include "ripple/hash.glsl"
#include "ripple/scan.glsl"

layout(std430, binding = 1) readonly buffer Candidates { uint candidates[]; };
layout(std430, binding = 2) readonly buffer State { uint state[]; };
layout(std430, binding = 3) buffer Counts { uint counts[]; };
layout(std430, binding = 4) writeonly buffer BucketIds { uint bucketIds[]; };

shared uint sSplitKey[LIST_BUCKETS];  // the sort's exchanges, then the sorted samples
shared uint sSplitIdx[LIST_BUCKETS];
shared uint sCount[LIST_BUCKETS];
#define RSORT_KEYS sSplitKey
#define RSORT_IDXS sSplitIdx
#include "ripple/register_sort.glsl"

// The bucket of entry (key, idx): the last sample j at or before it, 0 if none is (sample 0 is never
// compared: bucket 0 takes everything before sample 1).
uint bucketOf(uint key, uint idx) {
    uint b = 0u;
    for (uint step = LIST_B / 2u; step > 0u; step >>= 1u) {
        const uint j = b + step, k = sSplitKey[j];
        if (k < key || (k == key && sSplitIdx[j] <= idx)) b = j;
    }
    return b;
}

void main() {
    const uint C = SELECT_CAPACITY, B = LIST_B, lid = gl_LocalInvocationID.x, x = scanIndex();
    const uint chunks = listChunks(), E = LIST_CHUNK / 256u;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, first = (g % chunks) * LIST_CHUNK;
        const uint L = state[row * SELECT_STATE + 3u];
        if (first >= L) continue;  // uniform
        // The samples: j = slot * 256 + x, at a pseudo-random position of stratum j (floor(j L / B) on),
        // computed without the 32-bit product overflowing.
        const uint stratum = L / B;
        uint key[RSORT_SLOTS], idx[RSORT_SLOTS];
        [[unroll]] for (uint s = 0u; s < RSORT_SLOTS; ++s) {
            const uint j = (s << 8u) | x;
            const uint lo = j * stratum + (j * (L % B)) / B;
            const uint pos = min(lo + hash(j) % max(stratum, 1u), L - 1u);
            key[s] = j < B ? candidates[(row * C + pos) * 2u] : 0xFFFFFFFFu;
            idx[s] = j < B ? candidates[(row * C + pos) * 2u + 1u] : 0xFFFFFFFFu;
        }
        uint entryKey[LIST_CHUNK / 256u], entryIdx[LIST_CHUNK / 256u];
        [[unroll]] for (uint u = 0u; u < E; ++u) {  // in flight during the sort
            const uint i = first + u * 256u + lid;
            entryKey[u] = i < L ? candidates[(row * C + i) * 2u] : 0u;
            entryIdx[u] = i < L ? candidates[(row * C + i) * 2u + 1u] : 0u;
        }
        registerSort(key, idx, B);
        [[unroll]] for (uint s = 0u; s < RSORT_SLOTS; ++s) {
            if (((s << 8u) | x) < B) {
                sSplitKey[(s << 8u) | x] = key[s];
                sSplitIdx[(s << 8u) | x] = idx[s];
            }
        }
        for (uint j = lid; j < B; j += 256u) sCount[j] = 0u;
        barrier();
        [[unroll]] for (uint u = 0u; u < E; ++u) {
            const uint i = first + u * 256u + lid;
            if (i < L) {
                const uint b = bucketOf(entryKey[u], entryIdx[u]);
                bucketIds[row * C + i] = b;
                atomicAdd(sCount[b], 1u);
            }
        }
        barrier();
        for (uint j = lid; j < B; j += 256u)
            if (sCount[j] != 0u) atomicAdd(counts[row * 2u * B + j], sCount[j]);
        barrier();
    }
}
