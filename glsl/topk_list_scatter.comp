// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 3 (ripple/topk_list.glsl): each workgroup takes the LIST_CHUNK entries of
// a row's candidate list that topk_list_count took, and puts each one whose bucket starts before K in the
// bucketed list: at its bucket's start (the exclusive sum of the row's counts) plus its place among the
// bucket's entries (a cursor per bucket reserves the chunk's share, a shared counter orders the chunk's).
// The row's first chunk also writes the buckets' starts for topk_list_sort.
// Bindings: 1 candidate lists, 2 state, 3 counts and cursors (zeroed scratch), 4 bucket ids, 5 bucketed
// lists (C per row), 6 the buckets' starts (B per row).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"
#include "ripple/scan.glsl"

#if defined(RIPPLE_SMALL)  // the whole scratch at binding 2 (topk_list.glsl)
layout(std430, binding = 2) buffer Scratch { uint scratchWords[]; };
layout(std430, binding = 3) buffer Counts { uint counts[]; };
#define CANDIDATES(i) scratchWords[P(48) + (i)]
#define STATE(i) scratchWords[(i)]
#define BUCKET_IDS(i) scratchWords[P(55) + (i)]
#define BUCKETED(i) scratchWords[P(56) + (i)]
#define STARTS(i) scratchWords[P(57) + (i)]
#else
layout(std430, binding = 1) readonly buffer Candidates { uint candidates[]; };
layout(std430, binding = 2) readonly buffer State { uint state[]; };
layout(std430, binding = 3) buffer Counts { uint counts[]; };
layout(std430, binding = 4) readonly buffer BucketIds { uint bucketIds[]; };
layout(std430, binding = 5) writeonly buffer Bucketed { uint bucketed[]; };
layout(std430, binding = 6) writeonly buffer Starts { uint starts[]; };
#define CANDIDATES(i) candidates[(i)]
#define STATE(i) state[(i)]
#define BUCKET_IDS(i) bucketIds[(i)]
#define BUCKETED(i) bucketed[(i)]
#define STARTS(i) starts[(i)]
#endif

shared uint sPlace[LIST_BUCKETS];  // a bucket's start, then where this chunk's share of it starts
shared uint sCount[LIST_BUCKETS];  // this chunk's entries per bucket

void main() {
    const uint C = SELECT_CAPACITY, B = LIST_B, K = TOPK_K, lid = gl_LocalInvocationID.x;
    const uint chunks = listChunks(), per = (B + (GROUP_SIZE - 1u)) / GROUP_SIZE;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, first = (g % chunks) * LIST_CHUNK;
        const uint L = STATE(row * SELECT_STATE + 3u);
        if (first >= L) continue;  // uniform
        const uint E = LIST_CHUNK / GROUP_SIZE;  // entries per invocation
        uint bucket[E], rank[E], key[E], idx[E];
        [[unroll]] for (uint u = 0u; u < LIST_CHUNK / GROUP_SIZE; ++u) {  // in flight during the scan
            const uint i = first + u * GROUP_SIZE + lid;
            bucket[u] = i < L ? BUCKET_IDS(row * C + i) : 0u;
            key[u] = i < L ? CANDIDATES((row * C + i) * 2u) : 0u;
            idx[u] = i < L ? CANDIDATES((row * C + i) * 2u + 1u) : 0u;
        }
        // Bucket starts: invocation x scans buckets [per x, per x + per).
        const uint x = scanIndex();
        uint mine[LIST_BUCKETS / GROUP_SIZE], part = 0u, total;
        [[unroll]] for (uint i = 0u; i < LIST_BUCKETS / GROUP_SIZE; ++i) {
            const uint j = x * per + i;
            mine[i] = i < per && j < B ? counts[row * 2u * B + j] : 0u;
            part += mine[i];
        }
        uint start = workgroupExclusiveAdd(part, total);
        [[unroll]] for (uint i = 0u; i < LIST_BUCKETS / GROUP_SIZE; ++i) {
            const uint j = x * per + i;
            if (i < per && j < B) {
                sPlace[j] = start;
                sCount[j] = 0u;
                if (first == 0u) STARTS(row * B + j) = start;
            }
            start += mine[i];
        }
        barrier();
        [[unroll]] for (uint u = 0u; u < LIST_CHUNK / GROUP_SIZE; ++u) {
            const uint i = first + u * GROUP_SIZE + lid;
            rank[u] = i < L && sPlace[bucket[u]] < K ? atomicAdd(sCount[bucket[u]], 1u) : 0xFFFFFFFFu;
        }
        barrier();
        for (uint j = lid; j < B; j += GROUP_SIZE)
            if (sCount[j] != 0u) sPlace[j] += atomicAdd(counts[(row * 2u + 1u) * B + j], sCount[j]);
        barrier();
        [[unroll]] for (uint u = 0u; u < LIST_CHUNK / GROUP_SIZE; ++u) {
            if (rank[u] != 0xFFFFFFFFu) {
                const uint to = row * C + sPlace[bucket[u]] + rank[u];
                BUCKETED(to * 2u) = key[u];
                BUCKETED(to * 2u + 1u) = idx[u];
            }
        }
        barrier();
    }
}
