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
layout(local_size_x = 256) in;
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

#if !defined(SCATTER_LAST)
#if ELEM_BITS == 64
#define ACC_T uint64_t
#define ACC_LOAD(buf, off) packUint2x32(LOAD_ELEM(buf, off))
#else
#define ACC_T uint
#define ACC_LOAD(buf, off) LOAD_ELEM(buf, off).x
#endif
#define RUN_BATCH 16u

// Folds the run of `key` that starts at pair s into acc, in order. Updates are read RUN_BATCH at a time,
// all loads of a batch issued before its in-order fold: a long run (few targets, many duplicates) then waits
// one memory round trip per RUN_BATCH updates instead of one per update (790 -> see bench/NOTES.md). Pairs
// past the run are loaded too (their numbers are valid update numbers) and not folded.
ACC_T foldRun(ACC_T acc, uint s, uint key, uint within, uint slice, uint op, uint pairs) {
    for (uint j = s;; j += RUN_BATCH) {
        ACC_T v[RUN_BATCH];
        bool take[RUN_BATCH];
        [[unroll]] for (uint i = 0u; i < RUN_BATCH; ++i) {
            const uint k = min(j + i, pairs - 1u);
            take[i] = j + i < pairs && keys[k] == key;
            v[i] = ACC_LOAD(updates, viewOffset(4u, numbers[k] * slice + within));
        }
        [[unroll]] for (uint i = 0u; i < RUN_BATCH; ++i)
            if (take[i]) acc = combineBits(acc, v[i], op);
        if (!take[RUN_BATCH - 1u]) return acc;  // keys are sorted: the run ended in this batch
    }
    return acc;
}
#endif

void main() {
    const uint pairs = P(0), slice = P(1), targets = P(2);
    const uint count = pairs * slice;  // the updates' element count
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint e = ORDERED_GROUP(21u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; e < count; e += stride) {
        const uint s = e / slice, within = e % slice;
        const uint key = keys[s];
        if (key == targets) continue;  // out of range
#if defined(SCATTER_LAST)
        if (s + 1u < pairs && keys[s + 1u] == key) continue;  // not the run's last
        writeElement(key * slice + within, LOAD_ELEM(updates, viewOffset(4u, numbers[s] * slice + within)));
#else
        if (s > 0u && keys[s - 1u] == key) continue;  // not the run's first
        const uint op = P(3);
        const uint target = key * slice + within;
        ACC_T acc = ACC_LOAD(outWords, target);
        if (s + 1u < pairs && keys[s + 1u] == key)
            acc = foldRun(acc, s, key, within, slice, op, pairs);
        else  // a run of one update, the common case of few duplicates
            acc = combineBits(acc, ACC_LOAD(updates, viewOffset(4u, numbers[s] * slice + within)), op);
#if ELEM_BITS == 64
        writeElement(target, unpackUint2x32(acc));
#else
        writeElement(target, uvec2(acc, 0u));
#endif
#endif
    }
}
