// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK by invocation-private lists, pass 2 (topk_lane.glsl): the rank of every candidate in its row, one
// invocation each, and the K best written (values bit for bit from the input). Each part's list is sorted,
// so a candidate's rank is its slot in its own list plus, for every other part, the number of that list's
// entries before it: a binary search, log2(KMAX) + 1 comparisons, not the KMAX of an insertion. Entries are
// unique in (rank key, index), so the ranks are too. Candidates from parts shorter than KMAX carry index
// 0xFFFFFFFF and the worst key: they rank after every real entry and are not ranked themselves.
// A workgroup takes R = max(1, its invocations / the row's candidates) rows at a time into shared memory
// (at most RANK_SLOTS entries: candidates per row <= core/topk.cpp's kLaneMergeMax), where the searches
// run. That did not make many parts cheap: (4096,1024) K=8 on the H200, 16 parts a row, took 45 us with the
// searches in global memory and 41.7 in shared memory (their instructions bound it), against topk_lane_merge's
// 23.3, which planLane gives such rows (bench/NOTES.md, issue 59).
// ELEM_x: the value size (b64: 64-bit keys). Bindings: 1 input, 2 values, 3 indices, 4 candidates.
#if defined(ELEM_b64)
#define KEYW_k2
#define DTYPE_u64
#elif defined(ELEM_b32)
#define DTYPE_u32
#elif defined(ELEM_b16)
#define DTYPE_u16
#else
#define DTYPE_u8
#endif
#define LANE_KEYS_ONLY  // the list length is TOPK_T here (params), not a variant
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };
layout(std430, binding = 4) readonly buffer Candidates { uint candidates[]; };

#include "ripple/topk_write.glsl"
#include "ripple/topk_lane.glsl"

#define RANK_SLOTS 512u  // max(group size, kLaneMergeMax)
shared LaneKey sKey[RANK_SLOTS];
shared uint sIdx[RANK_SLOTS];

// 1 when entry (a, ai) comes before (b, bi): the key, then the smaller index.
uint entryBefore(LaneKey a, uint ai, LaneKey b, uint bi) {
    return keyBefore(a, b) | (uint(a == b) & uint(ai < bi));
}

void main() {
    const uint kmax = TOPK_T, parts = LANE_PARTS, count = parts * kmax, K = TOPK_K, rows = TOPK_ROWS;
    const uint plane = rows * count, lid = gl_LocalInvocationID.x;
    const uint R = max(1u, gl_WorkGroupSize.x / count);
    const uint span = min(R * count, RANK_SLOTS);  // the planner keeps R * count within it; never past it
    for (uint g = gl_WorkGroupID.x; g < (rows + R - 1u) / R; g += pc.groupCount) {
        // Slot i holds candidate i / R of row g * R + i % R: consecutive invocations load consecutive rows.
        for (uint i = lid; i < span; i += gl_WorkGroupSize.x) {
            const uint row = g * R + i % R, e = (i / R) * rows + row;
            const bool real = row < rows;
            sIdx[i] = real ? candidates[e] : 0xFFFFFFFFu;
#if KEYW == 2
            sKey[i] = real ? uvec2(candidates[plane + e], candidates[2u * plane + e]) : LANE_KEY_WORST;
#else
            sKey[i] = real ? candidates[plane + e] : LANE_KEY_WORST;
#endif
        }
        barrier();
        for (uint i = lid; i < span; i += gl_WorkGroupSize.x) {
            const uint r = i % R, c = i / R, part = c / kmax, slot = c % kmax, idx = sIdx[i];
            if (slot >= K || idx == 0xFFFFFFFFu) continue;  // a slot at or past K ranks at least there; empty
            const LaneKey key = sKey[i];
            uint rank = slot;
            for (uint q = 0u; q < parts && rank < K; ++q) {
                if (q == part) continue;
                // The entries of part q's sorted list before this one: the largest pos with entry pos-1 before.
                uint pos = 0u;
                for (uint w = kmax; w > 0u; w >>= 1u) {
                    const uint j = min((q * kmax + min(pos + w, kmax) - 1u) * R + r, RANK_SLOTS - 1u);
                    if (pos + w <= kmax && entryBefore(sKey[j], sIdx[j], key, idx) != 0u) pos += w;
                }
                rank += pos;
            }
            const uint row = g * R + r;
            if (rank < K) writeWinner(row, viewOffset(TOPK_ROW_VIEW, row), rank, idx);
        }
        barrier();
    }
}
