// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 2: a workgroup per digit (256 workgroups) turns the digit's block counts into
// exclusive offsets, in place, and writes the digit's total after all counts (ripple/pair_sort.glsl).
// Bindings: 1 counts (256 * blocks, then 256 totals). 4 counts per invocation, loaded before the first
// is used: one workgroup scanning all 256 * blocks counts took 7 us for 32 blocks, a dependent round per
// 4096 counts (bench/NOTES.md "Issue 19, continued: the deterministic sort"). MODE fast: subgroup scans.
#include "ripple/pair_sort.glsl"
#include "ripple/scan.glsl"

layout(std430, binding = 1) buffer Counts { uint counts[]; };

void main() {
    const uint blocks = P(1), digit = gl_WorkGroupID.x, first = digit * blocks, lid = scanIndex();
    uint carry = 0u;
    for (uint base = 0u; base < blocks; base += 4u * gl_WorkGroupSize.x) {
        uint c[4];
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            const uint b = base + lid * 4u + j;
            c[j] = b < blocks ? counts[first + b] : 0u;
        }
        uint total;
        uint before = carry + workgroupExclusiveAdd(c[0] + c[1] + c[2] + c[3], total);
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            const uint b = base + lid * 4u + j;
            if (b < blocks) counts[first + b] = before;
            before += c[j];
        }
        carry += total;
    }
    if (lid == 0u) counts[256u * blocks + digit] = carry;
}
