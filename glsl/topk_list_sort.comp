// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 3 (ripple/topk_list.glsl): a workgroup per bucket of a row's bucketed
// list. It sets the bucket's count and cursor back to zero (zeroed scratch) and, if the bucket starts before
// K, sorts it in registers (ripple/register_sort.glsl; in place in the list when it holds more than
// LIST_SORT_SLOTS) and writes its entries that rank before K: index, and value bit for bit from the input.
// MODE fast: the sort exchanges by subgroup shuffles.
// Bindings: 1 input, 2 counts and cursors (zeroed scratch), 3 starts, 4 bucketed lists, 5 values, 6 indices.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"
#include "ripple/scan.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Counts { uint counts[]; };
layout(std430, binding = 3) readonly buffer Starts { uint starts[]; };
// Coherent: a bucket too large for registers is sorted here, across the workgroup's barriers.
layout(std430, binding = 4) coherent buffer Bucketed { uint bucketed[]; };
layout(std430, binding = 5) buffer Values { uint values[]; };
layout(std430, binding = 6) writeonly buffer IndicesOut { uint indicesOut[]; };

shared uint sExchangeKey[LIST_SLOTS];
shared uint sExchangeIdx[LIST_SLOTS];
#define RSORT_KEYS sExchangeKey
#define RSORT_IDXS sExchangeIdx
#include "ripple/register_sort.glsl"
#include "ripple/topk_write.glsl"

// Sorts entries [first, first + n) of the bucketed list in place: the bitonic network of the next power of
// 2 with mirrored first steps, whose positions past n stand for entries after every real one (no step
// moves such an entry down, so their pairs are skipped). Slow (a global round trip and a barrier per step),
// and only for a bucket over LIST_SORT_SLOTS. All invocations must call it.
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
                if (rsortBefore(b.x, b.y, a.x, a.y)) {
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
    const uint C = SELECT_CAPACITY, B = LIST_B, K = TOPK_K, lid = gl_LocalInvocationID.x, x = scanIndex();
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * B; g += pc.groupCount) {
        const uint row = g / B, bucket = g % B, list = row * C;
        const uint n = counts[row * 2u * B + bucket], pos = starts[row * B + bucket];
        barrier();  // every invocation has read the count
        if (lid == 0u) counts[row * 2u * B + bucket] = counts[(row * 2u + 1u) * B + bucket] = 0u;
        if (n == 0u || pos >= K) continue;  // uniform
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        if (n > LIST_SORT_SLOTS) {
            sortInPlace(list + pos, n);
            for (uint i = lid; i < n && pos + i < K; i += 256u)
                writeWinner(row, rowBase, pos + i, bucketed[(list + pos + i) * 2u + 1u]);
            continue;
        }
        uint P2 = 2u;
        while (P2 < n) P2 <<= 1u;
        uint key[RSORT_SLOTS], idx[RSORT_SLOTS];
        [[unroll]] for (uint s = 0u; s < RSORT_SLOTS; ++s) {
            const uint i = (s << 8u) | x;
            key[s] = i < n ? bucketed[(list + pos + i) * 2u] : 0xFFFFFFFFu;
            idx[s] = i < n ? bucketed[(list + pos + i) * 2u + 1u] : 0xFFFFFFFFu;
        }
        registerSort(key, idx, P2);
        [[unroll]] for (uint s = 0u; s < RSORT_SLOTS; ++s) {
            const uint i = (s << 8u) | x;
            if (i < n && pos + i < K) writeWinner(row, rowBase, pos + i, idx[s]);
        }
        barrier();
    }
}
