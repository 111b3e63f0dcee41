#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 2: the digit counts into exclusive offsets, in place, by one workgroup
// (ripple/pair_sort.glsl). Bindings: 1 counts (256 * blocks).
#include "ripple/pair_sort.glsl"
#include "ripple/scan.glsl"

layout(std430, binding = 1) buffer Counts { uint counts[]; };

void main() {
    const uint n = 256u * P(1), lid = gl_LocalInvocationID.x;
    uint carry = 0u;
    for (uint base = 0u; base < n; base += 1024u) {  // 4 consecutive counts per invocation
        uint c[4];
        uint sum = 0u;
        for (uint k = 0u; k < 4u; ++k) {
            const uint i = base + lid * 4u + k;
            c[k] = i < n ? counts[i] : 0u;
            sum += c[k];
        }
        uint total;
        uint before = carry + workgroupExclusiveAdd(sum, total);
        for (uint k = 0u; k < 4u; ++k) {
            const uint i = base + lid * 4u + k;
            if (i < n) counts[i] = before;
            before += c[k];
        }
        carry += total;
    }
}
