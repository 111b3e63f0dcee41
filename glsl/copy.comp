// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// output = input: gathers a strided tensor into a packed one. One thread per output word, so 8/16-bit
// elements are written whole-word without disturbing anything, and the padding bytes of the last word
// (past the tensor, inside its 4-byte-rounded size) keep their contents.
// ELEM_b128: a packed input whose byte size is a multiple of 16, copied 16 bytes per access (the only form
// that reaches full bandwidth on some GPUs); params [0] is then the count of 16-byte blocks.
// Params: [0] element count, [1..17] input view. Bindings: 1 input, 2 output.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"

#if defined(ELEM_b128)
layout(std430, binding = 1) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 2) writeonly buffer Dst { uvec4 dst[]; };

void main() {
    const uint count = P(0), stride = pc.groupCount * gl_WorkGroupSize.x;
    uint i = gl_GlobalInvocationID.x;
    for (; i + 3u * stride < count; i += 4u * stride) {  // four loads in flight per thread
        uvec4 a = src[i], b = src[i + stride], c = src[i + 2u * stride], d = src[i + 3u * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2u * stride] = c;
        dst[i + 3u * stride] = d;
    }
    for (; i < count; i += stride) dst[i] = src[i];
}
#else
layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) buffer Dst { uint dst[]; };

void main() {
    const uint count = P(0);
    const uint view = 1u;
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
#if ELEM_BITS == 64
    for (uint e = gl_GlobalInvocationID.x; e < count; e += stride) {
        uvec2 v = LOAD_B64(src, viewOffset(view, e));
        dst[2u * e] = v.x;
        dst[2u * e + 1u] = v.y;
    }
#else
    const uint perWord = 32u / ELEM_BITS;
    const uint words = (count + perWord - 1u) / perWord;
    for (uint w = gl_GlobalInvocationID.x; w < words; w += stride) {
        uint first = w * perWord;
        uint word = first + perWord > count ? dst[w] : 0u;
        for (uint i = 0u; i < perWord; ++i) {
            if (first + i < count) {
                uint bits = LOAD_ELEM(src, viewOffset(view, first + i)).x;
#if ELEM_BITS == 32
                word = bits;
#else
                uint shift = i * ELEM_BITS;
                uint mask = ((1u << ELEM_BITS) - 1u) << shift;
                word = (word & ~mask) | ((bits << shift) & mask);
#endif
            }
        }
        dst[w] = word;
    }
#endif
}
#endif
