// SPDX-License-Identifier: MIT
// Combining an update with the output element it targets, atomically, for the scatter reductions
// (ripple/combine_bits.glsl): every update of a duplicated target is combined. Needs DTYPE_xx and
// OUT_BINDING.
// - 32-bit elements: atomicAdd (integers) and atomicMax / atomicMin (UINT32), else a compare-and-swap loop.
// - 8- and 16-bit elements: a compare-and-swap loop on the containing 32-bit word, so neighbouring elements
//   updated at the same time stay exact.
// - 64-bit elements: 64-bit atomicAdd (integers) and atomicMax / atomicMin (UINT64), else a 64-bit
//   compare-and-swap loop (shaderInt64, shaderBufferInt64Atomics; FLOAT64 also shaderFloat64).
// FLOAT16 and BFLOAT16 are rounded after every update.
// MODE_fast (FLOAT32 only, shaderBufferFloat32AtomicAdd): ADD by the device's float atomic add, through a
// float view of the output binding; an update then costs one atomic instead of a loop that retries while
// other invocations change the word (1,024 updates per target: bench/NOTES.md "Scatter v3").
#include "ripple/combine_bits.glsl"

#if defined(DTYPE_f64) || defined(DTYPE_i64) || defined(DTYPE_u64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(std430, binding = OUT_BINDING) buffer OutWide { uint64_t outWide[]; };
#else
layout(std430, binding = OUT_BINDING) buffer Out { uint outWords[]; };
#endif
#if defined(DTYPE_f32) && defined(MODE_fast)
#extension GL_EXT_shader_atomic_float : require
layout(std430, binding = OUT_BINDING) buffer OutFloat { float outFloats[]; };
#endif

#if !(defined(DTYPE_f64) || defined(DTYPE_i64) || defined(DTYPE_u64))
void combineElement(uint e, uvec2 bits, uint op) {
#if defined(DTYPE_f32) && defined(MODE_fast)
    if (op == REDUCE_ADD) {
        atomicAdd(outFloats[e], uintBitsToFloat(bits.x));
        return;
    }
#endif
#if defined(DTYPE_i32) || defined(DTYPE_u32)
    if (op == REDUCE_ADD) {
        atomicAdd(outWords[e], bits.x);
        return;
    }
#endif
#if defined(DTYPE_u32)
    if (op == REDUCE_MAX) {
        atomicMax(outWords[e], bits.x);
        return;
    }
    if (op == REDUCE_MIN) {
        atomicMin(outWords[e], bits.x);
        return;
    }
#endif
    const uint perWord = 32u / ELEM_BITS, w = e / perWord, shift = (e % perWord) * ELEM_BITS;
#if ELEM_BITS == 32
    const uint mask = 0xFFFFFFFFu;
#else
    const uint mask = ((1u << ELEM_BITS) - 1u) << shift;
#endif
    uint expected = outWords[w];  // a guess; the swap checks it
    for (;;) {
        const uint now = (expected & mask) >> shift;
        const uint next = (expected & ~mask) | ((combineBits(now, bits.x, op) << shift) & mask);
        // MAX / MIN only ever move a value one way: an unchanged guess means nothing to write. (ADD and MUL
        // always swap: -0.0 + 0.0 is +0.0.)
        if (next == expected && op >= REDUCE_MAX) return;
        const uint seen = atomicCompSwap(outWords[w], expected, next);
        if (seen == expected) return;
        expected = seen;
    }
}
#else
void combineElement(uint e, uvec2 bits, uint op) {
    const uint64_t b = packUint2x32(bits);
#if defined(DTYPE_i64) || defined(DTYPE_u64)
    if (op == REDUCE_ADD) {
        atomicAdd(outWide[e], b);
        return;
    }
#endif
#if defined(DTYPE_u64)
    if (op == REDUCE_MAX) {
        atomicMax(outWide[e], b);
        return;
    }
    if (op == REDUCE_MIN) {
        atomicMin(outWide[e], b);
        return;
    }
#endif
    uint64_t expected = outWide[e];
    for (;;) {
        const uint64_t next = combineBits(expected, b, op);
        if (next == expected && op >= REDUCE_MAX) return;
        const uint64_t seen = atomicCompSwap(outWide[e], expected, next);
        if (seen == expected) return;
        expected = seen;
    }
}
#endif
