// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// The scatters' GPU-side count (ScatterNDDesc / ScatterElementsDesc::CountTensor): reads the UINT32 count
// of update rows to apply, clamps it to the rows the operator has (params [0]), and hands it to the
// operator's later passes in status[1] as count + 1 (0, the zeroed word: no count; ripple/counted.glsl).
// A count over the maximum sets bit 2 of status[0] (reported as clamped). One invocation.
// Params: [0] update rows (ScatterElements: updates elements; ScatterND: index tuples).
// Bindings: 1 the count, 2 status.
layout(local_size_x = 1) in;
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"

layout(std430, binding = 1) readonly buffer Count { uint count[]; };
layout(std430, binding = 2) buffer Status { uint status[]; };

void main() {
    const uint rows = P(0u);
    const uint n = count[0];
    status[1] = min(n, rows) + 1u;
    if (n > rows) atomicOr(status[0], 4u);
}
