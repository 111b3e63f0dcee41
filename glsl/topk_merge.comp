// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK pass 2..L: merges pairs of sorted runs of level `pc.arg` into runs of the next level, keeping the
// first cap(level+1) entries. Each thread places one entry: its rank in its own run plus the number of
// entries of the partner run that precede it (binary search). Entries are distinct (the index is part of
// the key), so the placement is exact and stable.
// Bindings: 1 runs of this level, 2 runs of the next level.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) writeonly buffer Dst { uint dst[]; };

// Is the entry at src position a before the one at b (both in entries)?
bool entryLess(uint a, uint b) {
    a *= ENTRY_WORDS;
    b *= ENTRY_WORDS;
    [[unroll]] for (uint w = 0u; w <= KEYW; ++w) {
        if (src[a + w] != src[b + w]) return src[a + w] < src[b + w];
    }
    return false;
}

void main() {
    const uint level = pc.arg;
    const uint runs = runCount(level), cap = runCapacity(level);
    const uint runsOut = runCount(level + 1u), capOut = runCapacity(level + 1u);
    const uint total = TOPK_ROWS * runs * cap;
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint x = gl_GlobalInvocationID.x; x < total; x += stride) {
        uint i = x % cap;
        uint j = (x / cap) % runs;
        uint row = x / cap / runs;
        if (i >= runLength(level, j)) continue;
        uint pos = i;
        uint partner = j ^ 1u;
        if (partner < runs) {
            uint base = (row * runs + partner) * cap;
            uint lo = 0u, hi = runLength(level, partner);
            while (lo < hi) {
                uint mid = (lo + hi) >> 1u;
                if (entryLess(base + mid, x)) lo = mid + 1u;
                else hi = mid;
            }
            pos += lo;
        }
        if (pos < capOut) {
            uint d = ((row * runsOut + (j >> 1u)) * capOut + pos) * ENTRY_WORDS;
            [[unroll]] for (uint w = 0u; w <= KEYW; ++w) dst[d + w] = src[x * ENTRY_WORDS + w];
        }
    }
}
