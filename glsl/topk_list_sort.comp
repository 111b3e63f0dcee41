// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 4 (ripple/topk_list.glsl): a workgroup per bucket of a row's bucketed
// list. It sets the bucket's count and cursor back to zero (zeroed scratch) and, if the bucket starts before
// K, ranks its entries by counting in shared memory (a bucket holds about L / B, 86 on (1,16777216)
// K=65536: a sort's dependent steps would cost more than n / 256 * n independent comparisons; H100,
// bench/NOTES.md issue 21, sixth session), or sorts it in place in the list when it holds more than
// LIST_SORT_SLOTS, and writes its entries that rank before K: index, and value bit for bit from the input.
// Bindings: 1 input, 2 counts and cursors (zeroed scratch), 3 starts, 4 bucketed lists, 5 values, 6 indices.
// The small forms (4 storage buffers): indices only, from the starts' binding (the starts, then the bucketed
// lists: topk_list.glsl); topk_values.comp then writes the values. They sort a bucket over LIST_RANK_MAX
// in shared memory instead of ranking it (sortShared).
#if defined(RIPPLE_SMALL)
#define INVOCATIONS 128u
#else
#define INVOCATIONS 512u  // a bucket's n * n comparisons over 512 invocations (the largest buckets decide)
#endif
layout(local_size_x = INVOCATIONS) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"

layout(std430, binding = 2) buffer Counts { uint counts[]; };
#if defined(RIPPLE_SMALL)
// Coherent: a bucket too large for shared memory is sorted here, across the workgroup's barriers.
layout(std430, binding = 3) coherent buffer StartsBucketed { uint startsBucketed[]; };
layout(std430, binding = 6) writeonly buffer IndicesOut { uint indicesOut[]; };
#define STARTS(i) startsBucketed[(i)]
#define BUCKETED(i) startsBucketed[P(56) - P(57) + (i)]
#else
layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 3) readonly buffer Starts { uint starts[]; };
// Coherent: a bucket too large for shared memory is sorted here, across the workgroup's barriers.
layout(std430, binding = 4) coherent buffer Bucketed { uint bucketed[]; };
layout(std430, binding = 5) buffer Values { uint values[]; };
layout(std430, binding = 6) writeonly buffer IndicesOut { uint indicesOut[]; };
#define STARTS(i) starts[(i)]
#define BUCKETED(i) bucketed[(i)]
#endif

shared uint sKey[LIST_SLOTS];
shared uint sIdx[LIST_SLOTS];
#if defined(RIPPLE_SMALL)
// Output rank r of row `row` is sequence element idx: its index (topk_write.glsl's writeWinnerValue without
// the value).
void writeWinner(uint row, uint rowBase, uint r, uint idx) {
    const uint K = TOPK_K, inner = P(10), indexWords = P(11);
    const uint e = (row / inner) * K * inner + row % inner + r * inner;
    indicesOut[e * indexWords] = idx;
    if (indexWords == 2u) indicesOut[e * 2u + 1u] = 0u;
}
#else
#include "ripple/topk_write.glsl"
#endif

// Sorts entries [first, first + n) of the bucketed list in place: the bitonic network of the next power of
// 2 with mirrored first steps, whose positions past n stand for entries after every real one (no step
// moves such an entry down, so their pairs are skipped). Slow (a global round trip and a barrier per step),
// and only for a bucket over LIST_SORT_SLOTS. All invocations must call it.
void sortInPlace(uint first, uint n) {
    uint P2 = 1u;
    while (P2 < n) P2 <<= 1u;
    for (uint k = 2u; k <= P2; k <<= 1u) {
        for (uint d = k >> 1u; d > 0u; d >>= 1u) {
            for (uint p = gl_LocalInvocationID.x; p < P2 / 2u; p += INVOCATIONS) {
                const uint lo = ((p & ~(d - 1u)) << 1u) | (p & (d - 1u));
                const uint hi = d == (k >> 1u) ? (lo ^ (k - 1u)) : (lo + d);
                if (hi >= n) continue;
                const uvec2 a = uvec2(BUCKETED((first + lo) * 2u), BUCKETED((first + lo) * 2u + 1u));
                const uvec2 b = uvec2(BUCKETED((first + hi) * 2u), BUCKETED((first + hi) * 2u + 1u));
                if (listBefore(b.x, b.y, a.x, a.y) != 0u) {
                    BUCKETED((first + lo) * 2u) = b.x;
                    BUCKETED((first + lo) * 2u + 1u) = b.y;
                    BUCKETED((first + hi) * 2u) = a.x;
                    BUCKETED((first + hi) * 2u + 1u) = a.y;
                }
            }
            memoryBarrierBuffer();
            barrier();
        }
    }
}

#if defined(RIPPLE_SMALL)
// Buckets over LIST_RANK_MAX entries are sorted in shared memory by the same network as sortInPlace instead
// of ranked: with 128 invocations ranking costs n * n / 128 comparisons an invocation, and the largest
// buckets decided the step (H200 under mobile-vk11, (1,16777216) K=65536: 105 us of 228 with 1024 buckets
// of about 240 entries; bench/NOTES.md, issue 58). At 512 entries the network's 45 steps cost about what
// ranking does. All invocations must call it, after the bucket is in sKey and sIdx.
#define LIST_RANK_MAX 512u
void sortShared(uint n) {
    uint P2 = 1u;
    while (P2 < n) P2 <<= 1u;
    for (uint k = 2u; k <= P2; k <<= 1u) {
        for (uint d = k >> 1u; d > 0u; d >>= 1u) {
            for (uint p = gl_LocalInvocationID.x; p < P2 / 2u; p += INVOCATIONS) {
                const uint lo = ((p & ~(d - 1u)) << 1u) | (p & (d - 1u));
                const uint hi = d == (k >> 1u) ? (lo ^ (k - 1u)) : (lo + d);
                if (hi >= n) continue;
                const uint ak = sKey[lo], ai = sIdx[lo], bk = sKey[hi], bi = sIdx[hi];
                if (listBefore(bk, bi, ak, ai) != 0u) {
                    sKey[lo] = bk;
                    sIdx[lo] = bi;
                    sKey[hi] = ak;
                    sIdx[hi] = ai;
                }
            }
            barrier();
        }
    }
}
#endif

void main() {
    const uint C = SELECT_CAPACITY, B = LIST_B, K = TOPK_K, lid = gl_LocalInvocationID.x;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * B; g += pc.groupCount) {
        const uint row = g / B, bucket = g % B, list = row * C;
        const uint n = counts[row * 2u * B + bucket], pos = STARTS(row * B + bucket);
        barrier();  // every invocation has read the count
        if (lid == 0u) counts[row * 2u * B + bucket] = counts[(row * 2u + 1u) * B + bucket] = 0u;
        if (n == 0u || pos >= K) continue;  // uniform
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        if (n > LIST_SORT_SLOTS) {
            sortInPlace(list + pos, n);
            for (uint i = lid; i < n && pos + i < K; i += INVOCATIONS)
                writeWinner(row, rowBase, pos + i, BUCKETED((list + pos + i) * 2u + 1u));
            continue;
        }
        for (uint i = lid; i < n; i += INVOCATIONS) {
            sKey[i] = BUCKETED((list + pos + i) * 2u);
            sIdx[i] = BUCKETED((list + pos + i) * 2u + 1u);
        }
        barrier();
#if defined(RIPPLE_SMALL)
        if (n > LIST_RANK_MAX) {  // uniform
            sortShared(n);
            for (uint i = lid; i < n && pos + i < K; i += INVOCATIONS)
                writeWinner(row, rowBase, pos + i, sIdx[i]);
            barrier();
            continue;
        }
#endif
        RIPPLE_MARK(0);  // phases (PROFILE builds): loads, ranks and writes
        // Each entry's place: the bucket's entries before it (all distinct), four independent sums.
        for (uint e = lid; e < n; e += INVOCATIONS) {
            const uint key = sKey[e], idx = sIdx[e];
            uint r0 = 0u, r1 = 0u, r2 = 0u, r3 = 0u, j = 0u;
            for (; j + 4u <= n; j += 4u) {
                r0 += listBefore(sKey[j], sIdx[j], key, idx);
                r1 += listBefore(sKey[j + 1u], sIdx[j + 1u], key, idx);
                r2 += listBefore(sKey[j + 2u], sIdx[j + 2u], key, idx);
                r3 += listBefore(sKey[j + 3u], sIdx[j + 3u], key, idx);
            }
            for (; j < n; ++j) r0 += listBefore(sKey[j], sIdx[j], key, idx);
            const uint rank = r0 + r1 + r2 + r3;
            if (pos + rank < K) writeWinner(row, rowBase, pos + rank, idx);
        }
        barrier();
        RIPPLE_MARK(1);
    }
}
