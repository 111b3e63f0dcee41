// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 4 (ripple/topk_list.glsl): each workgroup takes LIST_GROUP buckets of a
// row's bucketed list, sorts those that start before K (consecutive ones together while they fit
// LIST_SLOTS) and writes their entries that rank before K: index, and value bit for bit from the input.
// Bindings: 1 input, 2 counts, 3 bucketed lists, 4 values, 5 indices.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"
#include "ripple/scan.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) readonly buffer Counts { uint counts[]; };
// Coherent: a bucket too large for shared memory is sorted here, across the workgroup's barriers.
layout(std430, binding = 3) coherent buffer Bucketed { uint bucketed[]; };
layout(std430, binding = 4) buffer Values { uint values[]; };
layout(std430, binding = 5) writeonly buffer IndicesOut { uint indicesOut[]; };

#define SLOTS LIST_SLOTS
#include "ripple/bitonic.glsl"
#include "ripple/topk_write.glsl"

// Sorts entries [first, first + n) of the bucketed list in place: the bitonic network of the next power of
// 2, whose positions past n stand for entries after every real one (the network's mirrored first steps
// never move such an entry down, so their pairs are skipped). Slow (a global round trip and a barrier per
// step), and only for a bucket over LIST_SORT_SLOTS. All invocations must call it.
void sortInPlace(uint first, uint n) {
    uint P2 = 1u;
    while (P2 < n) P2 <<= 1u;
    for (uint k = 2u; k <= P2; k <<= 1u) {
        for (uint d = k >> 1u; d > 0u; d >>= 1u) {
            for (uint p = gl_LocalInvocationID.x; p < P2 / 2u; p += 256u) {
                const uint lo = ((p & ~(d - 1u)) << 1u) | (p & (d - 1u));
                const uint hi = d == (k >> 1u) ? (lo ^ (k - 1u)) : (lo + d);
                if (hi >= n) continue;
                const uvec2 a = uvec2(bucketed[(first + lo) * 2u], bucketed[(first + lo) * 2u + 1u]);
                const uvec2 b = uvec2(bucketed[(first + hi) * 2u], bucketed[(first + hi) * 2u + 1u]);
                if (b.x < a.x || (b.x == a.x && b.y < a.y)) {
                    bucketed[(first + lo) * 2u] = b.x;
                    bucketed[(first + lo) * 2u + 1u] = b.y;
                    bucketed[(first + hi) * 2u] = a.x;
                    bucketed[(first + hi) * 2u + 1u] = a.y;
                }
            }
            memoryBarrierBuffer();
            barrier();
        }
    }
}

void main() {
    const uint C = SELECT_CAPACITY, B = LIST_BUCKETS, K = TOPK_K, lid = gl_LocalInvocationID.x;
    const uint groupsPerRow = B / LIST_GROUP, per = B / 256u;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * groupsPerRow; g += pc.groupCount) {
        const uint row = g / groupsPerRow, firstBucket = (g % groupsPerRow) * LIST_GROUP;
        const uint countBase = row * 2u * B, listBase = row * C;
        // The first bucket's start: the row's entries in the buckets before it.
        uint part = 0u, pos;
        for (uint i = 0u; i < per; ++i) {
            const uint j = lid * per + i;
            part += j < firstBucket ? counts[countBase + j] : 0u;
        }
        workgroupExclusiveAdd(part, pos);
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        uint b = firstBucket;
        while (b < firstBucket + LIST_GROUP && pos < K) {  // uniform
            uint n = counts[countBase + b], e = b + 1u;
            if (n > LIST_SORT_SLOTS) {
                sortInPlace(listBase + pos, n);
                for (uint i = lid; i < n && pos + i < K; i += 256u)
                    writeWinner(row, rowBase, pos + i, bucketed[(listBase + pos + i) * 2u + 1u]);
            } else {
                // Later buckets join while they fit and start before K (the scatter placed only those).
                const uint last = firstBucket + LIST_GROUP, slots = LIST_SORT_SLOTS;
                while (e < last && pos + n < K && n + counts[countBase + e] <= slots)
                    n += counts[countBase + e++];
                uint P2 = 1u;
                while (P2 < n) P2 <<= 1u;
                for (uint i = lid; i < P2; i += 256u) {
                    sKey[0][i] = i < n ? bucketed[(listBase + pos + i) * 2u] : 0xFFFFFFFFu;
                    sIdx[i] = i < n ? bucketed[(listBase + pos + i) * 2u + 1u] : 0xFFFFFFFFu;
                }
                barrier();
                sortFirst(P2);
                for (uint i = lid; i < n && pos + i < K; i += 256u)
                    writeWinner(row, rowBase, pos + i, sIdx[i]);
            }
            barrier();
            pos += n;
            b = e;
        }
    }
}
