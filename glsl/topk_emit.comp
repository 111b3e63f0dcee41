// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK's last pass: writes the K winners of every row (the single run of the last level) to the outputs.
// Values are copied bit for bit from the input (NaN payloads and -0.0 kept), one thread per output word
// so 8/16-bit values never share a word between threads. KEYW_x: the entry layout; ELEM_x: value size.
// Bindings: 1 input, 2 last-level runs, 3 values (packed), 4 indices (packed, 1 or 2 words each).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) readonly buffer Runs { uint runs[]; };
layout(std430, binding = 3) buffer Values { uint values[]; };
layout(std430, binding = 4) writeonly buffer IndicesOut { uint indicesOut[]; };

// Output element e (packed, Sizes[Axis] = K) -> its row and rank, and the winner's sequence index.
uint winner(uint e, out uint row) {
    const uint K = TOPK_K, inner = P(10);
    uint outer = e / (K * inner);
    uint rem = e % (K * inner);
    row = outer * inner + rem % inner;
    return runs[(row * runCapacity(P(12)) + rem / inner) * ENTRY_WORDS + KEYW];
}

void main() {
    const uint count = TOPK_ROWS * TOPK_K;
    const uint indexWords = P(11);
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
#if ELEM_BITS == 64
    const uint valueWords = count;  // one thread per 64-bit value
#else
    const uint perWord = 32u / ELEM_BITS;
    const uint valueWords = (count + perWord - 1u) / perWord;
#endif
    for (uint x = gl_GlobalInvocationID.x; x < max(count, valueWords); x += stride) {
        if (x < count) {
            uint row;
            uint idx = winner(x, row);
            indicesOut[x * indexWords] = idx;
            if (indexWords == 2u) indicesOut[x * 2u + 1u] = 0u;
#if ELEM_BITS == 64
            uvec2 v = LOAD_B64(inputWords, inputOffset(row, idx));
            values[2u * x] = v.x;
            values[2u * x + 1u] = v.y;
#endif
        }
#if ELEM_BITS != 64
        if (x < valueWords) {
            uint first = x * perWord;
            uint word = first + perWord > count ? values[x] : 0u;
            for (uint i = 0u; i < perWord && first + i < count; ++i) {
                uint row;
                uint idx = winner(first + i, row);
                uint bits = LOAD_ELEM(inputWords, inputOffset(row, idx)).x;
#if ELEM_BITS == 32
                word = bits;
#else
                uint shift = i * ELEM_BITS;
                uint mask = ((1u << ELEM_BITS) - 1u) << shift;
                word = (word & ~mask) | ((bits << shift) & mask);
#endif
            }
            values[x] = word;
        }
#endif
    }
}
