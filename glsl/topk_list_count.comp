// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 2 (ripple/topk_list.glsl): each workgroup takes LIST_CHUNK entries of a
// row's candidate list, finds each one's bucket among the row's splitters, writes it to the bucket ids and
// adds its chunk's bucket counts to the row's (one global atomic per bucket present).
// Bindings: 1 candidate lists, 2 state, 3 splitters, 4 counts and cursors (zeroed scratch), 5 bucket ids
// (C per row).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"

#if defined(RIPPLE_SMALL)  // the whole scratch at binding 2 (topk_list.glsl)
layout(std430, binding = 2) buffer Scratch { uint scratchWords[]; };
layout(std430, binding = 4) buffer Counts { uint counts[]; };
#define CANDIDATES(i) scratchWords[P(48) + (i)]
#define STATE(i) scratchWords[(i)]
#define SPLITTERS(i) scratchWords[P(54) + (i)]
#define BUCKET_IDS(i) scratchWords[P(55) + (i)]
#else
layout(std430, binding = 1) readonly buffer Candidates { uint candidates[]; };
layout(std430, binding = 2) readonly buffer State { uint state[]; };
layout(std430, binding = 3) readonly buffer Splitters { uint splitters[]; };
layout(std430, binding = 4) buffer Counts { uint counts[]; };
layout(std430, binding = 5) writeonly buffer BucketIds { uint bucketIds[]; };
#define CANDIDATES(i) candidates[(i)]
#define STATE(i) state[(i)]
#define SPLITTERS(i) splitters[(i)]
#define BUCKET_IDS(i) bucketIds[(i)]
#endif

shared uint sSplitKey[LIST_BUCKETS];
shared uint sSplitIdx[LIST_BUCKETS];
shared uint sCount[LIST_BUCKETS];

// The bucket of entry (key, idx): the last sample j at or before it, 0 if none is (sample 0 is never
// compared: bucket 0 takes everything before sample 1).
uint bucketOf(uint key, uint idx) {
    uint b = 0u;
    for (uint step = LIST_B / 2u; step > 0u; step >>= 1u) {
        const uint j = b + step;
        b = listBefore(key, idx, sSplitKey[j], sSplitIdx[j]) != 0u ? b : j;  // splitter j at or before it
    }
    return b;
}

void main() {
    const uint C = SELECT_CAPACITY, B = LIST_B, lid = gl_LocalInvocationID.x;
    const uint chunks = listChunks(), E = LIST_CHUNK / GROUP_SIZE;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, first = (g % chunks) * LIST_CHUNK;
        const uint L = STATE(row * SELECT_STATE + 3u);
        if (first >= L) continue;  // uniform
        uint entryKey[LIST_CHUNK / GROUP_SIZE], entryIdx[LIST_CHUNK / GROUP_SIZE];
        [[unroll]] for (uint u = 0u; u < E; ++u) {  // in flight while the splitters load
            const uint i = first + u * GROUP_SIZE + lid;
            entryKey[u] = i < L ? CANDIDATES((row * C + i) * 2u) : 0u;
            entryIdx[u] = i < L ? CANDIDATES((row * C + i) * 2u + 1u) : 0u;
        }
        for (uint j = lid; j < B; j += GROUP_SIZE) {
            sSplitKey[j] = SPLITTERS((row * B + j) * 2u);
            sSplitIdx[j] = SPLITTERS((row * B + j) * 2u + 1u);
        }
        for (uint j = lid; j < B; j += GROUP_SIZE) sCount[j] = 0u;
        barrier();
        RIPPLE_MARK(0);  // phases (PROFILE builds): loads, buckets, the row's counts
        [[unroll]] for (uint u = 0u; u < E; ++u) {
            const uint i = first + u * GROUP_SIZE + lid;
            if (i < L) {
                const uint b = bucketOf(entryKey[u], entryIdx[u]);
                BUCKET_IDS(row * C + i) = b;
                atomicAdd(sCount[b], 1u);
            }
        }
        barrier();
        RIPPLE_MARK(1);
        for (uint j = lid; j < B; j += GROUP_SIZE)
            if (sCount[j] != 0u) atomicAdd(counts[row * 2u * B + j], sCount[j]);
        barrier();
        RIPPLE_MARK(2);
    }
}
