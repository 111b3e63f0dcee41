// SPDX-License-Identifier: MIT
// The scatters' deterministic mode, last pass (core/scatter_ordered.cpp): updates applied in IndicesTensor's
// row-major order. The pairs (target, update number) come sorted by target, stably, so each target's
// updates form a run in row-major order. With SCATTER_LAST (reduction NONE) the run's last update is
// written; otherwise one invocation per run and slice element folds the run into the element in order with
// combineBits (ripple/combine_bits.glsl), so float sums and products come out the same on every run.
// Each output element has one writer: no atomics but for 8/16-bit elements, which share words.
// Params: [0] pairs, [1] slice (elements per target), [2] targets (the key of out-of-range updates),
// [3] the reduction (ScatterReduction: 1 ADD, 2 MUL, 3 MAX, 4 MIN; read without SCATTER_LAST only),
// [4..20] updates view, [21..22] group order (ORDERED_GROUP).
// Bindings: 1 sorted keys, 2 sorted update numbers, 3 updates, 4 output (packed).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#if !defined(SCATTER_LAST)
#include "ripple/combine_bits.glsl"
#endif

layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) readonly buffer Numbers { uint numbers[]; };
layout(std430, binding = 3) readonly buffer Updates { uint updates[]; };
layout(std430, binding = 4) buffer Out { uint outWords[]; };

// This invocation is element e's only writer; 8/16-bit neighbours in its word may be written meanwhile.
void writeElement(uint e, uvec2 bits) {
#if ELEM_BITS == 64
    outWords[2u * e] = bits.x;
    outWords[2u * e + 1u] = bits.y;
#elif ELEM_BITS == 32
    outWords[e] = bits.x;
#else
    const uint perWord = 32u / ELEM_BITS, shift = (e % perWord) * ELEM_BITS;
    const uint mask = ((1u << ELEM_BITS) - 1u) << shift;
    atomicAnd(outWords[e / perWord], ~mask);
    atomicOr(outWords[e / perWord], (bits.x << shift) & mask);
#endif
}

void main() {
    const uint pairs = P(0), slice = P(1), targets = P(2);
    // Four neighbouring elements of a slice per invocation where the slice length allows: the pair's key,
    // number and position are then found once per four elements (core/scatter_ordered.cpp sizes the grid).
    const uint per = (slice & 3u) == 0u ? 4u : 1u;
    const uint unitsPerSlice = slice / per, units = pairs * unitsPerSlice;
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint u = ORDERED_GROUP(21u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; u < units; u += stride) {
        const uint s = u / unitsPerSlice, first = (u % unitsPerSlice) * per;
        const uint key = keys[s];
        if (key == targets) continue;  // out of range
#if defined(SCATTER_LAST)
        if (s + 1u < pairs && keys[s + 1u] == key) continue;  // not the run's last
        const uint from = numbers[s] * slice + first, to = key * slice + first;
        for (uint i = 0u; i < per; ++i) writeElement(to + i, LOAD_ELEM(updates, viewOffset(4u, from + i)));
#else
        if (s > 0u && keys[s - 1u] == key) continue;  // not the run's first
        const uint op = P(3);
        for (uint i = 0u; i < per; ++i) {
            const uint within = first + i, target = key * slice + within;
#if ELEM_BITS == 64
            uint64_t acc = packUint2x32(LOAD_ELEM(outWords, target));
            for (uint j = s; j < pairs && keys[j] == key; ++j)
                acc = combineBits(
                    acc, packUint2x32(LOAD_ELEM(updates, viewOffset(4u, numbers[j] * slice + within))), op);
            writeElement(target, unpackUint2x32(acc));
#else
            uint acc = LOAD_ELEM(outWords, target).x;
            for (uint j = s; j < pairs && keys[j] == key; ++j)
                acc = combineBits(acc, LOAD_ELEM(updates, viewOffset(4u, numbers[j] * slice + within)).x, op);
            writeElement(target, uvec2(acc, 0u));
#endif
        }
#endif
    }
}
