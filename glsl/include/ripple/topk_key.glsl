// SPDX-License-Identifier: MIT
// The order key of a TopK input element (needs DTYPE_xx and a uint[] buffer named inputWords).
#define ORDER_KEY_DEFINED
// The element's bits (DTYPE_xx's width) at `offset`, as uvec2(low, high word).
uvec2 loadElement(uint offset) {
#if defined(DTYPE_f32) || defined(DTYPE_i32) || defined(DTYPE_u32)
    return LOAD_B32(inputWords, offset);
#elif defined(DTYPE_f16) || defined(DTYPE_bf16) || defined(DTYPE_i16) || defined(DTYPE_u16)
    return LOAD_B16(inputWords, offset);
#elif defined(DTYPE_i8) || defined(DTYPE_u8)
    return LOAD_B8(inputWords, offset);
#else
    return LOAD_B64(inputWords, offset);
#endif
}

// The order key of element bits v (loadElement's form): an unsigned key whose integer order is the
// promised value order: floats by sign flip, -0.0 folded onto +0.0, every NaN above +inf; signed integers
// by flipping the sign bit. Returns (most, least significant word).
uvec2 orderKeyOf(uvec2 v) {
#if defined(DTYPE_f32)
    uint b = v.x;
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return uvec2(0xFFFFFFFFu, 0u);
    if (b == 0x80000000u) b = 0u;
    return uvec2((b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u), 0u);
#elif defined(DTYPE_f16)
    uint b = v.x;
    if ((b & 0x7FFFu) > 0x7C00u) return uvec2(0xFFFFu, 0u);
    if (b == 0x8000u) b = 0u;
    return uvec2((b & 0x8000u) != 0u ? (~b & 0xFFFFu) : (b | 0x8000u), 0u);
#elif defined(DTYPE_bf16)  // FLOAT32's top half: the same rules, 8 exponent bits, 7 mantissa bits
    uint b = v.x;
    if ((b & 0x7FFFu) > 0x7F80u) return uvec2(0xFFFFu, 0u);
    if (b == 0x8000u) b = 0u;
    return uvec2((b & 0x8000u) != 0u ? (~b & 0xFFFFu) : (b | 0x8000u), 0u);
#elif defined(DTYPE_i32)
    return uvec2(v.x ^ 0x80000000u, 0u);
#elif defined(DTYPE_u32)
    return uvec2(v.x, 0u);
#elif defined(DTYPE_i16)
    return uvec2(v.x ^ 0x8000u, 0u);
#elif defined(DTYPE_u16)
    return uvec2(v.x, 0u);
#elif defined(DTYPE_i8)
    return uvec2(v.x ^ 0x80u, 0u);
#elif defined(DTYPE_u8)
    return uvec2(v.x, 0u);
#elif defined(DTYPE_i64)
    return uvec2(v.y ^ 0x80000000u, v.x);
#elif defined(DTYPE_u64)
    return uvec2(v.y, v.x);
#endif
}

uvec2 orderKey(uint offset) { return orderKeyOf(loadElement(offset)); }
