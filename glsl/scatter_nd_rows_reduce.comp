// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterND's block pass with claims (core/scatter_nd.cpp; scatter_nd_claim.comp marked the targets first):
// each invocation combines one 16-byte block of an update slice with its target, consecutive invocations
// across the slice. A target slice that one tuple alone selects is read, combined (ripple/combine_bits.glsl)
// and written with 16-byte accesses; the blocks of a slice that several select are combined element by
// element atomically, as the element pass does (MODE_fast: FLOAT32 ADD by float atomic add). With P(37) 0
// (deterministic NONE) only the last tuple of each target, in IndicesTensor's row-major order, writes its
// slice. Out-of-range tuples are dropped and flagged in status[0].
// Params: scatter_nd_rows.comp's [0..35], [36] the claims (scatter_nd_claim.comp), [37] the reduction
// (ScatterReduction; 0: deterministic NONE).
// Bindings: 1 indices, 2 updates (packed), 3 output (packed), 4 status, 5 claims.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/dtype_elem.glsl"  // before common.glsl, which sizes elements by it
#include "ripple/common.glsl"
#include "ripple/index.glsl"
#include "ripple/combine_bits.glsl"

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer Updates { uvec4 updates[]; };
layout(std430, binding = 3) buffer Output { uvec4 outBlocks[]; };
#if defined(DTYPE_f32) && defined(MODE_fast)
#extension GL_EXT_shader_atomic_float : require
layout(std430, binding = 3) buffer OutputFloats { vec4 outFloats[]; };
#endif
layout(std430, binding = 4) buffer Status { uint status[]; };
layout(std430, binding = 5) readonly buffer Claims { uint claims[]; };
#include "ripple/counted.glsl"
#include "ripple/scatter_nd_tuple.glsl"

// Element i of block `block` combined with `bits` atomically: another tuple changes it meanwhile.
void combineShared(uint block, uint i, uint bits, uint op) {
#if defined(DTYPE_f32) && defined(MODE_fast)
    if (op == REDUCE_ADD) {
        atomicAdd(outFloats[block][i], uintBitsToFloat(bits));
        return;
    }
#endif
    uint expected = outBlocks[block][i];  // a guess; the swap checks it
    for (;;) {
        const uint next = combineBits(expected, bits, op);
        if (next == expected && op >= REDUCE_MAX) return;  // MAX / MIN: nothing to write
        const uint seen = atomicCompSwap(outBlocks[block][i], expected, next);
        if (seen == expected) return;
        expected = seen;
    }
}

void main() {
    const uint slice = P(1), q = P(2), op = P(37);
    const uint count = countedUnits(P(0), slice);  // the first tuples' blocks, with a CountTensor
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint b = gl_GlobalInvocationID.x; b < count; b += stride) {
        const uint tuple = b / slice, within = b - tuple * slice;
        uint target = within;
        if (!addTupleOffset(tuple, q, target)) {
            if (within == 0u) atomicOr(status[0], 1u);
            continue;
        }
        const uint t = (target - within) / slice;
        const uvec4 u = updates[b];
        if (op == 0u) {
            if (claims[t] == tuple + 1u) outBlocks[target] = u;
            continue;
        }
        if (((claims[t >> 4u] >> ((t & 15u) * 2u)) & 3u) == 1u) {
            const uvec4 o = outBlocks[target];
            outBlocks[target] = uvec4(combineBits(o.x, u.x, op), combineBits(o.y, u.y, op),
                                      combineBits(o.z, u.z, op), combineBits(o.w, u.w, op));
        } else {
            [[unroll]] for (uint i = 0u; i < 4u; ++i) combineShared(target, i, u[i], op);
        }
    }
}
