// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK for large K, list sort step 1 (ripple/topk_list.glsl): the row's B samples of its candidate list put
// in order by ranking, not sorting: each of B / 16 workgroups per row loads all B samples into shared memory
// and counts, for 16 of them, the samples before each one (16 invocations a sample, a sixteenth of the
// samples each); sample j goes to splitter slot rank(j). A bitonic sort of 2048 samples in one workgroup
// was a chain of 66 dependent steps (H100: 29 us in shared memory, 31 us in registers); here every
// invocation makes B / 16 independent comparisons. Equal samples (a list shorter than B takes some entries
// twice) rank by their sample number, so the slots are a permutation.
// Bindings: 1 candidate lists, 2 state, 3 splitters (B entries per row).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"
#include "ripple/topk_list.glsl"
#include "ripple/hash.glsl"

layout(std430, binding = 1) readonly buffer Candidates { uint candidates[]; };
layout(std430, binding = 2) readonly buffer State { uint state[]; };
layout(std430, binding = 3) writeonly buffer Splitters { uint splitters[]; };

shared uint sKey[LIST_BUCKETS];
shared uint sIdx[LIST_BUCKETS];
shared uint sRank[16];

// 1 if sample i comes before sample j (entry key, idx): by entry, equal entries by sample number.
uint sampleBefore(uint i, uint key, uint idx, uint j) {
    const uint same = uint(sKey[i] == key) & uint(sIdx[i] == idx);
    return listBefore(sKey[i], sIdx[i], key, idx) | (same & uint(i < j));
}

void main() {
    const uint C = SELECT_CAPACITY, B = LIST_B, lid = gl_LocalInvocationID.x, parts = B / 16u;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * parts; g += pc.groupCount) {
        const uint row = g / parts, first = (g % parts) * 16u;
        const uint L = state[row * SELECT_STATE + 3u], stratum = L / B;
        // Sample j: a pseudo-random position of stratum j, which starts at floor(j L / B) (computed without
        // the 32-bit product overflowing).
        for (uint j = lid; j < B; j += GROUP_SIZE) {
            const uint pos = min(j * stratum + (j * (L % B)) / B + hash(j) % max(stratum, 1u), L - 1u);
            sKey[j] = candidates[(row * C + pos) * 2u];
            sIdx[j] = candidates[(row * C + pos) * 2u + 1u];
        }
        if (lid < 16u) sRank[lid] = 0u;
        barrier();
        // 16 invocations a sample, GROUP_SIZE / 16 slices of the samples (16 of B / 16 at 256 invocations).
        const uint j = first + lid % 16u, part = B / (GROUP_SIZE / 16u), from = (lid / 16u) * part;
        const uint key = sKey[j], idx = sIdx[j];
        uint r0 = 0u, r1 = 0u, r2 = 0u, r3 = 0u;  // independent sums
        for (uint i = from; i < from + part; i += 4u) {
            r0 += sampleBefore(i, key, idx, j);
            r1 += sampleBefore(i + 1u, key, idx, j);
            r2 += sampleBefore(i + 2u, key, idx, j);
            r3 += sampleBefore(i + 3u, key, idx, j);
        }
        atomicAdd(sRank[lid % 16u], r0 + r1 + r2 + r3);
        barrier();
        if (lid < 16u) {
            splitters[(row * B + sRank[lid]) * 2u] = key;
            splitters[(row * B + sRank[lid]) * 2u + 1u] = idx;
        }
        barrier();
    }
}
