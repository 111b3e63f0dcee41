// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK's GPU-side count (TopKDesc::CountTensor, core/topk_count.cpp): gathers the input into a packed copy
// in scratch, every element at or past the count along Axis replaced by the direction's last-ranked value
// (DECREASING: -inf or the type's least; INCREASING: a NaN or the type's greatest). Ties go to the lower
// index, so the present elements rank first and the planned strategy then runs on the copy unchanged. A
// count over Sizes[Axis] is clamped to it and flagged in status[0] bit 3.
// One thread per output word, as copy.comp: 8/16-bit elements are written whole-word.
// Params: [0] element count, [1..17] input view, [18] Sizes[Axis], [19] elements after Axis (its pitch),
// [20..21] the last-ranked value's bits (low word, high word).
// Bindings: 1 input, 2 the count, 3 the packed copy, 4 status.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"

layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) readonly buffer Count { uint countWord[]; };
layout(std430, binding = 3) buffer Dst { uint dst[]; };
layout(std430, binding = 4) buffer Status { uint status[]; };

// The element at packed position e, or the last-ranked value where it is past the count.
uvec2 maskedElement(uint e, uint present) {
    const uint along = (e / P(19u)) % P(18u);
    return along < present ? LOAD_ELEM(src, viewOffset(1u, e)) : uvec2(P(20u), P(21u));
}

void main() {
    const uint count = P(0u);
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    const uint n = countWord[0];
    const uint present = min(n, P(18u));
    if (gl_GlobalInvocationID.x == 0u && n > P(18u)) atomicOr(status[0], 8u);
#if ELEM_BITS == 64
    for (uint e = gl_GlobalInvocationID.x; e < count; e += stride) {
        const uvec2 v = maskedElement(e, present);
        dst[2u * e] = v.x;
        dst[2u * e + 1u] = v.y;
    }
#else
    const uint perWord = 32u / ELEM_BITS;
    const uint words = (count + perWord - 1u) / perWord;
    for (uint w = gl_GlobalInvocationID.x; w < words; w += stride) {
        const uint first = w * perWord;
        uint word = 0u;
        for (uint i = 0u; i < perWord; ++i) {
            if (first + i < count) {
                const uint bits = maskedElement(first + i, present).x;
#if ELEM_BITS == 32
                word = bits;
#else
                const uint shift = i * ELEM_BITS;
                word |= (bits & ((1u << ELEM_BITS) - 1u)) << shift;
#endif
            }
        }
        dst[w] = word;
    }
#endif
}
