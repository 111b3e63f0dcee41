// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// The deterministic mode's last pass with a reduction, for long runs (core/scatter_ordered.cpp picks it when
// a target has 16 or more updates on average and a target is one element): one workgroup per target finds
// its run in the sorted keys by binary search, its 64 invocations load 64 of the run's updates at a time
// into shared memory, and invocation 0 folds them into the element in row-major order. The same fold as
// ripple/scatter_ordered.glsl (same bits), but a run's loads are spread over 64 invocations and all SMs
// instead of one invocation's chain of dependent loads. DTYPE: the data type.
// Params: as scatter_ordered ([0] pairs, [1] slice = 1, [2] targets, [3] the reduction, [4..20] updates view,
// [21..22] group order). Bindings: 1 sorted keys, 2 sorted update numbers, 3 updates, 4 output (packed).
#include "ripple/dtype_elem.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/combine_bits.glsl"

layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) readonly buffer Numbers { uint numbers[]; };
layout(std430, binding = 3) readonly buffer Updates { uint updates[]; };
layout(std430, binding = 4) buffer Out { uint outWords[]; };

#if ELEM_BITS == 64
#define ACC_T uint64_t
#define ACC_LOAD(buf, off) packUint2x32(LOAD_ELEM(buf, off))
#else
#define ACC_T uint
#define ACC_LOAD(buf, off) LOAD_ELEM(buf, off).x
#endif

shared ACC_T batch[64];

// The first pair whose key is not below t (keys are sorted).
uint lowerBound(uint t, uint pairs) {
    uint lo = 0u, hi = pairs;
    while (lo < hi) {
        const uint mid = lo + (hi - lo) / 2u;
        if (keys[mid] < t) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

// Element e's only writer; 8/16-bit neighbours in its word may be written meanwhile.
void writeElement(uint e, ACC_T acc) {
#if ELEM_BITS == 64
    const uvec2 bits = unpackUint2x32(acc);
    outWords[2u * e] = bits.x;
    outWords[2u * e + 1u] = bits.y;
#elif ELEM_BITS == 32
    outWords[e] = acc;
#else
    const uint perWord = 32u / ELEM_BITS, shift = (e % perWord) * ELEM_BITS;
    const uint mask = ((1u << ELEM_BITS) - 1u) << shift;
    atomicAnd(outWords[e / perWord], ~mask);
    atomicOr(outWords[e / perWord], (acc << shift) & mask);
#endif
}

void main() {
    const uint pairs = P(0), targets = P(2), op = P(3);
    const uint lane = gl_LocalInvocationID.x;
    for (uint t = ORDERED_GROUP(21u); t < targets; t += pc.groupCount) {  // uniform in the workgroup
        const uint begin = lowerBound(t, pairs), end = lowerBound(t + 1u, pairs);
        if (begin == end) continue;  // no update for t
        ACC_T acc = lane == 0u ? ACC_LOAD(outWords, t) : ACC_T(0);
        for (uint j = begin; j < end; j += 64u) {
            if (j + lane < end) batch[lane] = ACC_LOAD(updates, viewOffset(4u, numbers[j + lane]));
            barrier();
            if (lane == 0u) {
                const uint n = min(64u, end - j);
                for (uint i = 0u; i < n; ++i) acc = combineBits(acc, batch[i], op);
            }
            barrier();
        }
        if (lane == 0u) writeElement(t, acc);
    }
}
