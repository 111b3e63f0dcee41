// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterND's claims for slices of whole 16-byte blocks (core/scatter_nd.cpp, the claimed block path): before
// scatter_nd_rows_reduce, each in-range index tuple marks the target slice it selects, so that a slice that
// one tuple alone selects is combined with plain loads and stores instead of an atomic per element. After
// it, the same kernel with arg 1 clears what it marked: the claims live in zeroed scratch, which the
// operator leaves all zero. Claims (P(36)):
//   0 (a reduction): two bits per target slice t in word t / 16, at bit 2 (t % 16): claimed, and the bit
//     above it: claimed again (atomicOr).
//   1 (deterministic NONE): word t holds the largest tuple number + 1 that selects t (atomicMax): the
//     tuple that IndicesTensor's row-major order puts last, whose slice is the one written.
// Params: scatter_nd_rows.comp's [0..35] (block pitches), [36] the claims.
// Bindings: 1 indices, 2 claims (zeroed scratch), 3 status (the CountTensor word).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/index.glsl"

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) buffer Claims { uint claims[]; };
layout(std430, binding = 3) readonly buffer Status { uint status[]; };
#include "ripple/counted.glsl"
#include "ripple/scatter_nd_tuple.glsl"

void main() {
    const uint slice = P(1), q = P(2), mode = P(36);
    const uint tuples = countedUnits(P(0), slice) / slice;
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint tuple = gl_GlobalInvocationID.x; tuple < tuples; tuple += stride) {
        uint target = 0u;
        if (!addTupleOffset(tuple, q, target)) continue;  // the block pass flags it
        const uint t = target / slice;
        if (pc.arg != 0u) {
            claims[mode == 0u ? t >> 4u : t] = 0u;
        } else if (mode == 0u) {
            const uint bit = 1u << ((t & 15u) * 2u);
            if ((atomicOr(claims[t >> 4u], bit) & bit) != 0u) atomicOr(claims[t >> 4u], bit << 1u);
        } else {
            atomicMax(claims[t], tuple + 1u);
        }
    }
}
