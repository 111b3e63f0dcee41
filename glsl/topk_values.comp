// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK's values from its indices, for the small-device plans of large K (core/topk_select.cpp): the small
// forms of topk_list_sort write the indices only, within 4 storage buffers. Output element e gets the input
// element its index names, bit for bit (topk_write.glsl, which writes the same index back). Bindings:
// 1 input, 2 indices (the OutputIndexTensor, already written), 3 values.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer IndicesOut { uint indicesOut[]; };
layout(std430, binding = 3) buffer Values { uint values[]; };

#include "ripple/topk_write.glsl"

void main() {
    const uint K = TOPK_K, inner = P(10), indexWords = P(11);
    // rows * K output elements, fewer than 2^31; e = (outer * K + r) * inner + i, row = outer * inner + i.
    for (uint e = gl_GlobalInvocationID.x; e < TOPK_ROWS * K; e += pc.groupCount * GROUP_SIZE) {
        const uint outer = e / (K * inner), rest = e % (K * inner);
        const uint row = outer * inner + rest % inner;
        writeWinner(row, viewOffset(TOPK_ROW_VIEW, row), rest / inner, indicesOut[e * indexWords]);
    }
}
