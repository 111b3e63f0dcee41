// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 2: the digit counts into exclusive offsets, in place, by one workgroup
// (ripple/pair_sort.glsl). Bindings: 1 counts (256 * blocks, read as 16-byte groups of 4).
// 16 consecutive counts per invocation, their 4 loads issued before the first is used: with 4 counts and
// one load at a time the scan of 131,072 counts took 145 us on the H100, 128 rounds each waiting for its
// loads (bench/NOTES.md "Scatter v3"). MODE fast: subgroup scans (ripple/scan.glsl).
#include "ripple/pair_sort.glsl"
#include "ripple/scan.glsl"

layout(std430, binding = 1) buffer Counts { uvec4 counts4[]; };

void main() {
    const uint n4 = 64u * P(1), lid = scanIndex();  // 256 * blocks counts, as uvec4s; lid in scan order
    uint carry = 0u;
    for (uint base = 0u; base < n4; base += 1024u) {  // 4096 counts a round
        uvec4 c[4];
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            const uint i = base + lid * 4u + j;
            c[j] = i < n4 ? counts4[i] : uvec4(0u);
        }
        uint sum = 0u;
        [[unroll]] for (uint j = 0u; j < 4u; ++j) sum += c[j].x + c[j].y + c[j].z + c[j].w;
        uint total;
        uint before = carry + workgroupExclusiveAdd(sum, total);
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            const uint i = base + lid * 4u + j;
            uvec4 o;
            o.x = before;
            o.y = o.x + c[j].x;
            o.z = o.y + c[j].y;
            o.w = o.z + c[j].z;
            before = o.w + c[j].w;
            if (i < n4) counts4[i] = o;
        }
        carry += total;
    }
}
