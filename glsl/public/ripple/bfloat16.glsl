// SPDX-License-Identifier: MIT
// Public GLSL include for users' kernels (docs/KERNELS.md): BFLOAT16 as ripple stores it, two elements
// per 32-bit word (element i in the low half of word i / 2 when i is even), without 16-bit storage.
#ifndef RIPPLE_BFLOAT16_GLSL
#define RIPPLE_BFLOAT16_GLSL

// The FLOAT32 value of BFLOAT16 bits (the low 16 bits of `bits`): exact.
float rippleBFloat16ToFloat(uint bits) { return uintBitsToFloat((bits & 0xFFFFu) << 16u); }

// `f` as BFLOAT16 bits (FLOAT32's top half), rounded to nearest even as ripple's operators round; a NaN
// stays a (quiet) NaN.
uint rippleFloatToBFloat16(float f) {
    const uint x = floatBitsToUint(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x >> 16u) | 0x40u;
    return (x + 0x7FFFu + ((x >> 16u) & 1u)) >> 16u;
}

#endif
