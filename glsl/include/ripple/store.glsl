// SPDX-License-Identifier: MIT
// Writing one element into the output binding (OUT_BINDING) so that concurrent writes to neighbouring
// 8/16-bit elements never disturb each other and colliding writes leave one whole value.
// MODE_portable: 32-bit words only; 8/16-bit elements are merged into their word with compare-and-swap.
// MODE_fast: native 8/16-bit storage access (storageBuffer8/16BitAccess).
// 64-bit elements always use one 64-bit atomic exchange (shaderInt64 + shaderBufferInt64Atomics).
#if defined(MODE_fast) && (ELEM_BITS == 8)
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(std430, binding = OUT_BINDING) buffer OutNarrow { uint8_t outNarrow[]; };
#elif defined(MODE_fast) && (ELEM_BITS == 16)
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(std430, binding = OUT_BINDING) buffer OutNarrow { uint16_t outNarrow[]; };
#elif ELEM_BITS == 64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(std430, binding = OUT_BINDING) buffer OutWide { uint64_t outWide[]; };
#else
layout(std430, binding = OUT_BINDING) buffer Out { uint outWords[]; };
#endif

void storeElement(uint e, uvec2 bits) {
#if defined(MODE_fast) && (ELEM_BITS == 8)
    outNarrow[e] = uint8_t(bits.x);
#elif defined(MODE_fast) && (ELEM_BITS == 16)
    outNarrow[e] = uint16_t(bits.x);
#elif ELEM_BITS == 64
    atomicExchange(outWide[e], packUint2x32(bits));  // one 64-bit write: never half of each of two updates
#elif ELEM_BITS == 32
    outWords[e] = bits.x;
#else
    const uint perWord = 32u / ELEM_BITS;
    uint w = e / perWord;
    uint shift = (e % perWord) * ELEM_BITS;
    uint mask = ((1u << ELEM_BITS) - 1u) << shift;
    uint value = (bits.x << shift) & mask;
    uint expected = outWords[w];
    for (;;) {
        uint seen = atomicCompSwap(outWords[w], expected, (expected & ~mask) | value);
        if (seen == expected) break;
        expected = seen;
    }
#endif
}
